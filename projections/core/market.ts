// The Market object (the OpenAPI document's Market schema): the engine's MarketStateView joined with its sport event, the book's
// aggregated price levels, the trade tape and open interest. Decisions the schema leaves open:
//
// - `status` renders `suspended` when `trading` is false on an `open`/`pre_open` market
//   (filters still match the stored status).
// - `price`: the last traded price; before any trade, the mid of best bid and best offer when
//   both exist; else null. `probability` = price / max_price (null without a price).
// - `bids`: up to BOOK_DEPTH_MAX best levels, price descending (best first); `offers`: up to
//   BOOK_DEPTH_MAX best levels, price descending (best last). Level: `{price, quantity}`, the
//   summed remaining contracts (quantity − filled) of resting `open`/`accepted` limit orders.
// - `recent_trades`: the last RECENT_TRADES_MAX trades, newest first, `{trade_id, price,
//   quantity, time}` (`time` date-time of execution).
// - `volume24h`: contracts traded in the 24 hours before `now`; `price_change24h`: integer
//   percent from the last trade at or before now − 24h (or, when none, the first trade inside
//   the window) to the last traded price, rounded half away from zero; 0 without trades.
// - `open_interest`: contracts held long across accounts (equal to those held short).
// - `home_category`: `Live` when the event is in progress and the market open; `Upcoming`
//   when the event has not started and the market is scheduled, pre_open or open; else null.
// - `timestamp`: the query's `now`; `timestamp_int`: when the market was listed.
// - `last_probability_at`: time of the last trade (null before the first).
// - The operator's catalogue fields (catalogueFields below) render as set: `filters`,
//   `trading_filters`, `keywords` (lists of strings), `specifier`, `position`, `stat_detail`,
//   `featured_home`, `manual_probability`; `archived` once archived. Unset (null), `group_title`
//   is `grouping_name`, `description` is `rules`, `participants` the event's, and `powered_by`
//   `operator` once resulted or voided (results are entered by the operator), else null.

import { midpoint, percentChange, probabilityOf } from '../../domain/money/ratios.ts';
import { usToIso } from '../../domain/clock.ts';
import type { MarketStateView, MarketStatus, SportEventView } from '../../domain/views.ts';
import { marketCatalogueRecordOf } from '../facts/records.ts';

export const BOOK_DEPTH_MAX = 10;
const RECENT_TRADES_MAX = 15;
const DAY_US = 86_400_000_000;

export interface PriceLevel {
  price: string;
  quantity: string;
}
export interface RecentTrade {
  trade_id: string;
  price: string;
  quantity: string;
  time: string;
}

export interface MarketWire {
  market_id: string;
  event_id: string;
  status: MarketStatus | 'suspended';
  trading: boolean;
  archived: boolean;
  featured: boolean;
  featured_home: boolean;
  manual_probability: boolean;
  price: string | null;
  last_traded_price: string | null;
  max_price: string;
  probability: number | null;
  price_change24h: number;
  open_interest: string;
  total_volume: string;
  volume24h: string;
  bids: PriceLevel[];
  offers: PriceLevel[];
  recent_trades: RecentTrade[];
  participants: string[];
  filters: string[];
  trading_filters: string[];
  keywords: string[];
  title: string;
  short_title: string | null;
  group_title: string | null;
  description: string | null;
  question: string | null;
  rules: string | null;
  specifier: string | null;
  symbol: string | null;
  position: string | null;
  result: string | null;
  powered_by: string | null;
  competition: string | null;
  sport: string | null;
  event_title: string | null;
  event_short_title: string | null;
  event_type: string | null;
  event_status: string | null;
  event_start: string | null;
  home_category: 'Upcoming' | 'Live' | null;
  grouping_id: string;
  grouping_name: string | null;
  in_play_delay_sec: number;
  points_cost: number;
  last_probability_at: number | null;
  settled_at: number | null;
  timestamp: string;
  timestamp_int: number;
  stat_detail: unknown;
}

/** Default ordering tiers: tradeable first, settled last. */
export function marketTier(status: MarketStatus, trading: boolean): number {
  switch (status) {
    case 'open':
      return trading ? 0 : 2;
    case 'pre_open':
      return trading ? 1 : 2;
    case 'scheduled':
      return 3;
    case 'closed':
    case 'cancelled':
      return 4;
    case 'resulted':
    case 'voided':
      return 5;
    default: {
      const unknown: never = status;
      throw new Error(`unknown market status ${String(unknown)}`);
    }
  }
}

/** `trading` as rendered: accepting orders right now (not halted, and open or pre_open). */
export function acceptsOrders(status: MarketStatus, trading: boolean): boolean {
  return trading && (status === 'open' || status === 'pre_open');
}

export function renderedStatus(status: MarketStatus, trading: boolean): MarketStatus | 'suspended' {
  return !trading && (status === 'open' || status === 'pre_open') ? 'suspended' : status;
}

function homeCategory(status: MarketStatus, event: SportEventView | null): 'Upcoming' | 'Live' | null {
  if (!event) return null;
  if (event.status === 'in_progress') return status === 'open' ? 'Live' : null;
  return status === 'scheduled' || status === 'pre_open' || status === 'open' ? 'Upcoming' : null;
}

/** One row of MARKET_SELECT (below). */
export interface MarketRow {
  market: MarketStateView;
  event: SportEventView | null;
  total_volume: string | null;
  volume24h: string;
  bids: Array<{ price: string; quantity: string }>;
  offers: Array<{ price: string; quantity: string }>;
  recent: Array<{ trade_id: string; price: string; quantity: string; executed_at: number | string }>;
  price_before: string | null;
  first_price_in_window: string | null;
  open_interest: string;
  tier: number;
  key_start: string;
}

/**
 * Select list over `core_markets m` rendering everything a Market needs in one round trip.
 * `$1` must be the query's now (UNIX µs).
 */
export const MARKET_SELECT = `
  m.doc AS market, e.doc AS event, m.tier, m.event_start::text AS key_start,
  trim_scale(t.total_volume)::text AS total_volume,
  (SELECT trim_scale(coalesce(sum(x.quantity), 0))::text FROM core_market_trades x
     WHERE x.market_id = m.market_id AND x.executed_at > $1::bigint - ${DAY_US} AND x.executed_at <= $1::bigint) AS volume24h,
  (SELECT coalesce(json_agg(json_build_object('price', l.price::text, 'quantity', trim_scale(l.quantity)::text) ORDER BY l.price DESC), '[]'::json)
     FROM (SELECT price, quantity FROM core_book_levels WHERE market_id = m.market_id AND side = 'buy' ORDER BY price DESC LIMIT ${BOOK_DEPTH_MAX}) l) AS bids,
  (SELECT coalesce(json_agg(json_build_object('price', l.price::text, 'quantity', trim_scale(l.quantity)::text) ORDER BY l.price DESC), '[]'::json)
     FROM (SELECT price, quantity FROM core_book_levels WHERE market_id = m.market_id AND side = 'sell' ORDER BY price ASC LIMIT ${BOOK_DEPTH_MAX}) l) AS offers,
  (SELECT coalesce(json_agg(json_build_object('trade_id', r.trade_id, 'price', r.price::text, 'quantity', trim_scale(r.quantity)::text, 'executed_at', r.executed_at) ORDER BY r.ins_pos DESC, r.ins_idx DESC), '[]'::json)
     FROM (SELECT * FROM core_market_trades WHERE market_id = m.market_id ORDER BY ins_pos DESC, ins_idx DESC LIMIT ${RECENT_TRADES_MAX}) r) AS recent,
  (SELECT x.price::text FROM core_market_trades x WHERE x.market_id = m.market_id AND x.executed_at <= $1::bigint - ${DAY_US}
     ORDER BY x.executed_at DESC, x.ins_pos DESC, x.ins_idx DESC LIMIT 1) AS price_before,
  (SELECT x.price::text FROM core_market_trades x WHERE x.market_id = m.market_id AND x.executed_at > $1::bigint - ${DAY_US} AND x.executed_at <= $1::bigint
     ORDER BY x.executed_at ASC, x.ins_pos ASC, x.ins_idx ASC LIMIT 1) AS first_price_in_window,
  (SELECT trim_scale(coalesce(sum(p.position), 0))::text FROM core_positions p WHERE p.market_id = m.market_id AND p.position > 0) AS open_interest
`;

/** Joins that MARKET_SELECT reads, after `core_markets m`. */
export const MARKET_JOINS = `
  LEFT JOIN core_sport_events e ON e.event_id = m.event_id
  LEFT JOIN core_market_totals t ON t.market_id = m.market_id
`;

const priceChangePercent = percentChange;

type CatalogueFields = Pick<
  MarketWire,
  | 'archived'
  | 'featured_home'
  | 'manual_probability'
  | 'participants'
  | 'filters'
  | 'trading_filters'
  | 'keywords'
  | 'group_title'
  | 'description'
  | 'specifier'
  | 'position'
  | 'powered_by'
  | 'stat_detail'
>;

/** The Market object's catalogue fields, as the operator set them (a view stored before they existed: unset). */
export function catalogueFields(market: MarketStateView, event: SportEventView | null): CatalogueFields {
  const c = marketCatalogueRecordOf(market);
  const settledOut = market.status === 'resulted' || market.status === 'voided';
  return {
    archived: c.archivedAt !== null,
    featured_home: c.featuredHome,
    manual_probability: c.manualProbability,
    participants: c.participants ?? event?.participants ?? [],
    filters: c.filters,
    trading_filters: c.tradingFilters,
    keywords: c.keywords,
    group_title: c.groupTitle ?? market.grouping_name,
    description: c.description ?? market.rules,
    specifier: c.specifier,
    position: c.positionLabel,
    powered_by: c.poweredBy ?? (settledOut ? 'operator' : null),
    stat_detail: c.statDetail,
  };
}

function marketPrice(lastTraded: string | null, bids: PriceLevel[], offers: PriceLevel[]): string | null {
  if (lastTraded !== null) return lastTraded;
  const bestBid = bids[0];
  const bestOffer = offers[offers.length - 1];
  if (!bestBid || !bestOffer) return null;
  return midpoint(bestBid.price, bestOffer.price);
}

export function renderMarket(row: Omit<MarketRow, 'tier' | 'key_start'>, nowUs: number): MarketWire {
  const m = row.market;
  const e = row.event;
  const recentTrades: RecentTrade[] = row.recent.map((t) => ({
    trade_id: t.trade_id,
    price: t.price,
    quantity: t.quantity,
    time: usToIso(Number(t.executed_at)),
  }));
  const lastTradeAt = row.recent[0] ? Number(row.recent[0].executed_at) : null;
  const lastTraded = m.last_traded_price ?? row.recent[0]?.price ?? null;
  const price = marketPrice(lastTraded, row.bids, row.offers);
  const probability = probabilityOf(price, m.max_price);
  const catalogue = catalogueFields(m, e);
  return {
    market_id: m.market_id,
    event_id: m.event_id,
    status: renderedStatus(m.status, m.trading),
    trading: acceptsOrders(m.status, m.trading),
    archived: catalogue.archived,
    featured: m.featured,
    featured_home: catalogue.featured_home,
    manual_probability: catalogue.manual_probability,
    price,
    last_traded_price: lastTraded,
    max_price: m.max_price,
    probability,
    price_change24h: priceChangePercent(lastTraded, row.price_before ?? row.first_price_in_window),
    open_interest: row.open_interest,
    total_volume: row.total_volume ?? '0',
    volume24h: row.volume24h,
    bids: row.bids,
    offers: row.offers,
    recent_trades: recentTrades,
    participants: catalogue.participants,
    filters: catalogue.filters,
    trading_filters: catalogue.trading_filters,
    keywords: catalogue.keywords,
    title: m.title,
    short_title: m.short_title,
    group_title: catalogue.group_title,
    description: catalogue.description,
    question: m.question,
    rules: m.rules,
    specifier: catalogue.specifier,
    symbol: m.symbol,
    position: catalogue.position,
    result: m.result,
    powered_by: catalogue.powered_by,
    competition: e?.competition ?? null,
    sport: e?.sport ?? null,
    event_title: e?.title ?? null,
    event_short_title: e?.short_title ?? null,
    event_type: e?.event_type ?? null,
    event_status: e?.status ?? null,
    event_start: e ? usToIso(e.start) : null,
    home_category: homeCategory(m.status, e),
    grouping_id: m.grouping_id,
    grouping_name: m.grouping_name,
    in_play_delay_sec: m.in_play_delay_sec,
    points_cost: m.points_cost,
    last_probability_at: lastTradeAt,
    settled_at: m.settled_at,
    timestamp: usToIso(nowUs),
    timestamp_int: m.created_at,
    stat_detail: catalogue.stat_detail,
  };
}
