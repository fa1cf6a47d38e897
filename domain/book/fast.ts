// The fast order book: one price ladder per side, indexed by cents (prices are whole cents below
// max_price, so the ladder has max_price*100 slots), each level a doubly linked FIFO list, and an
// id map for O(1) cancel. The best price moves by scanning the ladder, which is short (100 levels
// for a one-dollar market) and only when a best level empties.

import type { OrderBook, PriceLevel, RestingOrder, Side } from './book.ts';

class Node {
  prev: Node | null = null;
  next: Node | null = null;
  constructor(
    readonly order: RestingOrder,
    readonly level: Level,
  ) {}
}

class Level {
  head: Node | null = null;
  tail: Node | null = null;
  count = 0;
  totalNanos = 0;
  /** Listed in the book's changed levels (since the last takeChangedLevels). */
  changed = false;
  constructor(
    readonly priceCents: number,
    readonly side: Side,
  ) {}
}

/** A price level whose total moved, with its total now (0: the level is empty). */
export interface ChangedLevel {
  side: Side;
  priceCents: number;
  totalNanos: number;
}

/** What a level holds for takers other than `owner` (a walk of the level's orders). */
function availableSkipping(level: Level, owner: string): number {
  let available = level.totalNanos;
  for (let node = level.head; node; node = node.next)
    if (node.order.ownerId === owner) available -= node.order.remainingNanos;
  return available;
}

export class FastOrderBook implements OrderBook {
  private readonly bidLadder: (Level | undefined)[];
  private readonly offerLadder: (Level | undefined)[];
  private readonly nodes = new Map<string, Node>();
  private bestBidCents = -1;
  private bestOfferCents = -1;
  /** Levels whose total moved since the last takeChangedLevels; each once (bounded by the ladders). */
  private changedLevels: Level[] = [];

  constructor(readonly maxPriceCents: number) {
    this.bidLadder = new Array<Level | undefined>(maxPriceCents).fill(undefined);
    this.offerLadder = new Array<Level | undefined>(maxPriceCents).fill(undefined);
  }

  add(order: RestingOrder): void {
    const price = order.priceCents;
    if (!(price > 0 && price < this.maxPriceCents)) throw new Error(`price ${price} outside the ladder`);
    if (this.nodes.has(order.id)) throw new Error(`order already resting: ${order.id}`);
    const ladder = order.side === 'buy' ? this.bidLadder : this.offerLadder;
    let level = ladder[price];
    if (!level) {
      level = new Level(price, order.side);
      ladder[price] = level;
    }
    const node = new Node(order, level);
    if (level.tail) {
      level.tail.next = node;
      node.prev = level.tail;
    } else {
      level.head = node;
    }
    level.tail = node;
    level.count++;
    level.totalNanos += order.remainingNanos;
    this.markChanged(level);
    this.nodes.set(order.id, node);
    if (order.side === 'buy') {
      if (price > this.bestBidCents) this.bestBidCents = price;
    } else if (this.bestOfferCents < 0 || price < this.bestOfferCents) {
      this.bestOfferCents = price;
    }
  }

  cancel(orderId: string): RestingOrder | undefined {
    const node = this.nodes.get(orderId);
    if (!node) return undefined;
    this.unlink(node);
    return node.order;
  }

  get(orderId: string): RestingOrder | undefined {
    return this.nodes.get(orderId)?.order;
  }

  best(side: Side): RestingOrder | undefined {
    const price = side === 'buy' ? this.bestBidCents : this.bestOfferCents;
    if (price < 0) return undefined;
    return (side === 'buy' ? this.bidLadder : this.offerLadder)[price]?.head?.order;
  }

  bestPrice(side: Side): number {
    return side === 'buy' ? this.bestBidCents : this.bestOfferCents;
  }

  fill(orderId: string, nanos: number): void {
    const node = this.nodes.get(orderId);
    if (!node) throw new Error(`fill of an order not resting: ${orderId}`);
    const order = node.order;
    if (!(nanos > 0 && nanos <= order.remainingNanos))
      throw new Error(`fill of ${nanos} exceeds ${order.remainingNanos}`);
    order.remainingNanos -= nanos;
    node.level.totalNanos -= nanos;
    this.markChanged(node.level);
    if (order.remainingNanos === 0) this.unlink(node);
  }

  priceToFill(takerSide: Side, nanos: number, skipOwner?: string): number {
    // a buy walks the offers upwards from the best, a sell the bids downwards
    const buy = takerSide === 'buy';
    const ladder = buy ? this.offerLadder : this.bidLadder;
    const step = buy ? 1 : -1;
    let needed = nanos;
    let price = -1;
    for (
      let p = buy ? this.bestOfferCents : this.bestBidCents;
      p > 0 && p < this.maxPriceCents && needed > 0;
      p += step
    ) {
      const level = ladder[p];
      if (!level || level.count === 0) continue;
      const available = skipOwner === undefined ? level.totalNanos : availableSkipping(level, skipOwner);
      if (available > 0) {
        price = p;
        needed -= available;
      }
    }
    return price;
  }

  size(): number {
    return this.nodes.size;
  }

  levels(side: Side): PriceLevel[] {
    const ladder = side === 'buy' ? this.bidLadder : this.offerLadder;
    const levels: PriceLevel[] = [];
    const visit = (level: Level | undefined) => {
      if (!level || level.count === 0) return;
      const orders: RestingOrder[] = [];
      for (let node = level.head; node; node = node.next) orders.push(node.order);
      levels.push({ priceCents: level.priceCents, totalNanos: level.totalNanos, orders });
    };
    if (side === 'buy') for (let p = this.maxPriceCents - 1; p > 0; p--) visit(ladder[p]);
    else for (let p = 1; p < this.maxPriceCents; p++) visit(ladder[p]);
    return levels;
  }

  private unlink(node: Node): void {
    const level = node.level;
    if (node.prev) node.prev.next = node.next;
    else level.head = node.next;
    if (node.next) node.next.prev = node.prev;
    else level.tail = node.prev;
    node.prev = node.next = null;
    level.count--;
    level.totalNanos -= node.order.remainingNanos;
    this.markChanged(level);
    this.nodes.delete(node.order.id);
    if (level.count === 0) {
      level.totalNanos = 0;
      if (node.order.side === 'buy') {
        if (level.priceCents === this.bestBidCents) this.bestBidCents = this.scanBids(level.priceCents - 1);
      } else if (level.priceCents === this.bestOfferCents) {
        this.bestOfferCents = this.scanOffers(level.priceCents + 1);
      }
    }
  }

  /**
   * The levels whose totals moved since the last call, with their totals now (the engine
   * publishes them once the steps that moved them are journaled).
   */
  takeChangedLevels(): ChangedLevel[] {
    if (this.changedLevels.length === 0) return [];
    const out = this.changedLevels.map((level) => {
      level.changed = false;
      return { side: level.side, priceCents: level.priceCents, totalNanos: level.count === 0 ? 0 : level.totalNanos };
    });
    this.changedLevels = [];
    return out;
  }

  private markChanged(level: Level): void {
    if (level.changed) return;
    level.changed = true;
    this.changedLevels.push(level);
  }

  private scanBids(from: number): number {
    for (let p = from; p > 0; p--) if ((this.bidLadder[p]?.count ?? 0) > 0) return p;
    return -1;
  }

  private scanOffers(from: number): number {
    for (let p = from; p < this.maxPriceCents; p++) if ((this.offerLadder[p]?.count ?? 0) > 0) return p;
    return -1;
  }
}
