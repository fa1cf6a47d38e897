// What the public channels say about each market, held in memory: loaded at start, then moved
// by the core projector's `market` announcements (the Market object as REST renders it). Each
// announcement is compared with what was last published, so `ticker`, `market_updates` and
// `events` push only when their own fields changed.

import { decimalOf, decimalText, plus, ZERO } from '../../domain/money/decimal.ts';
import type { MarketWire } from '../../projections/core/market.ts';

/** `ticker` payload: the market's price, last traded price, probability and 24-hour volume. */
interface Ticker {
  market_id: string;
  price: string | null;
  last_traded_price: string | null;
  probability: number | null;
  volume24h: string;
  /** When the figures were rendered (date-time). */
  timestamp: string;
}

/** `market_updates` payload: status and trading (as on the Market object), and the result once known. */
interface MarketUpdate {
  market_id: string;
  event_id: string;
  status: string;
  trading: boolean;
  result: string | null;
  settled_at: number | null;
}

/** `events` payload: contracts traded across every market of the event. */
interface EventVolume {
  event_id: string;
  total_volume: string;
  volume24h: string;
}

interface Entry {
  maxPrice: string;
  ticker: Ticker;
  update: MarketUpdate;
  totalVolume: string;
  volume24h: string;
}

interface MarketMoves {
  ticker?: Ticker;
  update?: MarketUpdate;
  event?: EventVolume;
}

function tickerOf(doc: MarketWire): Ticker {
  return {
    market_id: doc.market_id,
    price: doc.price,
    last_traded_price: doc.last_traded_price,
    probability: doc.probability,
    volume24h: doc.volume24h,
    timestamp: doc.timestamp,
  };
}

function updateOf(doc: MarketWire): MarketUpdate {
  return {
    market_id: doc.market_id,
    event_id: doc.event_id,
    status: doc.status,
    trading: doc.trading,
    result: doc.result,
    settled_at: doc.settled_at,
  };
}

const sameTicker = (a: Ticker, b: Ticker) =>
  a.price === b.price &&
  a.last_traded_price === b.last_traded_price &&
  a.probability === b.probability &&
  a.volume24h === b.volume24h;
const sameUpdate = (a: MarketUpdate, b: MarketUpdate) =>
  a.status === b.status && a.trading === b.trading && a.result === b.result && a.settled_at === b.settled_at;

export class MarketDirectory {
  private readonly markets = new Map<string, Entry>();
  private readonly marketsOfEvent = new Map<string, Set<string>>();

  has(marketId: string): boolean {
    return this.markets.has(marketId);
  }

  /** Takes in a Market object (start-up load or announcement); says which public views moved. */
  apply(doc: MarketWire): MarketMoves {
    const before = this.markets.get(doc.market_id);
    const entry: Entry = {
      maxPrice: doc.max_price,
      ticker: tickerOf(doc),
      update: updateOf(doc),
      totalVolume: doc.total_volume,
      volume24h: doc.volume24h,
    };
    this.markets.set(doc.market_id, entry);
    let siblings = this.marketsOfEvent.get(doc.event_id);
    if (!siblings) {
      siblings = new Set();
      this.marketsOfEvent.set(doc.event_id, siblings);
    }
    siblings.add(doc.market_id);
    const moves: MarketMoves = {};
    if (!before || !sameTicker(before.ticker, entry.ticker)) moves.ticker = entry.ticker;
    if (!before || !sameUpdate(before.update, entry.update)) moves.update = entry.update;
    if (!before || before.totalVolume !== entry.totalVolume || before.volume24h !== entry.volume24h)
      moves.event = this.eventVolume(doc.event_id);
    return moves;
  }

  maxPrice(marketId: string): string | undefined {
    return this.markets.get(marketId)?.maxPrice;
  }

  ticker(marketId: string): Ticker | undefined {
    return this.markets.get(marketId)?.ticker;
  }

  update(marketId: string): MarketUpdate | undefined {
    return this.markets.get(marketId)?.update;
  }

  eventIds(): string[] {
    return [...this.marketsOfEvent.keys()];
  }

  hasEvent(eventId: string): boolean {
    return this.marketsOfEvent.has(eventId);
  }

  eventVolume(eventId: string): EventVolume {
    let total = ZERO;
    let day = ZERO;
    for (const marketId of this.marketsOfEvent.get(eventId) ?? []) {
      const entry = this.markets.get(marketId);
      if (!entry) continue;
      total = plus(total, decimalOf(entry.totalVolume));
      day = plus(day, decimalOf(entry.volume24h));
    }
    return { event_id: eventId, total_volume: decimalText(total), volume24h: decimalText(day) };
  }
}
