// The order book port: resting orders of one market, price-time priority. Prices are whole cents
// (1 .. max_price-1) and sizes nano-contracts, both exact integers in a double. A reference book
// (obviously correct, slow) and a fast book (price ladder, FIFO lists, O(1) cancel) implement it
// and pass one shared suite. Books never match by themselves: `best`, `fill` and `cancel` are the
// primitives the matcher (match.ts), the one matching loop, is built on.

export type Side = 'buy' | 'sell';

export interface RestingOrder {
  readonly id: string;
  readonly ownerId: string;
  readonly side: Side;
  readonly priceCents: number;
  /** Unfilled size in nano-contracts; only the book changes it (through `fill`). */
  remainingNanos: number;
}

export interface PriceLevel {
  priceCents: number;
  totalNanos: number;
  orders: RestingOrder[]; // FIFO, oldest first
}

export interface OrderBook {
  readonly maxPriceCents: number;
  /** Rests an order at the back of its price level. The caller guarantees it does not cross. */
  add(order: RestingOrder): void;
  /** Removes an order; returns it, or undefined when it is not resting here. */
  cancel(orderId: string): RestingOrder | undefined;
  get(orderId: string): RestingOrder | undefined;
  /** The oldest order at the best price of `side` (highest bid, lowest offer). */
  best(side: Side): RestingOrder | undefined;
  /** Best price of `side` in cents, or -1 when that side is empty. */
  bestPrice(side: Side): number;
  /** Takes `nanos` off a resting order (removing it when nothing is left). */
  fill(orderId: string, nanos: number): void;
  /**
   * The worst price an incoming order on `takerSide` reaches when it takes `nanos` from the
   * opposite side (the last price it needs, or the deepest one when the side holds less); -1 when
   * empty. Orders of `skipOwner` do not count (self-trade prevention cancels them on the way).
   */
  priceToFill(takerSide: Side, nanos: number, skipOwner?: string): number;
  /** Number of resting orders. */
  size(): number;
  /** Price levels of one side, best first (for snapshots, checks and depth views). */
  levels(side: Side): PriceLevel[];
}

export const opposite = (side: Side): Side => (side === 'buy' ? 'sell' : 'buy');

/** True when an incoming order on `side` with `limitCents` may trade against `restingPriceCents`. */
export function crosses(side: Side, limitCents: number, restingPriceCents: number): boolean {
  return side === 'buy' ? restingPriceCents <= limitCents : restingPriceCents >= limitCents;
}
