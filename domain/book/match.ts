// The matcher, the one matching loop of the exchange: an incoming order takes liquidity at the
// resting orders' prices, best price first, oldest first within a price (price-time priority).
// Self-trade prevention cancels the resting order: an incoming order never trades with a resting
// order of its own owner; that resting order leaves the book and matching goes on behind it.
// A limit remainder rests; a remainder that may not rest (a market order, even one limited at
// the worst price it may reach) never does.
//
// The engine matches through a policy: before each trade it may cancel the resting order (it
// cannot pay its fee) or stop (the incoming order cannot pay); after each trade it books the
// fills; it cancels the orders self-trade prevention took off the book. The matcher alone owns
// the book's changes while matching.

import { crosses, opposite, type OrderBook, type RestingOrder, type Side } from './book.ts';

export interface IncomingOrder {
  id: string;
  ownerId: string;
  side: Side;
  /** Worst price it may trade at, in cents; null for an unlimited market order. */
  limitCents: number | null;
  quantityNanos: number;
  /** Whether an unfilled remainder rests at `limitCents` (default: when it has a limit). */
  rests?: boolean;
}

export interface MatchTrade {
  makerOrderId: string;
  makerOwnerId: string;
  priceCents: number;
  nanos: number;
}

export interface MatchResult {
  trades: MatchTrade[];
  filledNanos: number;
  /** The remainder rested. */
  rested: boolean;
  /** Matching stopped on the policy's word (the remainder neither traded nor rested). */
  stopped: boolean;
  /** Resting orders taken off the book without trading (self-trade prevention, the policy's cancels), in order. */
  cancelled: string[];
}

/** Before a trade of `nanos` with `resting`: trade, take the resting order off the book and go on, or stop matching. */
export type TradeVerdict = 'trade' | 'cancel_resting' | 'stop';

export interface MatchPolicy {
  beforeTrade?(resting: RestingOrder, nanos: number): TradeVerdict;
  /** A trade has been made (the book already shows it). */
  onTrade?(resting: RestingOrder, nanos: number, priceCents: number): void;
  /** `resting` was taken off the book without trading: `selfTrade` when it was the incoming owner's own. */
  onCancelled?(resting: RestingOrder, selfTrade: boolean): void;
}

export function matchIncoming(book: OrderBook, incoming: IncomingOrder, policy?: MatchPolicy): MatchResult {
  const trades: MatchTrade[] = [];
  const cancelled: string[] = [];
  let remaining = incoming.quantityNanos;
  let stopped = false;
  const restingSide = opposite(incoming.side);
  while (remaining > 0) {
    const maker = book.best(restingSide);
    if (!maker) break;
    if (incoming.limitCents !== null && !crosses(incoming.side, incoming.limitCents, maker.priceCents)) break;
    if (maker.ownerId === incoming.ownerId) {
      book.cancel(maker.id);
      cancelled.push(maker.id);
      policy?.onCancelled?.(maker, true);
      continue;
    }
    const nanos = remaining < maker.remainingNanos ? remaining : maker.remainingNanos;
    const verdict = policy?.beforeTrade ? policy.beforeTrade(maker, nanos) : 'trade';
    if (verdict === 'cancel_resting') {
      book.cancel(maker.id);
      cancelled.push(maker.id);
      policy?.onCancelled?.(maker, false);
      continue;
    }
    if (verdict === 'stop') {
      stopped = true;
      break;
    }
    const priceCents = maker.priceCents;
    trades.push({ makerOrderId: maker.id, makerOwnerId: maker.ownerId, priceCents, nanos });
    book.fill(maker.id, nanos);
    remaining -= nanos;
    policy?.onTrade?.(maker, nanos, priceCents);
  }
  let rested = false;
  if (remaining > 0 && !stopped && incoming.limitCents !== null && (incoming.rests ?? true)) {
    const order: RestingOrder = {
      id: incoming.id,
      ownerId: incoming.ownerId,
      side: incoming.side,
      priceCents: incoming.limitCents,
      remainingNanos: remaining,
    };
    book.add(order);
    rested = true;
  }
  return { trades, filledNanos: incoming.quantityNanos - remaining, rested, stopped, cancelled };
}

/**
 * The worst price a market order of `nanos` on `takerSide` may reach now: the last price it needs
 * from the other side's orders (or the deepest one when they hold less), the owner's own orders
 * not counted (self-trade prevention cancels them on the way); -1 when nothing faces it.
 */
export function marketOrderLimit(book: OrderBook, takerSide: Side, nanos: number, ownerId: string): number {
  return book.priceToFill(takerSide, nanos, ownerId);
}

/** Throws when a book breaks an invariant: crossed at rest, unordered levels, empty or mis-summed levels. */
export function assertBookInvariants(book: OrderBook): void {
  const bids = book.levels('buy');
  const offers = book.levels('sell');
  let count = 0;
  for (const [side, levels] of [
    ['buy', bids],
    ['sell', offers],
  ] as const) {
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i]!;
      if (level.orders.length === 0) throw new Error(`empty ${side} level ${level.priceCents}`);
      const sum = level.orders.reduce((total, o) => total + o.remainingNanos, 0);
      if (sum !== level.totalNanos)
        throw new Error(`${side} level ${level.priceCents} sums to ${sum}, says ${level.totalNanos}`);
      for (const order of level.orders) {
        if (order.remainingNanos <= 0) throw new Error(`order ${order.id} rests with nothing left`);
        if (order.side !== side || order.priceCents !== level.priceCents)
          throw new Error(`order ${order.id} in the wrong level`);
      }
      const next = levels[i + 1];
      if (next && (side === 'buy' ? next.priceCents >= level.priceCents : next.priceCents <= level.priceCents)) {
        throw new Error(`${side} levels out of order`);
      }
      count += level.orders.length;
    }
  }
  const bestBid = bids[0]?.priceCents ?? -1;
  const bestOffer = offers[0]?.priceCents ?? -1;
  if (bestBid !== book.bestPrice('buy') || bestOffer !== book.bestPrice('sell'))
    throw new Error('best prices disagree with the levels');
  if (bestBid >= 0 && bestOffer >= 0 && bestBid >= bestOffer)
    throw new Error(`book crossed at rest: ${bestBid} >= ${bestOffer}`);
  if (count !== book.size()) throw new Error(`book size ${book.size()} but ${count} orders in levels`);
}
