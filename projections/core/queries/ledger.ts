// Ledger entries for /portfolio/* and admin: the account's entries of a set of types, most
// recent first (journal order), keyset paged. Each portfolio list renders its own shape.

import type { LedgerEntryType, LedgerEntryView } from '../../../domain/views.ts';
import {
  renderAdjustmentEntry,
  renderFeeEntry,
  renderLedgerEntry,
  renderLoyaltyEntry,
  renderWithdrawalEntry,
  type AdjustmentEntryWire,
  type FeeEntryWire,
  type LedgerEntryWire,
  type LoyaltyEntryWire,
  type WithdrawalEntryWire,
} from '../render.ts';
import { cursorParts, limitOf, pageFrom, Where, type PageRequest, type Queryable } from './db.ts';

const FEE_ENTRY_TYPES: readonly LedgerEntryType[] = ['fee', 'fee_refund'];
const WITHDRAWAL_ENTRY_TYPES: readonly LedgerEntryType[] = ['withdrawal'];
const ADJUSTMENT_ENTRY_TYPES: readonly LedgerEntryType[] = ['adjustment'];
const LOYALTY_ENTRY_TYPES: readonly LedgerEntryType[] = ['rollup', 'referral'];

interface Row {
  doc: LedgerEntryView;
  key_pos: string;
  key_idx: number;
}

/** The account's entries whose type is in `types` (every type when omitted), as stored views. */
async function listLedgerEntryViews(
  db: Queryable,
  accountId: string,
  types: readonly LedgerEntryType[] | undefined,
  page: PageRequest = {},
): Promise<{ cursor: string | null; entries: LedgerEntryView[] }> {
  const limit = limitOf(page);
  const w = new Where();
  w.and(`account_id = ${w.param(accountId)}`);
  if (types && types.length > 0) w.and(`type = ANY(${w.param(types)}::text[])`);
  const after = cursorParts(page.cursor, ['int', 'int4']);
  if (after) w.and(`(ins_pos, ins_idx) < (${w.param(after[0])}::bigint, ${w.param(after[1])}::integer)`);
  const result = await db.query<Row>(
    `SELECT doc, ins_pos::text AS key_pos, ins_idx AS key_idx FROM core_ledger_entries ${w.sql()} ORDER BY ins_pos DESC, ins_idx DESC LIMIT ${w.param(limit + 1)}`,
    w.values,
  );
  const { page: rows, cursor } = pageFrom(result.rows, limit, (row) => [row.key_pos, row.key_idx]);
  return { cursor, entries: rows.map((row) => row.doc) };
}

/** Every field of each entry (admin, generic use). */
export async function listLedgerEntries(
  db: Queryable,
  accountId: string,
  types: readonly LedgerEntryType[] | undefined,
  page: PageRequest = {},
): Promise<{ cursor: string | null; entries: LedgerEntryWire[] }> {
  const { cursor, entries } = await listLedgerEntryViews(db, accountId, types, page);
  return { cursor, entries: entries.map(renderLedgerEntry) };
}

/** GET /portfolio/fees: `fee` and `fee_refund` entries. */
export async function listFees(
  db: Queryable,
  accountId: string,
  page: PageRequest = {},
): Promise<{ cursor: string | null; fees: FeeEntryWire[] }> {
  const { cursor, entries } = await listLedgerEntryViews(db, accountId, FEE_ENTRY_TYPES, page);
  return { cursor, fees: entries.map(renderFeeEntry) };
}

/** GET /portfolio/withdrawals. */
export async function listWithdrawals(
  db: Queryable,
  accountId: string,
  page: PageRequest = {},
): Promise<{ cursor: string | null; withdrawals: WithdrawalEntryWire[] }> {
  const { cursor, entries } = await listLedgerEntryViews(db, accountId, WITHDRAWAL_ENTRY_TYPES, page);
  return { cursor, withdrawals: entries.map(renderWithdrawalEntry) };
}

/** GET /portfolio/adjustments. */
export async function listAdjustments(
  db: Queryable,
  accountId: string,
  page: PageRequest = {},
): Promise<{ cursor: string | null; adjustments: AdjustmentEntryWire[] }> {
  const { cursor, entries } = await listLedgerEntryViews(db, accountId, ADJUSTMENT_ENTRY_TYPES, page);
  return { cursor, adjustments: entries.map(renderAdjustmentEntry) };
}

/** GET /portfolio/loyalty: `rollup` and `referral` entries only. */
export async function listLoyalty(
  db: Queryable,
  accountId: string,
  page: PageRequest = {},
): Promise<{ cursor: string | null; loyalty: LoyaltyEntryWire[] }> {
  const { cursor, entries } = await listLedgerEntryViews(db, accountId, LOYALTY_ENTRY_TYPES, page);
  return { cursor, loyalty: entries.map(renderLoyaltyEntry) };
}
