// Encoding of the engine's facts inside a journal record (record version 4). Every fact type
// has a fixed key list (the order the engine builds it in): a fact is stored as an array, its
// type first, then its values in that order. Inside one record a fact may instead be stored as
// the differences from the previous fact of its type, `{"~": type, "d": [index, value, ...]}`
// (indexes into the key list), when fewer than half of its values differ: the orders a batch
// places look alike. A record therefore decodes on its own, facts in order. A fact whose keys
// are not exactly its type's list is stored as the object itself, so nothing is ever lost.
// The key lists are part of the record format: a changed fact shape is a new record version (a
// new fact type is not: records written before it never hold it).

import type { EngineEvent, EngineEventType } from '../events.ts';

type KeysOf<T> = T extends unknown ? Exclude<keyof T, 'type'> : never;
/** Compile-time check that a key list names every key of its fact (and nothing else). */
type Exhaustive<T, K extends readonly string[]> = Exclude<KeysOf<T>, K[number]> extends never ? (Exclude<K[number], KeysOf<T>> extends never ? K : never) : never;
const keysOf = <T extends EngineEvent>() => <const K extends readonly string[]>(keys: Exhaustive<T, K>): readonly string[] => keys as readonly string[];
type Fact<N extends EngineEventType> = Extract<EngineEvent, { type: N }>;

const ACCOUNT_DETAILS = [
  'account_id', 'status', 'first_name', 'last_name', 'email', 'jurisdiction', 'fee_schedule', 'base_fee_percent', 'maker_factor',
  'taker_factor', 'created_at',
] as const;
const ORDER_TERMS = [
  'order_id', 'account_id', 'market_id', 'action', 'order_type', 'price', 'quantity', 'expiration', 'expiration_time', 'expires_at',
  'placed_pre_start', 'client_order_id', 'device_id', 'ip_address', 'cancel_on_disconnect',
] as const;

/** Each fact type's keys after `type`, in the order the engine builds the fact. */
export const FACT_KEYS: Readonly<Record<EngineEventType, readonly string[]>> = {
  AccountOpened: keysOf<Fact<'AccountOpened'>>()(['user_id', ...ACCOUNT_DETAILS]),
  AccountUpdated: keysOf<Fact<'AccountUpdated'>>()([...ACCOUNT_DETAILS]),
  LoyaltyTierChanged: keysOf<Fact<'LoyaltyTierChanged'>>()(['account_id', 'tier']),
  SportEventScheduled: keysOf<Fact<'SportEventScheduled'>>()(['event_id', 'title', 'short_title', 'event_type', 'sport', 'competition', 'participants', 'start']),
  SportEventStarted: keysOf<Fact<'SportEventStarted'>>()(['event_id']),
  SportEventUpdated: keysOf<Fact<'SportEventUpdated'>>()(['event_id', 'title', 'short_title', 'event_type', 'sport', 'competition', 'participants', 'start']),
  MarketListed: keysOf<Fact<'MarketListed'>>()([
    'market_id', 'event_id', 'title', 'short_title', 'question', 'rules', 'symbol', 'grouping_id', 'grouping_name', 'featured', 'status',
    'trading', 'max_price', 'in_play_delay_sec', 'points_cost',
  ]),
  MarketUpdated: keysOf<Fact<'MarketUpdated'>>()([
    'market_id', 'title', 'short_title', 'question', 'rules', 'symbol', 'grouping_name', 'featured', 'in_play_delay_sec', 'points_cost',
    'description', 'group_title', 'specifier', 'position', 'powered_by', 'filters', 'trading_filters', 'keywords', 'participants',
    'stat_detail', 'featured_home', 'manual_probability',
  ]),
  MarketArchived: keysOf<Fact<'MarketArchived'>>()(['market_id']),
  MarketStatusChanged: keysOf<Fact<'MarketStatusChanged'>>()(['market_id', 'status', 'trading']),
  SettlementFeeSet: keysOf<Fact<'SettlementFeeSet'>>()(['scope', 'scope_id', 'percent', 'market_ids']),
  MarketSettled: keysOf<Fact<'MarketSettled'>>()(['market_id', 'result', 'settlement_id']),
  OrderAccepted: keysOf<Fact<'OrderAccepted'>>()(['status', 'delayed_until', ...ORDER_TERMS]),
  OrderRejected: keysOf<Fact<'OrderRejected'>>()(['reason', ...ORDER_TERMS]),
  OrderReleased: keysOf<Fact<'OrderReleased'>>()(['order_id']),
  OrderCancelled: keysOf<Fact<'OrderCancelled'>>()(['order_id', 'reason']),
  Traded: keysOf<Fact<'Traded'>>()([
    'trade_id', 'market_id', 'price', 'quantity', 'taker_side', 'pre_start',
    'maker_order_id', 'maker_account_id', 'maker_fill_id', 'maker_closing', 'maker_fee', 'maker_points',
    'taker_order_id', 'taker_account_id', 'taker_fill_id', 'taker_closing', 'taker_fee', 'taker_points',
  ]),
  LotClosed: keysOf<Fact<'LotClosed'>>()(['fill_id', 'quantity', 'pnl']),
  LotSettled: keysOf<Fact<'LotSettled'>>()(['fill_id', 'quantity', 'pnl']),
  LotResettled: keysOf<Fact<'LotResettled'>>()(['fill_id', 'quantity', 'pnl']),
  FillVoided: keysOf<Fact<'FillVoided'>>()(['fill_id']),
  FillAmended: keysOf<Fact<'FillAmended'>>()(['fill_id', 'account_id', 'market_id', 'price', 'quantity', 'fee', 'points']),
  Transferred: keysOf<Fact<'Transferred'>>()([
    'id', 'kind', 'from', 'to', 'amount', 'market_id', 'fill_id', 'settlement_id', 'method', 'reason', 'sub_method',
  ]),
  SettlementFeeBooked: keysOf<Fact<'SettlementFeeBooked'>>()([
    'id', 'account_id', 'source', 'market_id', 'event_id', 'settlement_id', 'percent', 'net_winnings', 'fee_id', 'shares',
  ]),
  PointsCredited: keysOf<Fact<'PointsCredited'>>()(['id', 'account_id', 'market_id', 'settlement_id', 'points', 'amount_risked']),
  ReferralRecorded: keysOf<Fact<'ReferralRecorded'>>()(['referrer_account_id', 'referee_account_id']),
  ReferralCredited: keysOf<Fact<'ReferralCredited'>>()(['referrer_entry_id', 'referee_entry_id', 'referrer_account_id', 'referee_account_id', 'points']),
  ReferralPointsSet: keysOf<Fact<'ReferralPointsSet'>>()(['points']),
  FundsReserved: keysOf<Fact<'FundsReserved'>>()(['account_id', 'buy_orders', 'sell_orders', 'positions', 'available']),
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

function keyListOf(type: unknown): readonly string[] | undefined {
  return typeof type === 'string' && Object.prototype.hasOwnProperty.call(FACT_KEYS, type) ? FACT_KEYS[type as EngineEventType] : undefined;
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
    f.type, f.status, f.delayed_until, f.order_id, f.account_id, f.market_id, f.action, f.order_type, f.price, f.quantity, f.expiration,
    f.expiration_time, f.expires_at, f.placed_pre_start, f.client_order_id, f.device_id, f.ip_address, f.cancel_on_disconnect,
  ]),
  FundsReserved: reader<'FundsReserved'>((f) => [f.type, f.account_id, f.buy_orders, f.sell_orders, f.positions, f.available]),
  Traded: reader<'Traded'>((f) => [
    f.type, f.trade_id, f.market_id, f.price, f.quantity, f.taker_side, f.pre_start,
    f.maker_order_id, f.maker_account_id, f.maker_fill_id, f.maker_closing, f.maker_fee, f.maker_points,
    f.taker_order_id, f.taker_account_id, f.taker_fill_id, f.taker_closing, f.taker_fee, f.taker_points,
  ]),
  Transferred: reader<'Transferred'>((f) => [
    f.type, f.id, f.kind, f.from, f.to, f.amount, f.market_id, f.fill_id, f.settlement_id, f.method, f.reason, f.sub_method,
  ]),
  LotClosed: reader<'LotClosed'>((f) => [f.type, f.fill_id, f.quantity, f.pnl]),
  OrderCancelled: reader<'OrderCancelled'>((f) => [f.type, f.order_id, f.reason]),
};

export function encodeFact(fact: EngineEvent, context: FactContext): StoredFact {
  const record = fact as unknown as Record<string, unknown>;
  const keys = keyListOf(fact.type);
  if (!keys || !hasExactKeys(record, keys)) return record;
  // The values in key-list order, read once; the encoder's context keeps them (the previous fact
  // of the type as it was written), and the delta compares arrays.
  let stored: unknown[];
  const read = STORED_VALUES[fact.type];
  if (read) {
    stored = read(fact);
  } else {
    stored = new Array<unknown>(keys.length + 1);
    stored[0] = fact.type;
    for (let i = 0; i < keys.length; i++) stored[i + 1] = record[keys[i]!];
  }
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
    const keys = keyListOf(stored[0]);
    if (!keys || stored.length !== keys.length + 1) {
      throw new Error(`engine journal: a ${String(stored[0])} fact holds ${stored.length - 1} values where ${keys?.length ?? '?'} were expected`);
    }
    fact = { type: stored[0] };
    for (let i = 0; i < keys.length; i++) fact[keys[i]!] = stored[i + 1];
  } else if (stored !== null && typeof stored === 'object' && typeof stored['~'] === 'string' && Array.isArray(stored.d)) {
    const type = stored['~'];
    const keys = keyListOf(type);
    const previous = context.get(type) as Readonly<Record<string, unknown>> | undefined;
    if (!keys || !previous) throw new Error(`engine journal: a ${type} delta with no earlier ${type} fact in the record`);
    fact = { ...previous };
    const changes = stored.d as unknown[];
    for (let i = 0; i + 1 < changes.length; i += 2) {
      const index = changes[i];
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= keys.length) {
        throw new Error(`engine journal: ${type} delta index ${String(index)} is out of range`);
      }
      fact[keys[index]!] = changes[i + 1];
    }
  } else {
    return stored as unknown as EngineEvent;
  }
  context.set(fact.type as string, fact);
  return fact as unknown as EngineEvent;
}

export function encodeFacts(facts: readonly EngineEvent[], context: FactContext): StoredFact[] {
  const stored = new Array<StoredFact>(facts.length);
  for (let i = 0; i < facts.length; i++) stored[i] = encodeFact(facts[i]!, context);
  return stored;
}

export function decodeFacts(stored: readonly StoredFact[], context: FactContext): EngineEvent[] {
  return stored.map((fact) => decodeFact(fact, context));
}
