// A local order book kept from the `orderbook` channel, by docs/REALTIME.md's rule: the join reply
// is a snapshot at `seq`; a delta is applied only when its seq is exactly one more than the book
// holds; a gap makes the book join again and replace itself with the new snapshot. A reconnect
// (the service restarted, or the network dropped) rejoins as well, and seq may start again from 0.
// Every change is an event on the book's async stream.

import type { EventStream } from './stream.js';

/** `[price, quantity]`, both decimal strings. */
export type Level = [price: string, quantity: string];

export interface BookSnapshotEvent {
  type: 'snapshot';
  /** Why the book was (re)read: the first join, a seq gap, or a reconnect. */
  reason: 'join' | 'gap' | 'reconnect';
  marketId: string;
  seq: number;
  bids: Level[];
  offers: Level[];
}

export interface BookDeltaEvent {
  type: 'delta';
  marketId: string;
  seq: number;
  /** Only the levels that changed, with their new totals ("0" removed the level). */
  bids: Level[];
  offers: Level[];
  timeUs: number;
}

export type BookEvent = BookSnapshotEvent | BookDeltaEvent;

/** Orders decimal strings without turning them into floating point numbers. */
export function compareDecimals(a: string, b: string): number {
  const negA = a.startsWith('-');
  const negB = b.startsWith('-');
  if (negA !== negB) return negA ? -1 : 1;
  const sign = negA ? -1 : 1;
  const [intA = '', fracA = ''] = a.replace(/^-/, '').split('.');
  const [intB = '', fracB = ''] = b.replace(/^-/, '').split('.');
  const wholeA = intA.replace(/^0+(?=\d)/, '');
  const wholeB = intB.replace(/^0+(?=\d)/, '');
  if (wholeA.length !== wholeB.length) return sign * (wholeA.length - wholeB.length);
  if (wholeA !== wholeB) return sign * (wholeA < wholeB ? -1 : 1);
  const width = Math.max(fracA.length, fracB.length);
  const fa = fracA.padEnd(width, '0');
  const fb = fracB.padEnd(width, '0');
  return fa === fb ? 0 : sign * (fa < fb ? -1 : 1);
}

const isZero = (quantity: string) => /^0*(\.0*)?$/.test(quantity);

/** Levels price descending (as the service sends both sides: best bid first, best offer last). */
const descending = (side: Map<string, string>): Level[] =>
  [...side.entries()].sort(([a], [b]) => compareDecimals(b, a));

export class OrderBook implements AsyncIterable<BookEvent> {
  /** The seq the book reflects; undefined until the first snapshot. */
  seq: number | undefined;
  /** How many times the book re-read a snapshot after a gap or a reconnect. */
  resyncs = 0;
  private readonly bidLevels = new Map<string, string>();
  private readonly offerLevels = new Map<string, string>();
  private firstSnapshot: { promise: Promise<void>; resolve: () => void; reject: (error: unknown) => void };

  constructor(
    readonly marketId: string,
    private readonly stream: EventStream<BookEvent>,
    private readonly rejoin: () => void,
  ) {
    let resolve!: () => void;
    let reject!: (error: unknown) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    promise.catch(() => undefined);
    this.firstSnapshot = { promise, resolve, reject };
  }

  /** Bids, best (highest) first. */
  get bids(): Level[] {
    return descending(this.bidLevels);
  }

  /** Offers, price descending (best, lowest, last), as the service sends them. */
  get offers(): Level[] {
    return descending(this.offerLevels);
  }

  get bestBid(): Level | undefined {
    return this.bids[0];
  }

  get bestOffer(): Level | undefined {
    return this.offers.at(-1);
  }

  /** Resolves once the first snapshot is held. */
  ready(): Promise<void> {
    return this.firstSnapshot.promise;
  }

  close(): void {
    this.stream.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<BookEvent> {
    return this.stream[Symbol.asyncIterator]();
  }

  /** @internal a join reply. */
  applySnapshot(snapshot: { seq: number; bids: Level[]; offers: Level[] }, reason: BookSnapshotEvent['reason']): void {
    if (reason !== 'join') this.resyncs += 1;
    this.seq = snapshot.seq;
    this.bidLevels.clear();
    this.offerLevels.clear();
    for (const [price, quantity] of snapshot.bids) this.bidLevels.set(price, quantity);
    for (const [price, quantity] of snapshot.offers) this.offerLevels.set(price, quantity);
    this.firstSnapshot.resolve();
    this.stream.push({
      type: 'snapshot',
      reason,
      marketId: this.marketId,
      seq: snapshot.seq,
      bids: this.bids,
      offers: this.offers,
    });
  }

  /** @internal a delta; false when it revealed a gap (the caller joins again). */
  applyDelta(delta: { seq: number; bids: Level[]; offers: Level[]; time_us: number }): boolean {
    if (this.seq === undefined || delta.seq <= this.seq) return true; // before the snapshot, or already in it
    if (delta.seq !== this.seq + 1) return false;
    this.seq = delta.seq;
    for (const [price, quantity] of delta.bids) {
      if (isZero(quantity)) this.bidLevels.delete(price);
      else this.bidLevels.set(price, quantity);
    }
    for (const [price, quantity] of delta.offers) {
      if (isZero(quantity)) this.offerLevels.delete(price);
      else this.offerLevels.set(price, quantity);
    }
    this.stream.push({
      type: 'delta',
      marketId: this.marketId,
      seq: delta.seq,
      bids: delta.bids,
      offers: delta.offers,
      timeUs: delta.time_us,
    });
    return true;
  }

  /** @internal the join was refused. */
  fail(error: unknown): void {
    this.firstSnapshot.reject(error);
    this.stream.fail(error);
  }

  /** @internal */
  requestResync(): void {
    this.rejoin();
  }
}
