// What every core query needs: something to run SQL on (a pg.Pool or a checked-out client,
// e.g. a projector's transaction) and keyset cursors whose decoded parts are type-checked,
// so a forged cursor is a 400 `cursor is invalid`, never a SQL error.

import type pg from 'pg';
import { badRequest } from '../../../api/errors.ts';
import { decodeCursor, PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX, pageOf } from '../../../api/pagination.ts';

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

type Part = 'int' | 'dec' | 'text';

/** Decodes a cursor made by `pageOf` whose parts have the given kinds; null when absent. */
export function cursorParts(raw: string | null | undefined, kinds: readonly Part[]): Array<string> | null {
  const parts = decodeCursor(raw ?? undefined, kinds.length);
  if (!parts) return null;
  return parts.map((part, i) => {
    const s = String(part);
    if (kinds[i] === 'int' && !/^-?\d{1,19}$/.test(s)) throw badRequest('cursor is invalid');
    if (kinds[i] === 'dec' && !/^-?\d{1,30}(\.\d{1,30})?$/.test(s)) throw badRequest('cursor is invalid');
    if (kinds[i] === 'text' && s.length > 200) throw badRequest('cursor is invalid');
    return s;
  });
}

/** limit+1 rows → the page and the next cursor (null on the last page). */
export function pageFrom<Row>(rows: Row[], limit: number, keyOf: (row: Row) => ReadonlyArray<string | number>): { page: Row[]; cursor: string | null } {
  return pageOf(rows, limit, keyOf);
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

  sql(): string {
    return this.conditions.length ? `WHERE ${this.conditions.join(' AND ')}` : '';
  }
}

/** A non-empty list filter, or undefined (absent or empty means "no filter"). */
export function listFilter<T>(values: readonly T[] | null | undefined): readonly T[] | undefined {
  return values && values.length > 0 ? values : undefined;
}
