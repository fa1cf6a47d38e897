// Public market data. `orderbook`, `ticker`, `trades` and `market_updates` join with
// `{market_ids: [...]}` on any authenticated socket (an application's own token needs
// `market_data`); `events` needs no authentication and takes an optional `{event_ids: [...]}`.
// Replies and pushes (docs/REALTIME.md):
//   orderbook       reply {orderbooks: [{market_id, seq, bids, offers}]}   push `delta`
//   ticker          reply {tickers: [...]}                                 push `ticker`
//   trades          reply {trades: [... newest first]}                     push `trade`
//   market_updates  reply {markets: [{market_id, status, trading, …}]}     push `market`
//   events          reply {events: [{event_id, total_volume, volume24h}]}  push `volume`

import { isUuid } from '../../domain/uuid.ts';
import type { Queryable } from '../../projections/core/queries/db.ts';
import { listMarketTrades, type MarketTradeWire } from '../../projections/core/queries/trades.ts';
import { feedTopic, type Feed } from '../feed.ts';
import type { SocketIdentity } from '../identity.ts';
import { refuse, type Channel, type JoinContext, type JoinOutcome } from './channel.ts';

/** Markets one join may name. */
const MARKETS_PER_JOIN_MAX = 1_000;
/** Events one `events` join may name. */
const EVENTS_PER_JOIN_MAX = 1_000;
/** Trades per market in the `trades` join reply (as many as a Market's recent_trades). */
const TRADES_PER_MARKET_IN_REPLY = 15;

/** Public market data is for authenticated sockets; an app token needs `market_data`. */
function marketDataRefusal(identity: SocketIdentity): JoinOutcome | null {
  if (identity.kind === 'anonymous') return refuse('unauthorized');
  if (identity.kind === 'app' && !identity.scopes.has('market_data'))
    return refuse('insufficient_scope', { scope: 'market_data' });
  return null;
}

/** The payload's id list: present, a non-empty list of UUID strings within `max`; duplicates dropped. */
function idList(
  payload: Record<string, unknown>,
  field: string,
  max: number,
  required: boolean,
): string[] | JoinOutcome {
  const value = payload[field];
  if (value === undefined || value === null) {
    return required ? refuse('invalid payload', { detail: `${field} is required: a list of market ids` }) : [];
  }
  if (!Array.isArray(value) || value.length === 0)
    return refuse('invalid payload', { detail: `${field} must be a non-empty list of ids` });
  if (value.length > max) return refuse('invalid payload', { detail: `${field} may name at most ${max} ids` });
  const ids: string[] = [];
  for (const id of value) {
    if (typeof id !== 'string' || !isUuid(id))
      return refuse('invalid payload', { detail: `${field} must hold UUID strings` });
    ids.push(id.toLowerCase());
  }
  return [...new Set(ids)];
}

/** Known markets named by the join, or the refusal (unknown ids are named). */
function marketsOf(ctx: JoinContext, feed: Feed): string[] | JoinOutcome {
  const denied = marketDataRefusal(ctx.identity);
  if (denied) return denied;
  const ids = idList(ctx.payload, 'market_ids', MARKETS_PER_JOIN_MAX, true);
  if (!Array.isArray(ids)) return ids;
  const unknown = ids.filter((id) => !feed.markets.has(id));
  if (unknown.length > 0) return refuse('unknown market', { market_ids: unknown });
  return ids;
}

/** A channel joined with market ids: a topic for each market, and the reply `{[key]: each market's snapshot}`. */
function marketsChannel(
  feed: Feed,
  name: string,
  topicOf: (marketId: string) => string,
  key: string,
  snapshotOf: (marketId: string) => unknown,
): Channel {
  return {
    name,
    join(ctx) {
      const ids = marketsOf(ctx, feed);
      if (!Array.isArray(ids)) return ids;
      return { ok: true, topics: ids.map(topicOf), response: () => ({ [key]: ids.map(snapshotOf) }) };
    },
  };
}

// the book's snapshot is taken at the moment of subscribing: the next delta of each market is seq + 1
export const orderbookChannel = (feed: Feed): Channel =>
  marketsChannel(feed, 'orderbook', feedTopic.orderbook, 'orderbooks', (id) => feed.books.snapshot(id));

export const tickerChannel = (feed: Feed): Channel =>
  marketsChannel(feed, 'ticker', feedTopic.ticker, 'tickers', (id) => feed.markets.ticker(id));

export const marketUpdatesChannel = (feed: Feed): Channel =>
  marketsChannel(feed, 'market_updates', feedTopic.marketUpdates, 'markets', (id) => feed.markets.update(id));

export function tradesChannel(feed: Feed, db: Queryable): Channel {
  return {
    name: 'trades',
    async join(ctx) {
      const ids = marketsOf(ctx, feed);
      if (!Array.isArray(ids)) return ids;
      const topics = ids.map(feedTopic.trades);
      ctx.hold(topics);
      const recent: MarketTradeWire[] = [];
      for (const id of ids) {
        if (!ctx.current()) return refuse('abandoned'); // replaced or left: read no further
        recent.push(...(await listMarketTrades(db, id, { limit: TRADES_PER_MARKET_IN_REPLY })).trades);
      }
      return { ok: true, topics, response: () => ({ trades: recent }) };
    },
  };
}

export function eventsChannel(feed: Feed): Channel {
  return {
    name: 'events',
    join(ctx) {
      const ids = idList(ctx.payload, 'event_ids', EVENTS_PER_JOIN_MAX, false);
      if (!Array.isArray(ids)) return ids;
      if (ids.length === 0) {
        return {
          ok: true,
          topics: [feedTopic.allEvents],
          response: () => ({ events: feed.markets.eventIds().map((id) => feed.markets.eventVolume(id)) }),
        };
      }
      const unknown = ids.filter((id) => !feed.markets.hasEvent(id));
      if (unknown.length > 0) return refuse('unknown event', { event_ids: unknown });
      return {
        ok: true,
        topics: ids.map(feedTopic.event),
        response: () => ({ events: ids.map((id) => feed.markets.eventVolume(id)) }),
      };
    },
  };
}
