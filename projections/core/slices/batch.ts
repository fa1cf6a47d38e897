// What every slice of the core projector works with: the batch's facts (in journal order), what
// they changed once folded onto the stored records, the transaction, and the list of changes it
// announces after commit.

import type pg from 'pg';
import type { JournaledEvent } from '../engineEvents.ts';
import type { FactFold } from '../../facts/fold.ts';
import type { CoreStore } from '../load.ts';
import type { FillView, OrderView } from '../../../domain/views.ts';
import { prepared } from '../../runtime/prepared.ts';

type CoreChangeKind =
  'order' | 'fill' | 'balance' | 'position' | 'market' | 'ledger_entry' | 'account' | 'sport_event' | 'trade';

/**
 * A change whose document is rendered on first read (and kept): a per-order change nobody
 * watches is dropped before anything reads it (domain/readModel/change.ts WATCHED_ONLY_KINDS).
 */
export function renderedOnRead(change: Omit<CoreChange, 'doc'>, render: () => unknown): CoreChange {
  let doc: unknown;
  let rendered = false;
  return {
    ...change,
    get doc(): unknown {
      if (!rendered) {
        doc = render();
        rendered = true;
      }
      return doc;
    },
  };
}

/** A change before the projector adds `user_id` to its keys. */
export interface CoreChange {
  kind: CoreChangeKind;
  account_id?: string;
  market_id?: string;
  doc: unknown;
  /** The engine seq the row reflects (orders, balances, positions). */
  seq?: number;
}

export interface Batch {
  tx: pg.PoolClient;
  events: readonly JournaledEvent[];
  /** What the facts changed, folded onto `store` (the stored records they name). */
  fold: FactFold;
  store: CoreStore;
  changes: CoreChange[];
  /** Markets whose rendered object may have changed (state, book, trades, open interest). */
  touchedMarkets: Set<string>;
  /** The views of the orders and fills the fold changed, as their slices rendered them (by id). */
  views: { orders: Map<string, OrderView>; fills: Map<string, FillView> };
}

export interface Slice {
  name: string;
  apply(batch: Batch): Promise<void>;
}

export type SqlType = 'text' | 'bigint' | 'integer' | 'numeric' | 'boolean' | 'smallint' | 'json' | 'jsonb';

export interface UpsertSpec {
  table: string;
  /** Conflict target. */
  key: readonly string[];
  columns: ReadonlyArray<readonly [string, SqlType]>;
  /** Columns written on insert only (e.g. the insertion key). */
  insertOnly?: readonly string[];
}

/** Where a row was first inserted (journal position, index in it): written on insert only, so a row keeps its place in a list. */
const PLACE_COLUMNS: ReadonlyArray<readonly [string, SqlType]> = [
  ['ins_pos', 'bigint'],
  ['ins_idx', 'integer'],
];

/**
 * A table of snapshot rows as every slice keeps one: its own columns (the key's first), then the
 * engine `seq` the row reflects (upsertSnapshots never lets an older one replace it), where the row
 * was first inserted when `placed`, and the document. `insertOnly` names own columns written on
 * insert only (the place columns are, too).
 */
export function snapshotTable(table: {
  table: string;
  key: readonly string[];
  columns: ReadonlyArray<readonly [string, SqlType]>;
  placed?: boolean;
  insertOnly?: readonly string[];
}): UpsertSpec {
  const place = table.placed ? PLACE_COLUMNS : [];
  return {
    table: table.table,
    key: table.key,
    columns: [...table.columns, ['seq', 'bigint'], ...place, ['doc', 'json']],
    insertOnly: [...(table.insertOnly ?? []), ...place.map(([name]) => name)],
  };
}

/**
 * Upserts snapshot rows in one statement; a stored row is replaced only when the incoming
 * `seq` is >= its own, so a replayed batch changes nothing and an older snapshot never wins.
 * Returns the key columns of the rows that were written. Rows must have distinct keys.
 *
 * The rows travel column by column: one typed array per column, zipped back into rows by
 * `unnest`, and the json columns as their JSON texts joined by newlines (JSON.stringify never
 * writes a raw newline), split by `string_to_array` and cast. PostgreSQL then parses each
 * document once, as its json input, and builds no record per row from a JSON array of whole
 * rows (json_to_recordset, the dearer way for PostgreSQL). json columns must not be null.
 */
export async function upsertSnapshots(
  tx: pg.PoolClient,
  spec: UpsertSpec,
  rows: readonly Record<string, unknown>[],
): Promise<Array<Record<string, string>>> {
  if (rows.length === 0) return [];
  const names = spec.columns.map(([name]) => name);
  const isJson = (type: SqlType) => type === 'json' || type === 'jsonb';
  const values = spec.columns.map(([name, type]) => {
    if (!isJson(type)) return rows.map((row) => row[name] ?? null);
    return rows
      .map((row) => {
        const value = row[name];
        if (value === null || value === undefined)
          throw new Error(`${spec.table}.${name}: a json column of a snapshot row is null`);
        return JSON.stringify(value);
      })
      .join('\n');
  });
  const sources = spec.columns.map(([, type], i) =>
    isJson(type) ? `string_to_array($${i + 1}::text, E'\\n')` : `$${i + 1}::${type}[]`,
  );
  const selects = spec.columns.map(([name, type]) => (isJson(type) ? `${name}::${type}` : name));
  const updates = names
    .filter((name) => !spec.key.includes(name) && !(spec.insertOnly ?? []).includes(name))
    .map((name) => `${name} = excluded.${name}`)
    .join(', ');
  const sql = `
    INSERT INTO ${spec.table} (${names.join(', ')})
    SELECT ${selects.join(', ')} FROM unnest(${sources.join(', ')}) AS x(${names.join(', ')})
    ON CONFLICT (${spec.key.join(', ')}) DO UPDATE SET ${updates}
    WHERE ${spec.table}.seq <= excluded.seq
    RETURNING ${spec.key.join(', ')}`;
  const result = await tx.query<Record<string, string>>(prepared(sql, values));
  return result.rows;
}

/**
 * upsertSnapshots of the rows `rowOf` makes of `items`, handing back the items whose row was
 * written (not older than the stored one): the ones a slice announces.
 */
export async function upsertWritten<T>(
  tx: pg.PoolClient,
  spec: UpsertSpec,
  items: readonly T[],
  rowOf: (item: T) => Record<string, unknown>,
): Promise<T[]> {
  const rows = items.map((item) => ({ item, row: rowOf(item) }));
  const written = await upsertSnapshots(
    tx,
    spec,
    rows.map(({ row }) => row),
  );
  const keyOf = (row: Record<string, unknown>): string => JSON.stringify(spec.key.map((column) => String(row[column])));
  const writtenKeys = new Set(written.map(keyOf));
  return rows.filter(({ row }) => writtenKeys.has(keyOf(row))).map(({ item }) => item);
}
