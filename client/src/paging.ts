// Async iteration over the cursor-paged lists: `for await (const fill of client.fills())`
// reads page after page until the service's cursor is null.

/** The most pages one iteration reads (200 rows each at most): a bound, not an expected size. */
export const PAGES_MAX = 1_000_000;

export interface Page<Row> {
  cursor: string | null;
  rows: Row[];
}

export async function* paged<Row>(
  load: (cursor: string | undefined) => Promise<Page<Row>>,
): AsyncGenerator<Row, void, undefined> {
  let cursor: string | undefined;
  for (let page = 0; page < PAGES_MAX; page += 1) {
    const { cursor: next, rows } = await load(cursor);
    yield* rows;
    if (next === null || next === '' || rows.length === 0) return;
    cursor = next;
  }
  throw new Error(`paging stopped after PAGES_MAX (${PAGES_MAX}) pages`);
}

/** Collects an async iterable into an array (at most `max` rows). */
export async function collect<Row>(rows: AsyncIterable<Row>, max = Number.POSITIVE_INFINITY): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of rows) {
    out.push(row);
    if (out.length >= max) break;
  }
  return out;
}
