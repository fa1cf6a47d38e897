// Opaque keyset cursors for list queries: stable while rows are inserted (no duplicates, no
// skips), because a page continues strictly after the last row's sort key, never by offset.
// A cursor this code did not make is an InvalidCursor, which each transport maps (REST: 400).

export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 200;
const CURSOR_LENGTH_MAX = 512;

export class InvalidCursor extends Error {
  readonly code = 'invalid_cursor';
  constructor() {
    super('cursor is invalid');
    this.name = 'InvalidCursor';
  }
}

/** Encodes the sort key of the last row of a page. */
function encodeCursor(key: ReadonlyArray<string | number>): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** Decodes a cursor produced by encodeCursor; anything else throws InvalidCursor. */
export function decodeCursor(raw: unknown, arity: number): Array<string | number> | null {
  if (raw === undefined || raw === '') return null;
  if (typeof raw !== 'string' || raw.length > CURSOR_LENGTH_MAX) throw new InvalidCursor();
  try {
    const key: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(key) &&
      key.length === arity &&
      key.every((k) => typeof k === 'string' || typeof k === 'number')
    ) {
      return key;
    }
  } catch {
    // fall through
  }
  throw new InvalidCursor();
}

/** Given limit+1 fetched rows, returns the page and the cursor of its last row (null at the end). */
export function pageOf<Row>(
  rows: Row[],
  limit: number,
  keyOf: (row: Row) => ReadonlyArray<string | number>,
): { page: Row[]; cursor: string | null } {
  if (rows.length <= limit) return { page: rows, cursor: null };
  const page = rows.slice(0, limit);
  return { page, cursor: encodeCursor(keyOf(page[page.length - 1] as Row)) };
}
