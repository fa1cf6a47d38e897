// Ledger entries for /portfolio/* and admin: the account's entries of a set of types, most
// recent first (journal order), keyset paged. Each portfolio list renders its own shape.

import type { LedgerEntryType, LedgerEntryView } from '../../../domain/views.ts';
import {
  renderAdjustmentEntry,
  renderFeeEntry,
  renderLedgerEntry,
  renderLoyaltyEntry,
  renderWithdrawalEntry,
  type LedgerEntryWire,
} from '../render.ts';
import { pageByJournalPlace, Where, type PageRequest, type PlacedRow, type Queryable } from './db.ts';

const FEE_ENTRY_TYPES: readonly LedgerEntryType[] = ['fee', 'fee_refund'];
const WITHDRAWAL_ENTRY_TYPES: readonly LedgerEntryType[] = ['withdrawal'];
const ADJUSTMENT_ENTRY_TYPES: readonly LedgerEntryType[] = ['adjustment'];
const LOYALTY_ENTRY_TYPES: readonly LedgerEntryType[] = ['rollup', 'referral'];

interface Row extends PlacedRow {
  doc: LedgerEntryView;
}

/** The account's entries whose type is in `types` (every type when omitted), as stored views. */
async function listLedgerEntryViews(
  db: Queryable,
  accountId: string,
  types: readonly LedgerEntryType[] | undefined,
  page: PageRequest = {},
): Promise<{ cursor: string | null; entries: LedgerEntryView[] }> {
  const w = new Where();
  w.and(`account_id = ${w.param(accountId)}`);
  w.anyOf('type', types);
  const { page: rows, cursor } = await pageByJournalPlace<Row>(db, 'doc', 'core_ledger_entries', w, page);
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

/** A portfolio list: the account's entries of `types`, each rendered by `render`, under `key`. */
function portfolioList<K extends string, W>(
  key: K,
  types: readonly LedgerEntryType[],
  render: (entry: LedgerEntryView) => W,
): (db: Queryable, accountId: string, page?: PageRequest) => Promise<{ cursor: string | null } & Record<K, W[]>> {
  return async (db, accountId, page = {}) => {
    const { cursor, entries } = await listLedgerEntryViews(db, accountId, types, page);
    return { cursor, [key]: entries.map(render) } as { cursor: string | null } & Record<K, W[]>;
  };
}

/** GET /portfolio/fees: `fee` and `fee_refund` entries. */
export const listFees = portfolioList('fees', FEE_ENTRY_TYPES, renderFeeEntry);

/** GET /portfolio/withdrawals. */
export const listWithdrawals = portfolioList('withdrawals', WITHDRAWAL_ENTRY_TYPES, renderWithdrawalEntry);

/** GET /portfolio/adjustments. */
export const listAdjustments = portfolioList('adjustments', ADJUSTMENT_ENTRY_TYPES, renderAdjustmentEntry);

/** GET /portfolio/loyalty: `rollup` and `referral` entries only. */
export const listLoyalty = portfolioList('loyalty', LOYALTY_ENTRY_TYPES, renderLoyaltyEntry);
