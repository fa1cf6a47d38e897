// Opaque keyset cursors for list endpoints: stable while rows are inserted (no duplicates, no
// skips), because a page continues strictly after the last row's sort key, never by offset.

import { badRequest } from './errors.ts';

export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 200;

/** `limit` query value → rows per page: default 100, silently clamped to 1..200; junk is 400. */
export function parseLimit(raw: unknown, max = PAGE_LIMIT_MAX, fallback = PAGE_LIMIT_DEFAULT): number {
  if (raw === undefined || raw === '') return Math.min(fallback, max);
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) throw badRequest('limit must be an integer');
  const value = Number(raw);
  if (value < 1) return 1;
  return Math.min(value, max);
}

/** Encodes the sort key of the last row of a page. */
export function encodeCursor(key: ReadonlyArray<string | number>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** Decodes a cursor produced by encodeCursor; anything else is 400 `cursor is invalid`. */
export function decodeCursor(raw: unknown, arity: number): Array<string | number> | null {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || raw.length > 512) throw badRequest('cursor is invalid');
  try {
    const key: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(key) && key.length === arity && key.every((k) => typeof k === 'string' || typeof k === 'number')) {
      return key as Array<string | number>;
    }
  } catch {
    // fall through
  }
  throw badRequest('cursor is invalid');
}

/** Given limit+1 fetched rows, returns the page and the cursor of its last row (null at the end). */
export function pageOf<Row>(rows: Row[], limit: number, keyOf: (row: Row) => ReadonlyArray<string | number>): { page: Row[]; cursor: string | null } {
  if (rows.length <= limit) return { page: rows, cursor: null };
  const page = rows.slice(0, limit);
  return { page, cursor: encodeCursor(keyOf(page[page.length - 1] as Row)) };
}
