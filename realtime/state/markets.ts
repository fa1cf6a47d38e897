// What the public channels say about each market, held in memory: loaded at start, then moved
// by the core projector's `market` announcements (the Market object as REST renders it). Each
// announcement is compared with what was last published, so `ticker`, `market_updates` and
// `events` push only when their own fields changed.

import { decimalOf, decimalText, plus, ZERO } from '../../domain/money/decimal.ts';
import type { MarketWire } from '../../projections/core/market.ts';

/** What moves `ticker`: the market's price, last traded price, probability and 24-hour volume. */
const TICKER_MOVES = ['price', 'last_traded_price', 'probability', 'volume24h'] as const;
/** What moves `market_updates`: status and trading (as on the Market object), and the result once known. */
const UPDATE_MOVES = ['status', 'trading', 'result', 'settled_at'] as const;

/** `ticker` payload: the market, what moves it, and when the figures were rendered (date-time). */
type Ticker = Pick<MarketWire, 'market_id' | (typeof TICKER_MOVES)[number] | 'timestamp'>;

/** `market_updates` payload: the market, its event, and what moves it. */
type MarketUpdate = Pick<MarketWire, 'market_id' | 'event_id' | (typeof UPDATE_MOVES)[number]>;

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

/** The named fields of a Market object, in the order named (the order they are sent in). */
function fieldsOf<K extends keyof MarketWire>(doc: MarketWire, keys: readonly K[]): Pick<MarketWire, K> {
  const out = {} as Pick<MarketWire, K>;
  for (const key of keys) out[key] = doc[key];
  return out;
}

const tickerOf = (doc: MarketWire): Ticker => fieldsOf(doc, ['market_id', ...TICKER_MOVES, 'timestamp']);
const updateOf = (doc: MarketWire): MarketUpdate => fieldsOf(doc, ['market_id', 'event_id', ...UPDATE_MOVES]);

/** Whether two payloads agree on every field that moves them. */
const sameIn =
  <T>(moves: readonly (keyof T)[]) =>
  (a: T, b: T): boolean =>
    moves.every((key) => a[key] === b[key]);
const sameTicker = sameIn<Ticker>(TICKER_MOVES);
const sameUpdate = sameIn<MarketUpdate>(UPDATE_MOVES);

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
