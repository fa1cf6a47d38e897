// Encoding of the engine's facts inside a journal record (record version 4). Every fact type
// has a fixed key list (the order the engine builds it in): a fact is stored as an array, its
// type first, then its values in that order. Inside one record a fact may instead be stored as
// the differences from the previous fact of its type, `{"~": type, "d": [index, value, ...]}`
// (indexes into the key list), when fewer than half of its values differ: the orders a batch
// places look alike. A record therefore decodes on its own, facts in order. A fact whose keys
// are not exactly its type's list is stored as the object itself, so nothing is ever lost.
// The key lists are part of the record format: a changed fact shape is a new record version (a
// new fact type is not: records written before it never hold it).

import { present } from '../../assert.ts';
import type { EngineEvent, EngineEventType } from '../events.ts';
import { assignInKeyOrder, valuesInKeyOrder } from './keyOrder.ts';

type KeysOf<T> = T extends unknown ? Exclude<keyof T, 'type'> : never;
/** Compile-time check that a key list names every key of its fact (and nothing else). */
type Exhaustive<T, K extends readonly string[]> =
  Exclude<KeysOf<T>, K[number]> extends never ? (Exclude<K[number], KeysOf<T>> extends never ? K : never) : never;
const keysOf =
  <T extends EngineEvent>() =>
  <const K extends readonly string[]>(keys: Exhaustive<T, K>): readonly string[] =>
    keys;
type Fact<N extends EngineEventType> = Extract<EngineEvent, { type: N }>;

const ACCOUNT_DETAILS = [
  'account_id',
  'status',
  'first_name',
  'last_name',
  'email',
  'jurisdiction',
  'fee_schedule',
  'base_fee_percent',
  'maker_factor',
  'taker_factor',
  'created_at',
] as const;
const SPORT_EVENT_DETAILS = [
  'event_id',
  'title',
  'short_title',
  'event_type',
  'sport',
  'competition',
  'participants',
  'start',
] as const;
const ORDER_TERMS = [
  'order_id',
  'account_id',
  'market_id',
  'action',
  'order_type',
  'price',
  'quantity',
  'expiration',
  'expiration_time',
  'expires_at',
  'placed_pre_start',
  'client_order_id',
  'device_id',
  'ip_address',
  'cancel_on_disconnect',
] as const;

/** Each fact type's keys after `type`, in the order the engine builds the fact. */
export const FACT_KEYS: Readonly<Record<EngineEventType, readonly string[]>> = {
  AccountOpened: keysOf<Fact<'AccountOpened'>>()(['user_id', ...ACCOUNT_DETAILS]),
  AccountUpdated: keysOf<Fact<'AccountUpdated'>>()([...ACCOUNT_DETAILS]),
  LoyaltyTierChanged: keysOf<Fact<'LoyaltyTierChanged'>>()(['account_id', 'tier']),
  SportEventScheduled: keysOf<Fact<'SportEventScheduled'>>()([...SPORT_EVENT_DETAILS]),
  SportEventStarted: keysOf<Fact<'SportEventStarted'>>()(['event_id']),
  SportEventUpdated: keysOf<Fact<'SportEventUpdated'>>()([...SPORT_EVENT_DETAILS]),
  MarketListed: keysOf<Fact<'MarketListed'>>()([
    'market_id',
    'event_id',
    'title',
    'short_title',
    'question',
    'rules',
    'symbol',
    'grouping_id',
    'grouping_name',
    'featured',
    'status',
    'trading',
    'max_price',
    'in_play_delay_sec',
    'points_cost',
  ]),
  MarketUpdated: keysOf<Fact<'MarketUpdated'>>()([
    'market_id',
    'title',
    'short_title',
    'question',
    'rules',
    'symbol',
    'grouping_name',
    'featured',
    'in_play_delay_sec',
    'points_cost',
    'description',
    'group_title',
    'specifier',
    'position',
    'powered_by',
    'filters',
    'trading_filters',
    'keywords',
    'participants',
    'stat_detail',
    'featured_home',
    'manual_probability',
  ]),
  MarketArchived: keysOf<Fact<'MarketArchived'>>()(['market_id']),
  MarketStatusChanged: keysOf<Fact<'MarketStatusChanged'>>()(['market_id', 'status', 'trading']),
  SettlementFeeSet: keysOf<Fact<'SettlementFeeSet'>>()(['scope', 'scope_id', 'percent', 'market_ids']),
  MarketSettled: keysOf<Fact<'MarketSettled'>>()(['market_id', 'result', 'settlement_id']),
  OrderAccepted: keysOf<Fact<'OrderAccepted'>>()(['status', 'delayed_until', ...ORDER_TERMS]),
  OrderRejected: keysOf<Fact<'OrderRejected'>>()(['reason', ...ORDER_TERMS]),
  OrderReleased: keysOf<Fact<'OrderReleased'>>()(['order_id']),
  OrderCancelled: keysOf<Fact<'OrderCancelled'>>()(['order_id', 'reason', 'status']),
  Traded: keysOf<Fact<'Traded'>>()([
    'trade_id',
    'market_id',
    'price',
    'quantity',
    'taker_side',
    'pre_start',
    'maker_order_id',
    'maker_account_id',
    'maker_fill_id',
    'maker_closing',
    'maker_fee',
    'maker_points',
    'maker_remaining',
    'maker_status',
    'taker_order_id',
    'taker_account_id',
    'taker_fill_id',
    'taker_closing',
    'taker_fee',
    'taker_points',
    'taker_remaining',
    'taker_status',
  ]),
  LotClosed: keysOf<Fact<'LotClosed'>>()(['fill_id', 'quantity', 'pnl']),
  LotSettled: keysOf<Fact<'LotSettled'>>()(['fill_id', 'quantity', 'pnl']),
  LotResettled: keysOf<Fact<'LotResettled'>>()(['fill_id', 'quantity', 'pnl']),
  FillVoided: keysOf<Fact<'FillVoided'>>()(['fill_id']),
  FillAmended: keysOf<Fact<'FillAmended'>>()([
    'fill_id',
    'account_id',
    'market_id',
    'price',
    'quantity',
    'fee',
    'points',
  ]),
  Transferred: keysOf<Fact<'Transferred'>>()([
    'id',
    'kind',
    'from',
    'to',
    'amount',
    'market_id',
    'fill_id',
    'settlement_id',
    'method',
    'reason',
    'sub_method',
  ]),
  SettlementFeeBooked: keysOf<Fact<'SettlementFeeBooked'>>()([
    'id',
    'account_id',
    'source',
    'market_id',
    'event_id',
    'settlement_id',
    'percent',
    'net_winnings',
    'fee_id',
    'shares',
  ]),
  PointsCredited: keysOf<Fact<'PointsCredited'>>()([
    'id',
    'account_id',
    'market_id',
    'settlement_id',
    'points',
    'amount_risked',
  ]),
  ReferralRecorded: keysOf<Fact<'ReferralRecorded'>>()(['referrer_account_id', 'referee_account_id']),
  ReferralCredited: keysOf<Fact<'ReferralCredited'>>()([
    'referrer_entry_id',
    'referee_entry_id',
    'referrer_account_id',
    'referee_account_id',
    'points',
  ]),
  ReferralPointsSet: keysOf<Fact<'ReferralPointsSet'>>()(['points']),
  FundsReserved: keysOf<Fact<'FundsReserved'>>()(['account_id', 'buy_orders', 'sell_orders', 'positions', 'available']),
};

/** The keys version 6 added to OrderCancelled and Traded: what the cancel or the trade leaves of each order. */
const STATED_SINCE_V6: ReadonlySet<string> = new Set([
  'status',
  'maker_remaining',
  'maker_status',
  'taker_remaining',
  'taker_status',
]);
const statedBeforeV6 = (keys: readonly string[]): readonly string[] => keys.filter((key) => !STATED_SINCE_V6.has(key));

/**
 * The key lists of record versions 4 and 5, where they differ from today's: an order's remaining
 * and status after a trade or a cancel were not stated (upcast.ts `completedV5` adds them as null).
 */
export const FACT_KEYS_V5: Readonly<Record<EngineEventType, readonly string[]>> = {
  ...FACT_KEYS,
  OrderCancelled: statedBeforeV6(FACT_KEYS.OrderCancelled),
  Traded: statedBeforeV6(FACT_KEYS.Traded),
};

/** A fact as stored: `[type, ...values]`, a delta, or (keys off its type's list) the fact itself. */
export type StoredFact = unknown[] | { '~': string; d: unknown[] } | Record<string, unknown>;

/**
 * The previous fact of each type while a record is encoded (its stored values) or decoded (the
 * fact); a context serves one direction only.
 */
export type FactContext = Map<string, unknown>;

export function newFactContext(): FactContext {
  return new Map();
}

function keyListOf(
  type: unknown,
  lists: Readonly<Record<EngineEventType, readonly string[]>> = FACT_KEYS,
): readonly string[] | undefined {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(lists, type)
    ? lists[type as EngineEventType]
    : undefined;
}

/** Whether `fact` has `type` then exactly `keys`, in that order, none of them undefined. */
function hasExactKeys(fact: Record<string, unknown>, keys: readonly string[]): boolean {
  let i = -1;
  for (const key in fact) {
    if (i === -1 ? key !== 'type' : key !== keys[i] || fact[key] === undefined) return false;
    i++;
  }
  return i === keys.length;
}

/** Whether a value is written out in a delta: it changed, or it is not a primitive (a nested array always is). */
function differs(value: unknown, previous: unknown): boolean {
  return value !== previous || (value !== null && typeof value === 'object');
}

/**
 * `[type, ...values in key-list order]` of the facts every order step states, read field by field
 * (a generic read by key name is several times slower); a unit test holds each to FACT_KEYS.
 */
type ValuesReader = (fact: EngineEvent) => unknown[];
const reader = <N extends EngineEventType>(read: (fact: Fact<N>) => unknown[]): ValuesReader => read as ValuesReader;
export const STORED_VALUES: Readonly<Partial<Record<EngineEventType, ValuesReader>>> = {
  OrderAccepted: reader<'OrderAccepted'>((f) => [
    f.type,
    f.status,
    f.delayed_until,
    f.order_id,
    f.account_id,
    f.market_id,
    f.action,
    f.order_type,
    f.price,
    f.quantity,
    f.expiration,
    f.expiration_time,
    f.expires_at,
    f.placed_pre_start,
    f.client_order_id,
    f.device_id,
    f.ip_address,
    f.cancel_on_disconnect,
  ]),
  FundsReserved: reader<'FundsReserved'>((f) => [
    f.type,
    f.account_id,
    f.buy_orders,
    f.sell_orders,
    f.positions,
    f.available,
  ]),
  Traded: reader<'Traded'>((f) => [
    f.type,
    f.trade_id,
    f.market_id,
    f.price,
    f.quantity,
    f.taker_side,
    f.pre_start,
    f.maker_order_id,
    f.maker_account_id,
    f.maker_fill_id,
    f.maker_closing,
    f.maker_fee,
    f.maker_points,
    f.maker_remaining,
    f.maker_status,
    f.taker_order_id,
    f.taker_account_id,
    f.taker_fill_id,
    f.taker_closing,
    f.taker_fee,
    f.taker_points,
    f.taker_remaining,
    f.taker_status,
  ]),
  Transferred: reader<'Transferred'>((f) => [
    f.type,
    f.id,
    f.kind,
    f.from,
    f.to,
    f.amount,
    f.market_id,
    f.fill_id,
    f.settlement_id,
    f.method,
    f.reason,
    f.sub_method,
  ]),
  LotClosed: reader<'LotClosed'>((f) => [f.type, f.fill_id, f.quantity, f.pnl]),
  OrderCancelled: reader<'OrderCancelled'>((f) => [f.type, f.order_id, f.reason, f.status]),
};

export function encodeFact(fact: EngineEvent, context: FactContext): StoredFact {
  const record = fact as unknown as Record<string, unknown>;
  const keys = keyListOf(fact.type, FACT_KEYS_V5);
  if (!keys || !hasExactKeys(record, keys)) return record;
  // The values in key-list order, read once; the encoder's context keeps them (the previous fact
  // of the type as it was written), and the delta compares arrays.
  // (no longer written by the engine: read generically, by version 4's key lists)
  const stored = valuesInKeyOrder(record, keys, 1);
  stored[0] = fact.type;
  const previous = context.get(fact.type) as unknown[] | undefined;
  context.set(fact.type, stored);
  if (previous) {
    // counted first, so the delta is allocated once at its size
    let changed = 0;
    for (let i = 1; i < stored.length; i++) if (differs(stored[i], previous[i])) changed++;
    if (changed * 2 < keys.length) {
      const changes = new Array<unknown>(changed * 2);
      let at = 0;
      for (let i = 1; i < stored.length; i++) {
        const value = stored[i];
        if (differs(value, previous[i])) {
          changes[at++] = i - 1;
          changes[at++] = value;
        }
      }
      return { '~': fact.type, d: changes };
    }
  }
  return stored;
}

export function decodeFact(stored: StoredFact, context: FactContext): EngineEvent {
  let fact: Record<string, unknown>;
  if (Array.isArray(stored)) {
    const keys = keyListOf(stored[0], FACT_KEYS_V5);
    if (!keys || stored.length !== keys.length + 1) {
      throw new Error(
        `engine journal: a ${String(stored[0])} fact holds ${stored.length - 1} values where ${keys?.length ?? '?'} were expected`,
      );
    }
    fact = { type: stored[0] };
    assignInKeyOrder(fact, keys, stored, 1);
  } else if (
    stored !== null &&
    typeof stored === 'object' &&
    typeof stored['~'] === 'string' &&
    Array.isArray(stored.d)
  ) {
    const type = stored['~'];
    const keys = keyListOf(type, FACT_KEYS_V5);
    const previous = context.get(type) as Readonly<Record<string, unknown>> | undefined;
    if (!keys || !previous)
      throw new Error(`engine journal: a ${type} delta with no earlier ${type} fact in the record`);
    fact = { ...previous };
    const changes = stored.d as unknown[];
    for (let i = 0; i + 1 < changes.length; i += 2) {
      const index = changes[i];
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= keys.length) {
        throw new Error(`engine journal: ${type} delta index ${String(index)} is out of range`);
      }
      fact[present(keys[index], 'index was checked in range above')] = changes[i + 1];
    }
  } else {
    return stored as unknown as EngineEvent;
  }
  context.set(fact.type as string, fact);
  return fact as unknown as EngineEvent;
}

export function encodeFacts(facts: readonly EngineEvent[], context: FactContext): StoredFact[] {
  const stored = new Array<StoredFact>(facts.length);
  for (let i = 0; i < facts.length; i++) stored[i] = encodeFact(present(facts[i], 'i < facts.length'), context);
  return stored;
}

export function decodeFacts(stored: readonly StoredFact[], context: FactContext): EngineEvent[] {
  return stored.map((fact) => decodeFact(fact, context));
}

// Record versions 5 and 6 (6 with the key lists of FACT_KEYS, 5 with those of FACT_KEYS_V5), with
// - the type as a number (FACT_CODES): `[code, ...values]`, or a delta `[-code, index, value, ...]`
//   against the previous fact of the type in the record (when fewer than half its values differ);
// - a placement fact (OrderAccepted, OrderRejected) of an order the step's input places written
//   as the differences from that order's request: `[PLACED + code, leg, index, value, ...]`, `leg`
//   the request's index in the input (0 for PlaceOrder). Where the request says nothing (status,
//   delay, reason, expiry, pre-start flag), the base is the previous fact of the type in the
//   record, or PLACEMENT_DEFAULTS. The order's input is thereby not written twice.
// A fact whose keys are not exactly its type's list is still stored as the object itself.

/** Each fact type's number in version 5 records. Part of the format: append only, never renumber. */
export const FACT_CODES: Readonly<Record<EngineEventType, number>> = {
  AccountOpened: 1,
  AccountUpdated: 2,
  LoyaltyTierChanged: 3,
  SportEventScheduled: 4,
  SportEventStarted: 5,
  SportEventUpdated: 6,
  MarketListed: 7,
  MarketUpdated: 8,
  MarketArchived: 9,
  MarketStatusChanged: 10,
  SettlementFeeSet: 11,
  MarketSettled: 12,
  OrderAccepted: 13,
  OrderRejected: 14,
  OrderReleased: 15,
  OrderCancelled: 16,
  Traded: 17,
  LotClosed: 18,
  LotSettled: 19,
  LotResettled: 20,
  FillVoided: 21,
  FillAmended: 22,
  Transferred: 23,
  SettlementFeeBooked: 24,
  PointsCredited: 25,
  ReferralRecorded: 26,
  ReferralCredited: 27,
  ReferralPointsSet: 28,
  FundsReserved: 29,
};
/** Added to a placement fact's code when it is written against its order's request. */
export const PLACED = 100;

const TYPE_OF_CODE: readonly (EngineEventType | undefined)[] = (() => {
  const types: (EngineEventType | undefined)[] = [];
  for (const [type, code] of Object.entries(FACT_CODES)) types[code] = type as EngineEventType;
  return types;
})();
/** Per type code, the key list of record version 6 (what the engine writes) and of version 5. */
const KEYS_OF_CODE: readonly (readonly string[] | undefined)[] = TYPE_OF_CODE.map((type) =>
  type ? FACT_KEYS[type] : undefined,
);
const KEYS_OF_CODE_V5: readonly (readonly string[] | undefined)[] = TYPE_OF_CODE.map((type) =>
  type ? FACT_KEYS_V5[type] : undefined,
);

/** An order request's part of a placement fact: where each key's base value comes from. */
type Source = { from: 'request'; key: string } | { from: 'account' } | { from: 'previous'; fallback: unknown };
/** What a placement fact is taken to say, where neither its request nor an earlier fact says otherwise. */
export const PLACEMENT_DEFAULTS: Readonly<Record<string, unknown>> = {
  status: 'open',
  delayed_until: null,
  reason: 'insufficient_funds',
  expires_at: null,
  placed_pre_start: false,
};
/** The order terms a placement fact takes from its request: all but the step's account and those with a default. */
const REQUEST_KEYS: ReadonlySet<string> = new Set(
  ORDER_TERMS.filter((key) => key !== 'account_id' && !Object.prototype.hasOwnProperty.call(PLACEMENT_DEFAULTS, key)),
);
function sourcesOf(type: 'OrderAccepted' | 'OrderRejected'): Source[] {
  return FACT_KEYS[type].map((key): Source => {
    if (key === 'account_id') return { from: 'account' };
    if (REQUEST_KEYS.has(key)) return { from: 'request', key };
    if (!Object.prototype.hasOwnProperty.call(PLACEMENT_DEFAULTS, key))
      throw new Error(`placement fact key ${key} has no base`);
    return { from: 'previous', fallback: PLACEMENT_DEFAULTS[key] };
  });
}
const PLACEMENT_SOURCES: Readonly<Record<number, Source[]>> = {
  [FACT_CODES.OrderAccepted]: sourcesOf('OrderAccepted'),
  [FACT_CODES.OrderRejected]: sourcesOf('OrderRejected'),
};

/** The order requests an input places, in its order (none for other inputs). */
export interface PlacingInput {
  account_id: string;
  requests: readonly Record<string, unknown>[];
}

/**
 * The base values of a placement fact (`[code, ...values]`): its request's terms, the step's
 * account, and for the rest the previous fact of its type (`previous`, values at 1..n) or the defaults.
 */
function placementBase(
  code: number,
  sources: Source[],
  request: Record<string, unknown>,
  accountId: string,
  previous: ArrayLike<unknown> | undefined,
): unknown[] {
  const base = new Array<unknown>(sources.length + 1);
  base[0] = code;
  for (let i = 1; i <= sources.length; i++) base[i] = placementValueAt(sources, i, request, accountId, previous);
  return base;
}

/** The previous fact of each type code while a version 5 record is encoded (stored values) or decoded (values `[code, ...]`). */
export type FactContextV5 = (unknown[] | undefined)[];

export function newFactContextV5(): FactContextV5 {
  return [];
}

/** Where in `placing` the request of `orderId` is, looked for from `from` on (placement facts follow the input's order). */
function legOf(placing: PlacingInput, orderId: unknown, from: number): number {
  const { requests } = placing;
  const orderIdAt = (i: number): unknown => present(requests[i], 'i < requests.length').order_id;
  for (let i = from; i < requests.length; i++) if (orderIdAt(i) === orderId) return i;
  for (let i = 0; i < from && i < requests.length; i++) if (orderIdAt(i) === orderId) return i;
  return -1;
}

/** What the encoder needs of each fact type, found with one lookup. */
interface TypeSpec {
  code: number;
  keys: readonly string[];
  read: ValuesReader | undefined;
  placement: Source[] | undefined;
}
const SPECS: Readonly<Record<string, TypeSpec>> = Object.fromEntries(
  (Object.keys(FACT_CODES) as EngineEventType[]).map((type) => [
    type,
    {
      code: FACT_CODES[type],
      keys: FACT_KEYS[type],
      read: STORED_VALUES[type],
      placement: PLACEMENT_SOURCES[FACT_CODES[type]],
    },
  ]),
);

/** Indexes (into the values, from 1) that differ from the base: scratch space of the encoder, reused (encoding is synchronous). */
let changedAt = new Int32Array(64);

/** Counts the values of `stored` (from 1) that differ from `base`, noting them in `changedAt`. */
function noteChanges(stored: unknown[], base: ArrayLike<unknown>): number {
  if (changedAt.length < stored.length) changedAt = new Int32Array(stored.length * 2);
  let changed = 0;
  for (let i = 1; i < stored.length; i++) if (differs(stored[i], base[i])) changedAt[changed++] = i;
  return changed;
}

/** A placement fact's base value at `i` (from 1). */
function placementValueAt(
  sources: Source[],
  i: number,
  request: Record<string, unknown>,
  accountId: string,
  previous: ArrayLike<unknown> | undefined,
): unknown {
  const source = present(sources[i - 1], 'a placement fact has a source for each of its values');
  return source.from === 'request'
    ? request[source.key]
    : source.from === 'account'
      ? accountId
      : previous
        ? previous[i]
        : source.fallback;
}

/** Like noteChanges, against the base of a placement fact (built value by value, not as an array). */
function notePlacementChanges(
  stored: unknown[],
  sources: Source[],
  request: Record<string, unknown>,
  accountId: string,
  previous: unknown[] | undefined,
): number {
  if (changedAt.length < stored.length) changedAt = new Int32Array(stored.length * 2);
  let changed = 0;
  for (let i = 1; i < stored.length; i++)
    if (differs(stored[i], placementValueAt(sources, i, request, accountId, previous))) changedAt[changed++] = i;
  return changed;
}

/** `[first, (second,) index, value, ...]` of the `changed` values noted in `changedAt`. */
function pairsOf(stored: unknown[], changed: number, first: number, second: number | undefined): unknown[] {
  const head = second === undefined ? 1 : 2;
  const out = new Array<unknown>(head + changed * 2);
  out[0] = first;
  if (second !== undefined) out[1] = second;
  let at = head;
  for (let c = 0; c < changed; c++) {
    const i = present(changedAt[c], 'c < changed, the count noted in changedAt');
    out[at++] = i - 1;
    out[at++] = stored[i];
  }
  return out;
}

/** Encodes one step's facts into a version 5 record; `cursor` follows the placing input's requests. */
export function encodeFactsV5(
  facts: readonly EngineEvent[],
  placing: PlacingInput | null,
  context: FactContextV5,
): StoredFact[] {
  const out = new Array<StoredFact>(facts.length);
  let cursor = 0;
  for (let f = 0; f < facts.length; f++) {
    const fact = present(facts[f], 'f < facts.length');
    const record = fact as unknown as Record<string, unknown>;
    const spec = SPECS[fact.type];
    if (spec === undefined || !hasExactKeys(record, spec.keys)) {
      out[f] = record;
      continue;
    }
    const { code, keys } = spec;
    let stored: unknown[];
    if (spec.read !== undefined) {
      stored = spec.read(fact);
    } else {
      stored = valuesInKeyOrder(record, keys, 1);
    }
    stored[0] = code;
    const previous = context[code];
    context[code] = stored;
    if (placing !== null && spec.placement !== undefined) {
      const leg = legOf(placing, record.order_id, cursor);
      if (leg >= 0) {
        cursor = leg + 1;
        const changed = notePlacementChanges(
          stored,
          spec.placement,
          present(placing.requests[leg], 'legOf found the request at leg'),
          placing.account_id,
          previous,
        );
        if (changed * 2 < keys.length) {
          out[f] = pairsOf(stored, changed, PLACED + code, leg);
          continue;
        }
      }
    }
    if (previous !== undefined) {
      const changed = noteChanges(stored, previous);
      if (changed * 2 < keys.length) {
        out[f] = pairsOf(stored, changed, -code, undefined);
        continue;
      }
    }
    out[f] = stored;
  }
  return out;
}

function applyPairs(
  values: unknown[],
  stored: readonly unknown[],
  from: number,
  keys: readonly string[],
  type: string,
): void {
  for (let i = from; i + 1 < stored.length; i += 2) {
    const index = stored[i];
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= keys.length) {
      throw new Error(`engine journal: ${type} delta index ${String(index)} is out of range`);
    }
    values[index + 1] = stored[i + 1];
  }
}

/** Decodes one step's facts of a version 5 record; steps must be decoded in order with one context. */
export function decodeFactsV5(
  stored: readonly StoredFact[],
  placing: PlacingInput | null,
  context: FactContextV5,
  version: 5 | 6 = 6,
): EngineEvent[] {
  const keysOfCode = version === 6 ? KEYS_OF_CODE : KEYS_OF_CODE_V5;
  const out = new Array<EngineEvent>(stored.length);
  for (let f = 0; f < stored.length; f++) {
    const item = present(stored[f], 'f < stored.length');
    if (!Array.isArray(item)) {
      out[f] = item as unknown as EngineEvent;
      continue;
    }
    const head = item[0];
    if (typeof head !== 'number' || !Number.isInteger(head))
      throw new Error(`engine journal: a fact of type code ${String(head)}`);
    const code = head >= PLACED ? head - PLACED : Math.abs(head);
    const type = TYPE_OF_CODE[code];
    const keys = keysOfCode[code];
    if (!type || !keys) throw new Error(`engine journal: fact type code ${head} is not known to this build`);
    let values: unknown[];
    if (head >= PLACED) {
      const sources = PLACEMENT_SOURCES[code];
      if (!sources) throw new Error(`engine journal: a ${type} fact cannot be written against an order request`);
      const request = placing?.requests[item[1] as number];
      if (!placing || !request)
        throw new Error(
          `engine journal: a ${type} fact names order request ${String(item[1])}, which the step's input does not hold`,
        );
      values = placementBase(code, sources, request, placing.account_id, context[code]);
      applyPairs(values, item, 2, keys, type);
    } else if (head < 0) {
      const previous = context[code];
      if (!previous) throw new Error(`engine journal: a ${type} delta with no earlier ${type} fact in the record`);
      values = previous.slice();
      applyPairs(values, item, 1, keys, type);
    } else {
      if (item.length !== keys.length + 1) {
        throw new Error(
          `engine journal: a ${type} fact holds ${item.length - 1} values where ${keys.length} were expected`,
        );
      }
      values = item;
    }
    context[code] = values;
    const fact: Record<string, unknown> = { type };
    assignInKeyOrder(fact, keys, values, 1);
    out[f] = fact as unknown as EngineEvent;
  }
  return out;
}
