// What every core query needs: something to run SQL on (a pg.Pool or a checked-out client,
// e.g. a projector's transaction) and keyset cursors whose decoded parts are type-checked,
// so a forged cursor is a 400 `cursor is invalid`, never a SQL error.

import type pg from 'pg';
import { decodeCursor, InvalidCursor, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, pageOf } from '../../pagination.ts';

export interface Queryable {
  query<R extends pg.QueryResultRow = any>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A page request: `limit` already parsed (api/pagination parseLimit), `cursor` as received. */
export interface PageRequest {
  limit?: number;
  cursor?: string | null;
}

export function limitOf(page: PageRequest | undefined): number {
  const limit = page?.limit ?? PAGE_LIMIT_DEFAULT;
  return Math.max(1, Math.min(PAGE_LIMIT_MAX, Math.trunc(limit)));
}

/**
 * Kinds of cursor parts, named after the column type the part is compared with: `int` bigint,
 * `int4` integer, `int2` smallint, `dec` numeric, `text` text.
 */
type Part = 'int' | 'int4' | 'int2' | 'dec' | 'text';

const INT_RANGE: Record<'int' | 'int4' | 'int2', readonly [bigint, bigint]> = {
  int: [-(2n ** 63n), 2n ** 63n - 1n],
  int4: [-(2n ** 31n), 2n ** 31n - 1n],
  int2: [-(2n ** 15n), 2n ** 15n - 1n],
};

/**
 * An integer part: a JSON number must be a safe integer, a string plain decimal digits; either
 * way within the range of the PostgreSQL column type, so the query never fails on it.
 */
function integerPart(part: string | number, kind: 'int' | 'int4' | 'int2'): string | null {
  if (typeof part === 'number' && !Number.isSafeInteger(part)) return null;
  const s = String(part);
  if (!/^-?\d{1,19}$/.test(s)) return null;
  const value = BigInt(s);
  const [min, max] = INT_RANGE[kind];
  return value >= min && value <= max ? s : null;
}

/**
 * Decodes a cursor made by `pageOf` whose parts have the given kinds; null when absent. Any part
 * PostgreSQL could not take as its column type (out of range, malformed, a NUL in text) is the
 * 400 `cursor is invalid`, never a query error.
 */
export function cursorParts(raw: string | null | undefined, kinds: readonly Part[]): Array<string> | null {
  const parts = decodeCursor(raw ?? undefined, kinds.length);
  if (!parts) return null;
  return parts.map((part, i) => {
    const kind = kinds[i];
    let checked: string | null;
    if (kind === 'int' || kind === 'int4' || kind === 'int2') checked = integerPart(part, kind);
    else if (kind === 'dec') checked = /^-?\d{1,30}(\.\d{1,30})?$/.test(String(part)) ? String(part) : null;
    else checked = typeof part === 'string' && part.length <= 200 && !part.includes('\u0000') ? part : null;
    if (checked === null) throw new InvalidCursor();
    return checked;
  });
}

/** limit+1 rows → the page and the next cursor (null on the last page). */
export function pageFrom<Row>(
  rows: Row[],
  limit: number,
  keyOf: (row: Row) => ReadonlyArray<string | number>,
): { page: Row[]; cursor: string | null } {
  return pageOf(rows, limit, keyOf);
}

/** A row read with its journal place as its page key. */
export interface PlacedRow {
  key_pos: string;
  key_idx: number;
}

/**
 * The rows of `from` that `w` matches, most recent first (journal order: ins_pos, ins_idx
 * descending; `alias` qualifies those two columns), one page of them keyset-paged after
 * `page.cursor`, with `columns` selected beside the page key.
 */
export async function pageByJournalPlace<Row extends PlacedRow>(
  db: Queryable,
  columns: string,
  from: string,
  w: Where,
  page: PageRequest,
  alias = '',
): Promise<{ page: Row[]; cursor: string | null }> {
  const limit = limitOf(page);
  const after = cursorParts(page.cursor, ['int', 'int4']);
  if (after) w.and(`(ins_pos, ins_idx) < (${w.param(after[0])}::bigint, ${w.param(after[1])}::integer)`);
  const result = await db.query<Row>(
    `SELECT ${columns}, ${alias}ins_pos::text AS key_pos, ${alias}ins_idx AS key_idx FROM ${from} ${w.sql()} ORDER BY ${alias}ins_pos DESC, ${alias}ins_idx DESC LIMIT ${w.param(limit + 1)}`,
    w.values,
  );
  return pageFrom(result.rows, limit, (row) => [row.key_pos, row.key_idx]);
}

/** Builds a WHERE clause of AND-ed conditions with numbered parameters. */
export class Where {
  readonly values: unknown[] = [];
  private readonly conditions: string[] = [];

  /** Adds a value and returns its placeholder. */
  param(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }

  and(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  /** `column` is one of `values` (text); no condition when the list is absent or empty (listFilter). */
  anyOf(column: string, values: readonly string[] | null | undefined): this {
    const list = listFilter(values);
    return list ? this.and(`${column} = ANY(${this.param(list)}::text[])`) : this;
  }

  sql(): string {
    return this.conditions.length ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}

/** A non-empty list filter, or undefined (absent or empty means "no filter"). */
export function listFilter<T>(values: readonly T[] | null | undefined): readonly T[] | undefined {
  return values && values.length > 0 ? values : undefined;
}
