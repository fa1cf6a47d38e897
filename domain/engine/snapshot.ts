// The engine state as data: the initial state, a lossless encoding (decimals, maps, sets and
// books made explicit) for snapshots, and a state hash over that encoding for replay checks.

import { createHash } from 'node:crypto';
import type { OrderBook, RestingOrder } from '../book/book.ts';
import { FastOrderBook } from '../book/fast.ts';
import { Big, ZERO } from '../money/decimal.ts';
import type { EngineState } from './state.ts';

export function initialState(): EngineState {
  return {
    seq: 0,
    accounts: new Map(),
    events: new Map(),
    markets: new Map(),
    orders: new Map(),
    finishedOrders: new Map(),
    fills: new Map(),
    settledFills: new Map(),
    ledger: { outside: ZERO, feeRevenue: ZERO, pools: new Map() },
    timedOrderIds: new Set(),
  };
}

type Encoded = null | boolean | number | string | Encoded[] | { [key: string]: Encoded };

function isBook(value: object): value is OrderBook {
  return value instanceof FastOrderBook;
}

function encode(value: unknown): Encoded {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (value instanceof Big) return { $d: value.toFixed() };
  if (value instanceof Map) return { $m: [...value.entries()].map(([k, v]) => [encode(k), encode(v)]) };
  if (value instanceof Set) return { $s: [...value].map(encode) };
  if (Array.isArray(value)) return value.map(encode);
  if (typeof value === 'object') {
    if (isBook(value)) {
      const orders = [...value.levels('buy'), ...value.levels('sell')].flatMap((level) => level.orders)
        .map((o) => [o.id, o.ownerId, o.side, o.priceCents, o.remainingNanos] as Encoded);
      return { $book: value.maxPriceCents, orders };
    }
    const out: { [key: string]: Encoded } = {};
    for (const [key, item] of Object.entries(value)) out[key] = encode(item);
    return out;
  }
  throw new Error(`cannot encode ${typeof value}`);
}

function decode(value: Encoded): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(decode);
  if ('$d' in value) return new Big(value.$d as string);
  if ('$m' in value) return new Map((value.$m as Encoded[][]).map(([k, v]) => [decode(k!), decode(v!)]));
  if ('$s' in value) return new Set((value.$s as Encoded[]).map(decode));
  if ('$book' in value) {
    const book = new FastOrderBook(value.$book as number);
    for (const row of value.orders as Encoded[][]) {
      const [id, ownerId, side, priceCents, remainingNanos] = row as [string, string, 'buy' | 'sell', number, number];
      const order: RestingOrder = { id, ownerId, side, priceCents, remainingNanos };
      book.add(order);
    }
    return book;
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = decode(item);
  return out;
}

export const SNAPSHOT_VERSION = 1;

/** The state as JSON text (deterministic for a given state). */
export function encodeState(state: EngineState): string {
  return JSON.stringify({ v: SNAPSHOT_VERSION, state: encode(state) });
}

export function decodeState(text: string): EngineState {
  const parsed = JSON.parse(text) as { v: number; state: Encoded };
  if (parsed.v !== SNAPSHOT_VERSION) throw new Error(`unknown snapshot version ${parsed.v}`);
  return decode(parsed.state) as EngineState;
}

/** sha256 of the encoded state: equal hashes mean replay reproduced the same state. */
export function stateHash(state: EngineState): string {
  return createHash('sha256').update(encodeState(state)).digest('hex');
}
