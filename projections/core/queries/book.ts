// What the realtime feed loads at start and keeps current from the core projector's
// announcements (kinds `book`, `market`): every market's aggregated book levels at full depth,
// and the ids of every market.

import type { Queryable } from './db.ts';

export interface BookLevels {
  market_id: string;
  /** `[price, quantity]`, price descending. */
  bids: Array<[string, string]>;
  /** `[price, quantity]`, price descending (best last), as on the Market object. */
  offers: Array<[string, string]>;
}

/** Full-depth levels of every market that has any (markets without resting orders are absent). */
export async function listBookLevels(db: Queryable): Promise<BookLevels[]> {
  const result = await db.query<{ market_id: string; side: 'buy' | 'sell'; price: string; quantity: string }>(
    `SELECT market_id, side, price::text AS price, trim_scale(quantity)::text AS quantity
     FROM core_book_levels WHERE quantity > 0 AND orders > 0 ORDER BY market_id, price DESC`,
  );
  const byMarket = new Map<string, BookLevels>();
  for (const row of result.rows) {
    let book = byMarket.get(row.market_id);
    if (!book) {
      book = { market_id: row.market_id, bids: [], offers: [] };
      byMarket.set(row.market_id, book);
    }
    (row.side === 'buy' ? book.bids : book.offers).push([row.price, row.quantity]);
  }
  return [...byMarket.values()];
}

export async function listMarketIds(db: Queryable): Promise<string[]> {
  const result = await db.query<{ market_id: string }>('SELECT market_id FROM core_markets ORDER BY market_id');
  return result.rows.map((row) => row.market_id);
}
