// Wire shapes of the admin answers built from engine snapshots: times as date-time strings
// (with the UNIX-microsecond value beside it under a `_us` name), markets as the spec's market
// object. Used when a read model has not caught up or does not exist for the object.

import { usToIso } from '../../domain/clock.ts';
import type { AccountView, MarketStateView, SportEventView } from '../../domain/views.ts';
import { renderMarket } from '../../projections/core/market.ts';

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

/** What GET /api/v1/markets would show, from the engine's part of the market (no book stats), with the operator's fields. */
export function presentMarket(
  market: MarketStateView,
  event: SportEventView | null,
  nowUs: number,
): Record<string, unknown> {
  const wire = renderMarket(
    {
      market,
      event,
      total_volume: '0',
      volume24h: '0',
      bids: [],
      offers: [],
      recent: [],
      price_before: null,
      first_price_in_window: null,
      open_interest: '0',
    },
    nowUs,
  );
  const { market_id, event_id, status, trading, ...rest } = wire;
  const eventStatus = event?.status ?? null;
  return {
    market_id,
    event_id,
    status,
    stored_status: market.status,
    trading,
    halted: !market.trading,
    accepting_orders: trading,
    ...rest,
    home_category: eventStatus === 'in_progress' ? 'Live' : eventStatus === 'scheduled' ? 'Upcoming' : null,
  };
}
