// The engine state as data: the initial state, a lossless encoding (decimals, maps, sets and
// books made explicit) for snapshots, and a state hash over that encoding for replay checks.

import { createHash } from 'node:crypto';
import type { OrderBook, RestingOrder } from '../book/book.ts';
import { FastOrderBook } from '../book/fast.ts';
import { decimalOf, decimalText, isDecimal, ZERO } from '../money/decimal.ts';
import { emptyMarketCatalogue } from '../readModel/records.ts';
import { DEFAULT_REFERRAL_POINTS } from './referrals.ts';
import type { EngineState, MarketState } from './state.ts';
import { defined, present } from '../assert.ts';
import { recordsHash } from '../evolve/digest.ts';
import type { PositionRecord } from '../readModel/records.ts';

export function initialState(): EngineState {
  return {
    seq: 0,
    accounts: new Map(),
    sportEvents: new Map(),
    markets: new Map(),
    orders: new Map(),
    finishedOrders: new Map(),
    fills: new Map(),
    settledFills: new Map(),
    ledger: { outside: ZERO, feeRevenue: ZERO, pools: new Map() },
    timedOrderIds: new Set(),
    settlementFees: { groupPercents: new Map(), settled: new Map(), scopeCharges: new Map() },
    referrals: { points: DEFAULT_REFERRAL_POINTS, byReferee: new Map() },
  };
}

type Encoded = null | boolean | number | string | Encoded[] | { [key: string]: Encoded };

function isBook(value: object): value is OrderBook {
  return value instanceof FastOrderBook;
}

/** Version 1's encoding (kept to test that version 1 snapshots are still read). */
export function encodeStateV1(state: EngineState): string {
  return JSON.stringify({ v: 1, state: encode(asStored(state)) });
}

function encode(value: unknown): Encoded {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (isDecimal(value)) return { $d: decimalText(value) };
  if (value instanceof Map) return { $m: [...value.entries()].map(([k, v]) => [encode(k), encode(v)]) };
  if (value instanceof Set) return { $s: [...value].map(encode) };
  if (Array.isArray(value)) return value.map(encode);
  if (typeof value === 'object') {
    if (isBook(value)) {
      const orders = [...value.levels('buy'), ...value.levels('sell')]
        .flatMap((level) => level.orders)
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
  if ('$d' in value) return decimalOf(value.$d as string);
  if ('$m' in value) return new Map((value.$m as [Encoded, Encoded][]).map(([k, v]) => [decode(k), decode(v)]));
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

// Version 2 (written now): every plain object is a tuple `[shape, value, ...]` whose keys are
// listed once in `shapes` (an OrderState's thirty-odd keys are written once per snapshot, not once
// per order), and the other containers are one-key wrappers: `{"a": [...]}` an array,
// `{"d": "1.25"}` a decimal, `{"m": [key, value, ...]}` a Map, `{"s": [...]}` a Set,
// `{"b": maxPriceCents, "o": [id, owner, side, priceCents, remainingNanos, ...]}` a book (orders in
// priority order). Smaller and quicker both ways than version 1, which repeated every key of
// every object; that is what a snapshot of a large state costs. Version 1 (`$d`, `$m`, `$s`, `$book` wrappers around
// plain JSON objects) is still read.

// Version 3 is version 2's encoding of a state that also holds the settlement-side fee books and
// the referrals. A state of an earlier version lacks what those learnt from the journal before
// it (a settled market's accounts, a referral), so recovery replays the journal from the start
// rather than resume from it (isCurrentSnapshot); decoding one fills the new parts in empty.
export const SNAPSHOT_VERSION = 3;

/** Whether a snapshot text is of the current version (a resumable state). */
export function isCurrentSnapshot(text: string): boolean {
  return text.startsWith(`{"v":${SNAPSHOT_VERSION},`);
}

/** Whether `value` has exactly `keys`, in that order (no allocation). */
function hasKeys(value: object, keys: readonly string[]): boolean {
  let i = 0;
  for (const key in value) {
    if (key !== keys[i]) return false;
    i++;
  }
  return i === keys.length;
}

/** The shape of plain objects seen while encoding: most objects match one of the last few. */
interface Shape {
  index: number;
  keys: string[];
}
const RECENT_SHAPES = 8;

class StateEncoder {
  readonly shapes: string[][] = [];
  private readonly byKeys = new Map<string, Shape>();
  private readonly recent: Shape[] = [];

  private shapeOf(value: object): Shape {
    const recent = this.recent;
    for (let i = 0; i < recent.length; i++) {
      const shape = present(recent[i], 'i < recent.length');
      if (hasKeys(value, shape.keys)) {
        if (i > 0) {
          recent.splice(i, 1);
          recent.unshift(shape);
        }
        return shape;
      }
    }
    const keys: string[] = [];
    for (const key in value) keys.push(key);
    const id = keys.join('\u0000');
    let shape = this.byKeys.get(id);
    if (!shape) {
      shape = { index: this.shapes.length, keys };
      this.shapes.push(keys);
      this.byKeys.set(id, shape);
    }
    recent.unshift(shape);
    if (recent.length > RECENT_SHAPES) recent.pop();
    return shape;
  }

  encode(value: unknown): Encoded {
    if (value === null || value === undefined) return null;
    const type = typeof value;
    if (type === 'string' || type === 'number' || type === 'boolean') return value as Encoded;
    if (isDecimal(value)) return { d: decimalText(value) };
    if (Array.isArray(value)) return { a: value.map((item) => this.encode(item)) };
    if (value instanceof Map) {
      const flat: Encoded[] = new Array(value.size * 2);
      let i = 0;
      for (const [key, item] of value) {
        flat[i++] = this.encode(key);
        flat[i++] = this.encode(item);
      }
      return { m: flat };
    }
    if (value instanceof Set) {
      const items: Encoded[] = [];
      for (const item of value) items.push(this.encode(item));
      return { s: items };
    }
    if (type === 'object') {
      if (isBook(value)) {
        const book = value as OrderBook & { maxPriceCents: number };
        const flat: Encoded[] = [];
        for (const side of ['buy', 'sell'] as const) {
          for (const level of book.levels(side)) {
            for (const o of level.orders) flat.push(o.id, o.ownerId, o.side, o.priceCents, o.remainingNanos);
          }
        }
        return { b: book.maxPriceCents, o: flat };
      }
      const shape = this.shapeOf(value);
      const keys = shape.keys;
      const tuple: Encoded[] = new Array(keys.length + 1);
      tuple[0] = shape.index;
      let at = 1;
      for (const key of keys) tuple[at++] = this.encode((value as Record<string, unknown>)[key]);
      return tuple;
    }
    throw new Error(`cannot encode ${type}`);
  }
}

function decodeV2(value: Encoded, shapes: readonly string[][]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const keys = shapes[value[0] as number];
    if (!keys || keys.length !== value.length - 1)
      throw new Error(`snapshot: a tuple of ${value.length - 1} values names shape ${String(value[0])}`);
    const out: Record<string, unknown> = {};
    let at = 1;
    for (const key of keys) out[key] = decodeV2(defined(value[at++], 'a tuple holds one value per key'), shapes);
    return out;
  }
  if ('d' in value) return decimalOf(value.d as string);
  if ('a' in value) return (value.a as Encoded[]).map((item) => decodeV2(item, shapes));
  if ('m' in value) {
    const flat = value.m as Encoded[];
    const map = new Map<unknown, unknown>();
    const at = (i: number): unknown => decodeV2(defined(flat[i], 'i < flat.length'), shapes);
    for (let i = 0; i + 1 < flat.length; i += 2) map.set(at(i), at(i + 1));
    return map;
  }
  if ('s' in value) return new Set((value.s as Encoded[]).map((item) => decodeV2(item, shapes)));
  if ('b' in value) {
    const book = new FastOrderBook(value.b as number);
    const flat = value.o as Encoded[];
    for (let i = 0; i + 4 < flat.length; i += 5) {
      const order: RestingOrder = {
        id: flat[i] as string,
        ownerId: flat[i + 1] as string,
        side: flat[i + 2] as 'buy' | 'sell',
        priceCents: flat[i + 3] as number,
        remainingNanos: flat[i + 4] as number,
      };
      book.add(order);
    }
    return book;
  }
  throw new Error(`snapshot: unknown wrapper ${JSON.stringify(Object.keys(value))}`);
}

/** The state as JSON text (deterministic for a given state). */
export function encodeState(state: EngineState): string {
  const encoder = new StateEncoder();
  const body = encoder.encode(asStored(state));
  return JSON.stringify({ v: SNAPSHOT_VERSION, shapes: encoder.shapes, state: body });
}

export function decodeState(text: string): EngineState {
  const parsed = JSON.parse(text) as { v: number; state: Encoded; shapes?: string[][] };
  if (parsed.v === 1) return withDefaults(withMarketCatalogue(asRead(decode(parsed.state) as Record<string, unknown>)));
  if ((parsed.v === 2 || parsed.v === 3) && Array.isArray(parsed.shapes)) {
    return withDefaults(withMarketCatalogue(asRead(decodeV2(parsed.state, parsed.shapes) as Record<string, unknown>)));
  }
  throw new Error(`unknown snapshot version ${parsed.v}`);
}

/**
 * The key a snapshot keeps the sport events under: `events`, as every snapshot (and so every state
 * hash a journal's replay reported) has it, where the state says `sportEvents`.
 */
const STORED_SPORT_EVENTS_KEY = 'events';

/** The state with its keys as snapshots store them, in the same order. */
function asStored(state: EngineState): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(state)) out[key === 'sportEvents' ? STORED_SPORT_EVENTS_KEY : key] = value;
  return out;
}

/** A stored state with the state's own keys, in the same order. */
function asRead(stored: Record<string, unknown>): EngineState {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(stored)) out[key === STORED_SPORT_EVENTS_KEY ? 'sportEvents' : key] = value;
  return out as unknown as EngineState;
}

/**
 * Markets of a snapshot taken before markets had catalogue fields get them empty, after their
 * other keys, as listMarket builds a market (so the state hashes as a replay's would).
 */
function withMarketCatalogue(state: EngineState): EngineState {
  for (const [id, market] of state.markets) {
    if ('archivedAt' in market) continue;
    // rebuilt rather than added to: the settlement-fee percents (when the snapshot has them) come after the catalogue
    const { settlementFeePercent, eventFeePercent, groupFeePercent, ...rest } = market as MarketState;
    const fees = settlementFeePercent === undefined ? {} : { settlementFeePercent, eventFeePercent, groupFeePercent };
    state.markets.set(id, { ...rest, ...emptyMarketCatalogue(), ...fees } as MarketState);
  }
  return state;
}

/** A state of an earlier version made whole: the parts added since, empty (keys last, as the engine adds them). */
function withDefaults(state: EngineState): EngineState {
  const partial = state as Partial<EngineState>;
  partial.settlementFees ??= { groupPercents: new Map(), settled: new Map(), scopeCharges: new Map() };
  partial.referrals ??= { points: DEFAULT_REFERRAL_POINTS, byReferee: new Map() };
  for (const market of state.markets.values()) {
    if (market.settlementFeePercent === undefined)
      Object.assign(market, { settlementFeePercent: null, eventFeePercent: null, groupFeePercent: null });
  }
  for (const event of state.sportEvents.values()) event.eventFeePercent ??= null;
  return state;
}

/** sha256 of the encoded state: equal hashes mean replay reproduced the same state. */
export function stateHash(state: EngineState): string {
  return createHash('sha256').update(encodeState(state)).digest('hex');
}

/**
 * The hash of the records the state holds (domain/evolve/digest.ts): its live orders, unsettled
 * fills, positions of unsettled markets, accounts, markets and sport events, each by its record's
 * fields alone. A fold of the journal's facts with the domain's evolve holds the same records.
 */
export function recordsHashOf(state: EngineState): string {
  const positions: PositionRecord[] = [];
  for (const account of state.accounts.values())
    for (const exposure of account.exposures.values()) positions.push(exposure);
  return recordsHash({
    orders: state.orders.values(),
    fills: state.fills.values(),
    positions,
    accounts: state.accounts.values(),
    markets: state.markets.values(),
    sportEvents: state.sportEvents.values(),
  });
}
