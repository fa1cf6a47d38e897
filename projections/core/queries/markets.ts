// GET /markets and single-market reads: the Market object (see ../market.ts for how each
// field is derived). Filters apply to STORED status (`status=open` matches a market rendered
// `suspended`). Default ordering: tier (open & trading, pre_open & trading, open/pre_open
// halted, scheduled, closed/cancelled, resulted/voided), then soonest event, then market_id.
// `sortBy: event_start` replaces it with (event_start, market_id) in the given direction.
// Keyset cursors: no duplicates or skips while markets are inserted; a market whose tier
// changes between two page reads moves within the order, as any mutable sort key does.

import type { MarketStateView, MarketStatus } from '../../../domain/views.ts';
import { MARKET_JOINS, MARKET_SELECT, renderMarket, type MarketRow, type MarketWire } from '../market.ts';
import { cursorParts, limitOf, pageFrom, Where, type PageRequest, type Queryable } from './db.ts';

export interface MarketFilters {
  /** When present (even empty), exactly these markets, unpaginated; every other filter, sort and page param is ignored. */
  marketIds?: readonly string[];
  eventIds?: readonly string[];
  /** Stored statuses. */
  statuses?: readonly MarketStatus[];
  trading?: boolean;
  /** Case-insensitive. */
  sports?: readonly string[];
  /** Case-insensitive. */
  competitions?: readonly string[];
  sortBy?: { name: 'event_start'; direction: 'asc' | 'desc' };
}

interface MarketPage {
  cursor: string | null;
  markets: MarketWire[];
}

interface PagedRow extends MarketRow {
  market_id: string;
}

/** GET /api/v1/markets. `nowUs` is the service clock (it stamps `timestamp` and the 24h window). */
export async function listMarkets(
  db: Queryable,
  filters: MarketFilters,
  page: PageRequest,
  nowUs: number,
): Promise<MarketPage> {
  if (filters.marketIds !== undefined)
    return { cursor: null, markets: await getMarketsByIds(db, filters.marketIds, nowUs) };

  const limit = limitOf(page);
  const w = new Where();
  w.param(nowUs); // $1, used by MARKET_SELECT
  w.and('NOT m.archived');
  w.anyOf('m.event_id', filters.eventIds);
  w.anyOf('m.status', filters.statuses);
  if (filters.trading !== undefined)
    w.and(`(m.trading AND m.status IN ('open', 'pre_open')) = ${w.param(filters.trading)}::boolean`);
  w.anyOf(
    'm.sport_lc',
    filters.sports?.map((s) => s.toLowerCase()),
  );
  w.anyOf(
    'm.competition_lc',
    filters.competitions?.map((s) => s.toLowerCase()),
  );

  let order: string;
  let keyOf: (row: PagedRow) => Array<string | number>;
  if (filters.sortBy) {
    const desc = filters.sortBy.direction === 'desc';
    const after = cursorParts(page.cursor, ['int', 'text']);
    if (after)
      w.and(
        `(m.event_start, m.market_id) ${desc ? '<' : '>'} (${w.param(after[0])}::bigint, ${w.param(after[1])}::text)`,
      );
    order = desc ? 'm.event_start DESC, m.market_id DESC' : 'm.event_start ASC, m.market_id ASC';
    keyOf = (row) => [row.key_start, row.market_id];
  } else {
    const after = cursorParts(page.cursor, ['int2', 'int', 'text']);
    if (after)
      w.and(
        `(m.tier, m.event_start, m.market_id) > (${w.param(after[0])}::smallint, ${w.param(after[1])}::bigint, ${w.param(after[2])}::text)`,
      );
    order = 'm.tier, m.event_start, m.market_id';
    keyOf = (row) => [row.tier, row.key_start, row.market_id];
  }
  const limitParam = w.param(limit + 1);
  const result = await db.query<PagedRow>(
    `
    SELECT m.market_id, ${MARKET_SELECT}
    FROM (SELECT m.market_id FROM core_markets m ${w.sql()} ORDER BY ${order} LIMIT ${limitParam}) chosen
    JOIN core_markets m ON m.market_id = chosen.market_id ${MARKET_JOINS}
    ORDER BY ${order}`,
    w.values,
  );
  const { page: rows, cursor } = pageFrom(result.rows, limit, keyOf);
  return { cursor, markets: rows.map((row) => renderMarket(row, nowUs)) };
}

/** Exactly these markets (unknown ids are left out), in the default order. */
export async function getMarketsByIds(
  db: Queryable,
  marketIds: readonly string[],
  nowUs: number,
): Promise<MarketWire[]> {
  if (marketIds.length === 0) return [];
  const result = await db.query<MarketRow>(
    `
    SELECT ${MARKET_SELECT} FROM core_markets m ${MARKET_JOINS}
    WHERE m.market_id = ANY($2::text[])
    ORDER BY m.tier, m.event_start, m.market_id`,
    [nowUs, [...new Set(marketIds)]],
  );
  return result.rows.map((row) => renderMarket(row, nowUs));
}

export async function getMarket(db: Queryable, marketId: string, nowUs: number): Promise<MarketWire | null> {
  return (await getMarketsByIds(db, [marketId], nowUs))[0] ?? null;
}

/** The engine-side facts about a market, without the aggregates (cheap; for validation). */
export async function getMarketState(db: Queryable, marketId: string): Promise<MarketStateView | null> {
  const result = await db.query<{ doc: MarketStateView }>('SELECT doc FROM core_markets WHERE market_id = $1', [
    marketId,
  ]);
  return result.rows[0]?.doc ?? null;
}
