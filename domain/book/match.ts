// The plain matcher: an incoming order takes liquidity at the resting orders' prices, best price
// first, oldest first within a price; a limit remainder rests, a market remainder never does.
// The engine runs its own loop on the same primitives to add self-trade prevention and funds.

import { crosses, opposite, type OrderBook, type RestingOrder, type Side } from './book.ts';

export interface IncomingOrder {
  id: string;
  ownerId: string;
  side: Side;
  /** Limit in cents; null for a market order. */
  limitCents: number | null;
  quantityNanos: number;
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
  /** The remainder rested (limit orders only). */
  rested: boolean;
}

export function matchIncoming(book: OrderBook, incoming: IncomingOrder): MatchResult {
  const trades: MatchTrade[] = [];
  let remaining = incoming.quantityNanos;
  const restingSide = opposite(incoming.side);
  while (remaining > 0) {
    const maker = book.best(restingSide);
    if (!maker) break;
    if (incoming.limitCents !== null && !crosses(incoming.side, incoming.limitCents, maker.priceCents)) break;
    const nanos = remaining < maker.remainingNanos ? remaining : maker.remainingNanos;
    trades.push({ makerOrderId: maker.id, makerOwnerId: maker.ownerId, priceCents: maker.priceCents, nanos });
    book.fill(maker.id, nanos);
    remaining -= nanos;
  }
  let rested = false;
  if (remaining > 0 && incoming.limitCents !== null) {
    const order: RestingOrder = { id: incoming.id, ownerId: incoming.ownerId, side: incoming.side, priceCents: incoming.limitCents, remainingNanos: remaining };
    book.add(order);
    rested = true;
  }
  return { trades, filledNanos: incoming.quantityNanos - remaining, rested };
}

/** Throws when a book breaks an invariant: crossed at rest, unordered levels, empty or mis-summed levels. */
export function assertBookInvariants(book: OrderBook): void {
  const bids = book.levels('buy');
  const offers = book.levels('sell');
  let count = 0;
  for (const [side, levels] of [['buy', bids], ['sell', offers]] as const) {
    for (let i = 0; i < levels.length; i++) {
      const level = levels[i]!;
      if (level.orders.length === 0) throw new Error(`empty ${side} level ${level.priceCents}`);
      const sum = level.orders.reduce((total, o) => total + o.remainingNanos, 0);
      if (sum !== level.totalNanos) throw new Error(`${side} level ${level.priceCents} sums to ${sum}, says ${level.totalNanos}`);
      for (const order of level.orders) {
        if (order.remainingNanos <= 0) throw new Error(`order ${order.id} rests with nothing left`);
        if (order.side !== side || order.priceCents !== level.priceCents) throw new Error(`order ${order.id} in the wrong level`);
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
  if (bestBid !== book.bestPrice('buy') || bestOffer !== book.bestPrice('sell')) throw new Error('best prices disagree with the levels');
  if (bestBid >= 0 && bestOffer >= 0 && bestBid >= bestOffer) throw new Error(`book crossed at rest: ${bestBid} >= ${bestOffer}`);
  if (count !== book.size()) throw new Error(`book size ${book.size()} but ${count} orders in levels`);
}
