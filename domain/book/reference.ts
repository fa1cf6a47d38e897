// The reference order book: two arrays kept sorted by priority, every operation linear.
// It exists to be obviously right; the shared suite holds the fast book to its behaviour.

import type { OrderBook, PriceLevel, RestingOrder, Side } from './book.ts';

export class ReferenceOrderBook implements OrderBook {
  private readonly bids: RestingOrder[] = []; // highest price first, then oldest
  private readonly offers: RestingOrder[] = []; // lowest price first, then oldest

  constructor(readonly maxPriceCents: number) {}

  add(order: RestingOrder): void {
    const list = order.side === 'buy' ? this.bids : this.offers;
    const better = (a: number, b: number) => (order.side === 'buy' ? a > b : a < b);
    let index = list.length;
    for (let i = 0; i < list.length; i++) {
      if (better(order.priceCents, list[i]!.priceCents)) {
        index = i;
        break;
      }
    }
    list.splice(index, 0, order);
  }

  cancel(orderId: string): RestingOrder | undefined {
    for (const list of [this.bids, this.offers]) {
      const index = list.findIndex((o) => o.id === orderId);
      if (index >= 0) return list.splice(index, 1)[0];
    }
    return undefined;
  }

  get(orderId: string): RestingOrder | undefined {
    return this.bids.find((o) => o.id === orderId) ?? this.offers.find((o) => o.id === orderId);
  }

  best(side: Side): RestingOrder | undefined {
    return (side === 'buy' ? this.bids : this.offers)[0];
  }

  bestPrice(side: Side): number {
    return this.best(side)?.priceCents ?? -1;
  }

  fill(orderId: string, nanos: number): void {
    const order = this.get(orderId);
    if (!order) throw new Error(`fill of an order not resting: ${orderId}`);
    if (!(nanos > 0 && nanos <= order.remainingNanos))
      throw new Error(`fill of ${nanos} exceeds ${order.remainingNanos}`);
    order.remainingNanos -= nanos;
    if (order.remainingNanos === 0) this.cancel(orderId);
  }

  priceToFill(takerSide: Side, nanos: number, skipOwner?: string): number {
    let price = -1;
    let needed = nanos;
    for (const order of takerSide === 'buy' ? this.offers : this.bids) {
      if (order.ownerId === skipOwner) continue;
      price = order.priceCents;
      needed -= order.remainingNanos;
      if (needed <= 0) break;
    }
    return price;
  }

  size(): number {
    return this.bids.length + this.offers.length;
  }

  levels(side: Side): PriceLevel[] {
    const levels: PriceLevel[] = [];
    for (const order of side === 'buy' ? this.bids : this.offers) {
      const last = levels[levels.length - 1];
      if (last && last.priceCents === order.priceCents) {
        last.orders.push(order);
        last.totalNanos += order.remainingNanos;
      } else {
        levels.push({ priceCents: order.priceCents, totalNanos: order.remainingNanos, orders: [order] });
      }
    }
    return levels;
  }
}
