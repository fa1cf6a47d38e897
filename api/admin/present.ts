// Wire shapes of the admin answers built from engine snapshots: times as date-time strings
// (with the UNIX-microsecond value beside it under a `_us` name), markets as the spec's market
// object. Used when a read model has not caught up or does not exist for the object.

import { usToIso } from '../../domain/clock.ts';
import type { AccountView, MarketStateView, SportEventView } from '../../domain/views.ts';
import { probabilityOf } from '../../domain/money/ratios.ts';
import { acceptsOrders, catalogueFields, renderedStatus } from '../../projections/core/market.ts';

export function presentAccount(account: AccountView): Record<string, unknown> {
  return {
    ...account,
    created_at: usToIso(account.created_at),
    created_at_us: account.created_at,
    updated_at: usToIso(account.updated_at),
    updated_at_us: account.updated_at,
  };
}

export function presentEvent(event: SportEventView): Record<string, unknown> {
  return {
    ...event,
    start: usToIso(event.start),
    start_us: event.start,
    started_at: event.started_at === null ? null : usToIso(event.started_at),
    started_at_us: event.started_at,
  };
}

/** What GET /api/v1/markets would show, from the engine's part of the market (no book stats). */
export function presentMarket(
  market: MarketStateView,
  event: SportEventView | null,
  nowUs: number,
): Record<string, unknown> {
  const accepting = acceptsOrders(market.status, market.trading);
  const price = market.last_traded_price;
  const probability = probabilityOf(price, market.max_price);
  const eventStatus = event?.status ?? null;
  const catalogue = catalogueFields(market, event);
  return {
    market_id: market.market_id,
    event_id: market.event_id,
    status: renderedStatus(market.status, market.trading),
    stored_status: market.status,
    trading: accepting,
    halted: !market.trading,
    accepting_orders: accepting,
    archived: catalogue.archived,
    featured: market.featured,
    featured_home: catalogue.featured_home,
    manual_probability: catalogue.manual_probability,
    price,
    last_traded_price: market.last_traded_price,
    max_price: market.max_price,
    probability,
    price_change24h: 0,
    open_interest: '0',
    total_volume: '0',
    volume24h: '0',
    bids: [],
    offers: [],
    recent_trades: [],
    participants: catalogue.participants,
    filters: catalogue.filters,
    trading_filters: catalogue.trading_filters,
    keywords: catalogue.keywords,
    title: market.title,
    short_title: market.short_title,
    group_title: catalogue.group_title,
    description: catalogue.description,
    question: market.question,
    rules: market.rules,
    specifier: catalogue.specifier,
    symbol: market.symbol,
    position: catalogue.position,
    result: market.result,
    powered_by: catalogue.powered_by,
    competition: event?.competition ?? null,
    sport: event?.sport ?? null,
    event_title: event?.title ?? null,
    event_short_title: event?.short_title ?? null,
    event_type: event?.event_type ?? null,
    event_status: eventStatus,
    event_start: event === null ? null : usToIso(event.start),
    home_category: eventStatus === 'in_progress' ? 'Live' : eventStatus === 'scheduled' ? 'Upcoming' : null,
    grouping_id: market.grouping_id,
    grouping_name: market.grouping_name,
    in_play_delay_sec: market.in_play_delay_sec,
    points_cost: market.points_cost,
    last_probability_at: null,
    settled_at: market.settled_at,
    timestamp: usToIso(nowUs),
    timestamp_int: market.created_at,
    stat_detail: catalogue.stat_detail,
  };
}
