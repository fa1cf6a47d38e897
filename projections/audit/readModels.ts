// The read models against the auditor's fold: every row of core_balances, core_positions,
// core_orders, core_fills and core_ledger_entries, read in key order in pages, is compared column
// by column (and its `doc` field by field) with the row the core projector would write for the
// fold's record of that entity (the same render functions, domain/readModel/render.ts). A row the
// fold does not have, or an entity of the fold with no row, is a difference too.
//
// The caller reads the rows in the same snapshot as the core projector's checkpoint (one
// REPEATABLE READ transaction: the projector writes rows and checkpoint in one transaction) and
// folds the journal up to that checkpoint, so a running service can be audited.

import type pg from 'pg';
import { abs, compare, decimalOf, decimalText, formatNanos } from '../../domain/money/decimal.ts';
import { balanceView, fillView, ledgerEntryView, orderView, positionView } from '../../domain/readModel/render.ts';
import type { OrderView } from '../../domain/views.ts';
import { orderDocOf } from '../core/orderRows.ts';
import { BALANCES_TABLE } from '../core/slices/accounts.ts';
import type { SqlType, UpsertSpec } from '../core/slices/batch.ts';
import { FILLS_TABLE } from '../core/slices/fills.ts';
import { LEDGER_ENTRIES_TABLE } from '../core/slices/ledger.ts';
import { contributionOf, ORDERS_TABLE } from '../core/slices/orders.ts';
import { POSITIONS_TABLE } from '../core/slices/positions.ts';
import { positionKey } from '../facts/fold.ts';
import type { Inserted, JournalAudit } from './journal.ts';

/** Rows read per query while comparing a table. */
export const AUDIT_PAGE_ROWS = 1000;

/** A row as the projector would write it: its plain columns (as text, or null) and its document. */
interface ExpectedRow {
  columns: Record<string, string | null>;
  doc: Record<string, unknown>;
}

interface TableSpec {
  table: string;
  key: readonly string[];
  columns: ReadonlyArray<readonly [string, SqlType]>;
  /** The fold's row for a key (the key columns' values in order), or undefined when the fold has no such entity. */
  expected(key: readonly string[]): ExpectedRow | undefined;
  /** Every key the fold has a row for. */
  keys(): Iterable<readonly string[]>;
}

/** A projector's table as the audit compares it: its key, and the plain columns beside the key and the document. */
function comparedColumnsOf(spec: UpsertSpec): Pick<TableSpec, 'table' | 'key' | 'columns'> {
  const { table, key, columns } = spec;
  return { table, key, columns: columns.filter(([name, kind]) => kind !== 'json' && !key.includes(name)) };
}

/** Where a row was first inserted (its ins_pos and ins_idx columns; null when the fold never saw it inserted). */
function placeColumnsOf(inserted: Inserted | undefined): Record<string, string | null> {
  return { ins_pos: inserted?.pos ?? null, ins_idx: inserted === undefined ? null : String(inserted.idx) };
}

/** What an order contributes to its market's book, as the orders slice stores it beside the order. */
function bookColumnsOf(order: OrderView): Record<string, string | null> {
  const book = contributionOf(order);
  return book
    ? { book_side: book.side, book_price: book.price, book_remaining: decimalText(book.remaining) }
    : { book_side: null, book_price: null, book_remaining: null };
}

/** A table keyed by one id: every id of the fold's `entities`, and the row the entity of an id makes. */
function keyedById<E>(
  entities: ReadonlyMap<string, E>,
  rowOf: (entity: E, id: string) => ExpectedRow,
): Pick<TableSpec, 'keys' | 'expected'> {
  return {
    keys: () => [...entities.keys()].map((id) => [id]),
    expected([id]) {
      const entity = id === undefined ? undefined : entities.get(id);
      return entity === undefined || id === undefined ? undefined : rowOf(entity, id);
    },
  };
}

function tablesOf(audit: JournalAudit): TableSpec[] {
  const { store } = audit;
  const marketOf = (marketId: string) => {
    const market = store.markets.get(marketId)?.record;
    if (!market) throw new Error(`the fold has a row in market ${marketId}, never listed`);
    return market;
  };
  return [
    {
      ...comparedColumnsOf(BALANCES_TABLE),
      ...keyedById(store.accounts, (stored) => {
        const doc = balanceView(stored.record, stored.record.funds, stored.balanceSeq);
        return { columns: { user_id: doc.user_id, seq: String(doc.seq) }, doc: { ...doc } };
      }),
    },
    {
      ...comparedColumnsOf(POSITIONS_TABLE),
      keys: () => [...store.positions.values()].map(({ record }) => [record.accountId, record.marketId]),
      expected([accountId, marketId]) {
        const stored = store.positions.get(positionKey(accountId!, marketId!));
        if (!stored) return undefined;
        const doc = positionView(stored.record, marketOf(marketId!), stored.seq);
        return {
          columns: {
            position: formatNanos(stored.record.positionNanos),
            contracts: decimalText(abs(decimalOf(doc.position))),
            seq: String(doc.seq),
          },
          doc: { ...doc },
        };
      },
    },
    {
      ...comparedColumnsOf(ORDERS_TABLE),
      ...keyedById(store.orders, (stored, id) => {
        const doc = orderView(stored.record);
        const inserted = audit.ordersInserted.get(id);
        return {
          columns: {
            account_id: doc.account_id,
            market_id: doc.market_id,
            client_order_id: doc.client_order_id,
            status: doc.status,
            ...bookColumnsOf(doc),
            seq: String(doc.seq),
            ...placeColumnsOf(inserted),
          },
          doc: { ...orderDocOf(doc) },
        };
      }),
    },
    {
      ...comparedColumnsOf(FILLS_TABLE),
      keys: () => [...store.fills.values()].map(({ record }) => [record.id, record.liquidity]),
      expected([id, liquidity]) {
        const stored = store.fills.get(id!);
        if (!stored || stored.record.liquidity !== liquidity) return undefined;
        const doc = fillView(stored.record, marketOf(stored.record.marketId));
        const inserted = audit.fillsInserted.get(id!);
        return {
          columns: {
            account_id: doc.account_id,
            market_id: doc.market_id,
            order_id: doc.order_id,
            status: doc.status,
            tape_trade_id: inserted?.tradeId ?? null,
            inserted_at: String(doc.inserted_at),
            seq: String(doc.seq),
            ...placeColumnsOf(inserted),
          },
          doc: { ...doc },
        };
      },
    },
    {
      ...comparedColumnsOf(LEDGER_ENTRIES_TABLE),
      ...keyedById(audit.entries, (recorded) => {
        const doc = ledgerEntryView(recorded.entry, recorded.nowUs, recorded.seq);
        return {
          columns: {
            account_id: doc.account_id,
            type: doc.type,
            seq: String(recorded.seq),
            ins_pos: recorded.pos,
            ins_idx: String(recorded.idx),
          },
          doc: { ...doc },
        };
      }),
    },
  ];
}

function sameColumn(kind: SqlType, expected: string | null, found: string | null): boolean {
  if (expected === null || found === null) return expected === found;
  return kind === 'numeric' ? compare(decimalOf(expected), decimalOf(found)) === 0 : expected === found;
}

const shown = (value: unknown): string => (value === undefined ? 'absent' : JSON.stringify(value));

/** The read-model rows compared, by table. */
export type RowCounts = Record<string, number>;

/**
 * Compares the core read models (through `client`, in the caller's snapshot) with the fold;
 * differences go to the audit (up to its bound). Returns how many rows each table held.
 */
export async function compareReadModels(
  client: pg.ClientBase,
  audit: JournalAudit,
  options: { onProgress?: (rows: number) => void; pageRows?: number } = {},
): Promise<RowCounts> {
  const pageRows = options.pageRows ?? AUDIT_PAGE_ROWS;
  const counts: RowCounts = {};
  let rowsSoFar = 0;
  for (const spec of tablesOf(audit)) {
    const seen = new Set<string>();
    const keyText = (key: readonly string[]) => key.join('\u0000');
    const keyShown = (key: readonly string[]) => spec.key.map((name, i) => `${name}=${key[i]}`).join(' ');
    const keyList = spec.key.join(', ');
    const select = [
      ...spec.key,
      ...spec.columns.map(([name, kind]) => (kind === 'text' ? name : `${name}::text AS ${name}`)),
      'doc',
    ].join(', ');
    const placeholders = spec.key.map((_, i) => `$${i + 1}`).join(', ');
    let after: string[] | null = null;
    for (;;) {
      const where: string = after === null ? '' : `WHERE (${keyList}) > (${placeholders})`;
      const limit = `$${after === null ? 1 : spec.key.length + 1}`;
      const result: pg.QueryResult<Record<string, unknown>> = await client.query(
        `SELECT ${select} FROM ${spec.table} ${where} ORDER BY ${keyList} LIMIT ${limit}`,
        [...(after ?? []), pageRows],
      );
      for (const row of result.rows) {
        const key = spec.key.map((name) => String(row[name]));
        seen.add(keyText(key));
        const expected = spec.expected(key);
        if (!expected) {
          audit.differ({
            table: spec.table,
            key: keyShown(key),
            column: 'row',
            expected: 'absent (the journal has no such entity)',
            found: 'present',
          });
          continue;
        }
        for (const [name, kind] of spec.columns) {
          const found = row[name] === null || row[name] === undefined ? null : String(row[name]);
          if (!sameColumn(kind, expected.columns[name] ?? null, found)) {
            audit.differ({
              table: spec.table,
              key: keyShown(key),
              column: name,
              expected: String(expected.columns[name] ?? 'null'),
              found: String(found ?? 'null'),
            });
          }
        }
        const doc = (row.doc ?? {}) as Record<string, unknown>;
        for (const field of new Set([...Object.keys(expected.doc), ...Object.keys(doc)])) {
          if (shown(expected.doc[field]) !== shown(doc[field])) {
            audit.differ({
              table: spec.table,
              key: keyShown(key),
              column: `doc.${field}`,
              expected: shown(expected.doc[field]),
              found: shown(doc[field]),
            });
          }
        }
      }
      rowsSoFar += result.rows.length;
      options.onProgress?.(rowsSoFar);
      if (result.rows.length < pageRows) break;
      const last = result.rows[result.rows.length - 1]!;
      after = spec.key.map((name) => String(last[name]));
    }
    counts[spec.table] = seen.size;
    for (const key of spec.keys()) {
      if (!seen.has(keyText(key)))
        audit.differ({ table: spec.table, key: keyShown(key), column: 'row', expected: 'present', found: 'absent' });
    }
  }
  return counts;
}
