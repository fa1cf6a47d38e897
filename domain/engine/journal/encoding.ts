// Compact journal encoding (record version 2). A v2 `EngineStep` record keeps every event as an
// object with its own keys in their own order, but each view snapshot inside it (the bulk of a
// record) is stored as an array of values in the fixed key order of its view kind below.
// Decoding rebuilds objects deep-equal to what the engine emitted, key order included, so
// replay verification (which compares JSON text) and projectors see exactly the engine's events.
// A view whose keys are not exactly its kind's list (a field added, removed or reordered) is
// stored as the object itself, so the encoding never loses anything; decoding passes it through.
// The key lists are part of the record format: when a view's shape changes, records already
// written still hold arrays in the old order, so introduce a new record version (keeping the old
// lists to decode the old one) rather than editing a list in place.

import type { LegacyEngineEvent as EngineEvent, LegacyEngineEventType as EngineEventType } from './legacy.ts';
import type { EngineInput, OrderRequest } from '../inputs.ts';
import { present } from '../../assert.ts';
import { assignInKeyOrder, valuesInKeyOrder } from './keyOrder.ts';
import type {
  AccountView,
  BalanceView,
  FillView,
  LedgerEntryView,
  MarketBaseView,
  OrderView,
  PositionView,
  SportEventView,
} from '../../views.ts';

/** The record version written by this encoding (records without `v` are version 1: plain events). */
export const JOURNAL_VERSION = 2;

/** Compile-time check that a key list names every key of its view (and nothing else). */
type Exhaustive<T, K extends readonly (keyof T)[]> = Exclude<keyof T, K[number]> extends never ? K : never;
const keysOf =
  <T>() =>
  <const K extends readonly (keyof T)[]>(keys: Exhaustive<T, K>): readonly string[] =>
    keys as readonly string[];

// Canonical key order per view kind (the order the engine builds each view in; see domain/views.ts).
const ORDER_KEYS = keysOf<OrderView>()([
  'id',
  'account_id',
  'market_id',
  'action',
  'order_type',
  'status',
  'quantity',
  'filled',
  'filled_percentage',
  'price',
  'avg_price',
  'total_value',
  'amount',
  'filled_amount',
  'client_order_id',
  'device_id',
  'ip_address',
  'expiration',
  'expiration_time',
  'expires_at',
  'accepted_at',
  'delayed_until',
  'inserted_at',
  'time',
  'placed_pre_start',
  'fix_order',
  'cancellation_reason',
  'rejection_reason',
  'odds_type',
  'odds_value',
  'cancel_on_disconnect',
  'seq',
]);
// Views as records of versions 2 and 3 hold them: fields added to the views since are not in these lists.
const FILL_KEYS = keysOf<Omit<FillView, 'fee_entry_id' | 'settlement_fee'>>()([
  'trade_id',
  'order_id',
  'account_id',
  'market_id',
  'event_id',
  'client_order_id',
  'action',
  'status',
  'liquidity_action',
  'price',
  'filled',
  'traded_contracts',
  'original_filled',
  'original_price',
  'original_premium',
  'original_risk',
  'original_to_win',
  'amended',
  'last_modified_at',
  'last_modified_by_admin_id',
  'admin_log',
  'closed_contracts',
  'expired_contracts',
  'settled_contracts',
  'remaining',
  'virtual_remaining',
  'closing',
  'closed_fee',
  'expired_fee',
  'closed_pnl',
  'expired_pnl',
  'closed_net_pnl',
  'expired_net_pnl',
  'gross_pnl',
  'pc_premium',
  'pc_risk',
  'pc_to_win',
  'remaining_potential_fee',
  'remaining_premium',
  'remaining_risk',
  'remaining_to_win',
  'trade_fee',
  'unrounded_trade_fee',
  'total_fee',
  'points',
  'settlements_count',
  'placed_pre_start',
  'pre_start',
  'device_id',
  'ip_address',
  'opened_at',
  'expires_at',
  'settled_at',
  'inserted_at',
  'updated_at',
  'time',
  'seq',
]);
const BALANCE_KEYS = keysOf<BalanceView>()([
  'account_id',
  'user_id',
  'account_balance',
  'available_balance',
  'buy_order_liability',
  'sell_order_liability',
  'position_premium_liability',
  'escrow',
  'fee_schedule',
  'base_fee_percent',
  'maker_factor',
  'taker_factor',
  'loyalty_tier',
  'points',
  'total_adjustments',
  'total_deposits',
  'total_withdrawals',
  'total_fees',
  'total_settlement_pnl',
  'total_traded',
  'total_trade_count',
  'seq',
]);
const POSITION_KEYS = keysOf<PositionView>()([
  'account_id',
  'market_id',
  'event_id',
  'position',
  'side',
  'contracts',
  'avg_price',
  'premium',
  'risk',
  'to_win',
  'realized_pnl',
  'fees',
  'market_max_price',
  'updated_at',
  'seq',
]);
const LEDGER_ENTRY_KEYS = keysOf<LedgerEntryView>()([
  'id',
  'account_id',
  'type',
  'amount',
  'points',
  'event_id',
  'market_id',
  'fee_id',
  'payment_id',
  'settlement_id',
  'fee_source',
  'trade_id',
  'method',
  'reason',
  'sub_method',
  'referee_account_id',
  'referrer_account_id',
  'inserted_at',
  'time',
  'seq',
]);
const ACCOUNT_KEYS = keysOf<AccountView>()([
  'account_id',
  'user_id',
  'status',
  'first_name',
  'last_name',
  'email',
  'jurisdiction',
  'fee_schedule',
  'base_fee_percent',
  'maker_factor',
  'taker_factor',
  'loyalty_tier',
  'created_at',
  'updated_at',
]);
const SPORT_EVENT_KEYS = keysOf<Omit<SportEventView, 'event_fee_percent'>>()([
  'event_id',
  'title',
  'short_title',
  'event_type',
  'sport',
  'competition',
  'participants',
  'start',
  'status',
  'started_at',
]);
const MARKET_KEYS = keysOf<MarketBaseView>()([
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
  'result',
  'settled_at',
  'last_traded_price',
  'created_at',
  'updated_at',
  'seq',
]);

/** Which fields of each event type hold a view, and the key list of that view's kind. */
const VIEW_FIELDS: Record<EngineEventType, Readonly<Record<string, readonly string[]>>> = {
  AccountOpened: { account: ACCOUNT_KEYS, balance: BALANCE_KEYS },
  AccountUpdated: { account: ACCOUNT_KEYS, balance: BALANCE_KEYS },
  SportEventScheduled: { event: SPORT_EVENT_KEYS },
  SportEventStarted: { event: SPORT_EVENT_KEYS },
  MarketListed: { market: MARKET_KEYS },
  MarketChanged: { market: MARKET_KEYS },
  OrderPlaced: { order: ORDER_KEYS },
  OrderChanged: { order: ORDER_KEYS },
  TradeExecuted: { provider: FILL_KEYS, taker: FILL_KEYS },
  FillChanged: { fill: FILL_KEYS },
  PositionChanged: { position: POSITION_KEYS },
  BalanceChanged: { balance: BALANCE_KEYS },
  LedgerEntryRecorded: { entry: LEDGER_ENTRY_KEYS },
  MarketSettled: {},
};

/** An event as stored in a v2 record: its own fields, with views as arrays of values. */
export type EncodedEngineEvent = { type: string } & Record<string, unknown>;

const NO_VIEWS: Readonly<Record<string, readonly string[]>> = {};
const viewFieldsOf = (type: string): Readonly<Record<string, readonly string[]>> =>
  Object.prototype.hasOwnProperty.call(VIEW_FIELDS, type) ? VIEW_FIELDS[type as EngineEventType] : NO_VIEWS;

/** Whether `view` has exactly `keys`, in that order, none of them undefined (no allocation). */
function hasExactKeys(view: unknown, keys: readonly string[]): view is Record<string, unknown> {
  if (view === null || typeof view !== 'object' || Array.isArray(view)) return false;
  let i = 0;
  for (const key in view) {
    // an undefined value: JSON would drop the key, an array would turn it into null
    if (key !== keys[i] || (view as Record<string, unknown>)[key] === undefined) return false;
    i++;
  }
  return i === keys.length;
}

/** The view whose values are `stored`, in the order of `keys`. */
function viewOf(stored: unknown[], keys: readonly string[], type: string, field: string): Record<string, unknown> {
  if (stored.length !== keys.length) {
    throw new Error(
      `engine journal: ${type}.${field} holds ${stored.length} values where ${keys.length} were expected`,
    );
  }
  const view: Record<string, unknown> = {};
  assignInKeyOrder(view, keys, stored, 0);
  return view;
}

/** A copy of `event` whose view fields went through `map` (with their kind's key list). */
function mapViews<From extends { type: string }, To>(
  event: From,
  map: (value: unknown, keys: readonly string[], type: string, field: string) => unknown,
): To {
  const fields = viewFieldsOf(event.type);
  const source = event as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const keys = fields[key];
    out[key] = keys ? map(source[key], keys, event.type, key) : source[key];
  }
  return out as To;
}

/** The view as an array of values, or the view itself when its keys are not exactly `keys`. */
function encodeView(view: unknown, keys: readonly string[]): unknown {
  return hasExactKeys(view, keys) ? valuesInKeyOrder(view, keys, 0) : view;
}

function decodeView(stored: unknown, keys: readonly string[], type: string, field: string): unknown {
  return Array.isArray(stored) ? viewOf(stored, keys, type, field) : stored;
}

export function encodeEvent(event: EngineEvent): EncodedEngineEvent {
  return mapViews<EngineEvent, EncodedEngineEvent>(event, encodeView);
}

export function decodeEvent(stored: EncodedEngineEvent): EngineEvent {
  return mapViews<EncodedEngineEvent, EngineEvent>(stored, decodeView);
}

export function encodeEvents(events: readonly EngineEvent[]): EncodedEngineEvent[] {
  return events.map(encodeEvent);
}

export function decodeEvents(stored: readonly EncodedEngineEvent[]): EngineEvent[] {
  return stored.map(decodeEvent);
}

// Delta encoding inside one `EngineSteps` record (record version 3). Views of one kind written in
// the same record look alike (the two fills of a trade, the balances of the accounts a step
// touched, the orders placed one after another), so a view is stored as the differences from the
// previous view of its kind in the same record: `{"~d": [index, value, index, value, ...]}` with
// indexes into the kind's key list. The first view of each kind in a record, and any view that
// differs in more than half of its fields, is stored whole (an array, as in version 2). Decoding
// walks the record's steps in order with the same context, so a record decodes on its own.

const DELTA_KEY = '~d';

/**
 * The previous view of each kind while a record is encoded (its stored values) or decoded (the
 * view); a context serves one direction only.
 */
export type DeltaContext = Map<readonly string[], unknown>;

export function newDeltaContext(): DeltaContext {
  return new Map();
}

function encodeViewDelta(
  view: unknown,
  keys: readonly string[],
  context: DeltaContext,
  read: (view: Record<string, unknown>) => unknown[] = (v) => valuesInKeyOrder(v, keys, 0),
): unknown {
  if (!hasExactKeys(view, keys)) return view;
  // the values read once; the encoder's context keeps them and the delta compares arrays
  const values = read(view);
  const previous = context.get(keys) as unknown[] | undefined;
  context.set(keys, values);
  if (previous) {
    let changed = 0;
    for (let i = 0; i < values.length; i++) if (changedValue(values[i], previous[i])) changed++;
    if (changed * 2 <= keys.length) {
      const changes = new Array<unknown>(changed * 2);
      let at = 0;
      for (let i = 0; i < values.length; i++) {
        if (changedValue(values[i], previous[i])) {
          changes[at++] = i;
          changes[at++] = values[i];
        }
      }
      return { [DELTA_KEY]: changes };
    }
  }
  return values;
}

/** Only primitives count as unchanged: a nested array or object is always written out. */
function changedValue(value: unknown, previous: unknown): boolean {
  return value !== previous || (value !== null && typeof value === 'object');
}

function decodeViewDelta(
  stored: unknown,
  keys: readonly string[],
  context: DeltaContext,
  type: string,
  field: string,
): unknown {
  let view: Record<string, unknown>;
  if (Array.isArray(stored)) {
    view = viewOf(stored, keys, type, field);
  } else if (
    stored !== null &&
    typeof stored === 'object' &&
    Array.isArray((stored as Record<string, unknown>)[DELTA_KEY])
  ) {
    const previous = context.get(keys) as Readonly<Record<string, unknown>> | undefined;
    if (!previous)
      throw new Error(`engine journal: ${type}.${field} is a delta with no earlier view of its kind in the record`);
    const changes = present((stored as Record<string, unknown[]>)[DELTA_KEY], 'checked an array above');
    view = { ...previous };
    for (let i = 0; i + 1 < changes.length; i += 2) {
      const index = changes[i];
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= keys.length) {
        throw new Error(`engine journal: ${type}.${field} delta index ${String(index)} is out of range`);
      }
      view[present(keys[index], 'index was checked in range above')] = changes[i + 1];
    }
  } else {
    return stored;
  }
  context.set(keys, view);
  return view;
}

/** Decodes one step's events; steps of a record must be decoded in order with one context. */
export function decodeEventsDelta(stored: readonly EncodedEngineEvent[], context: DeltaContext): EngineEvent[] {
  return stored.map((event) =>
    mapViews<EncodedEngineEvent, EngineEvent>(event, (view, keys, type, field) =>
      decodeViewDelta(view, keys, context, type, field),
    ),
  );
}

// Order requests inside a record's inputs (PlaceOrder, PlaceOrders) take the same delta encoding:
// an input is otherwise the largest part of a resting order's step.
const ORDER_REQUEST_KEYS = keysOf<OrderRequest>()([
  'order_id',
  'market_id',
  'action',
  'order_type',
  'price',
  'quantity',
  'client_order_id',
  'device_id',
  'ip_address',
  'expiration',
  'expiration_time',
  'cancel_on_disconnect',
]);

/** An order request's values in ORDER_REQUEST_KEYS order, read field by field (a unit test holds it to the list). */
export function orderRequestValues(view: Record<string, unknown>): unknown[] {
  const o = view as unknown as OrderRequest;
  return [
    o.order_id,
    o.market_id,
    o.action,
    o.order_type,
    o.price,
    o.quantity,
    o.client_order_id,
    o.device_id,
    o.ip_address,
    o.expiration,
    o.expiration_time,
    o.cancel_on_disconnect,
  ];
}

export { ORDER_REQUEST_KEYS };

/** The values of `order` that differ from `previous`'s (their indexes into ORDER_REQUEST_KEYS), noted in `changed`; how many. */
function requestChanges(order: OrderRequest, previous: OrderRequest, changed: Int8Array): number {
  let n = 0;
  if (changedValue(order.order_id, previous.order_id)) changed[n++] = 0;
  if (changedValue(order.market_id, previous.market_id)) changed[n++] = 1;
  if (changedValue(order.action, previous.action)) changed[n++] = 2;
  if (changedValue(order.order_type, previous.order_type)) changed[n++] = 3;
  if (changedValue(order.price, previous.price)) changed[n++] = 4;
  if (changedValue(order.quantity, previous.quantity)) changed[n++] = 5;
  if (changedValue(order.client_order_id, previous.client_order_id)) changed[n++] = 6;
  if (changedValue(order.device_id, previous.device_id)) changed[n++] = 7;
  if (changedValue(order.ip_address, previous.ip_address)) changed[n++] = 8;
  if (changedValue(order.expiration, previous.expiration)) changed[n++] = 9;
  if (changedValue(order.expiration_time, previous.expiration_time)) changed[n++] = 10;
  if (changedValue(order.cancel_on_disconnect, previous.cancel_on_disconnect)) changed[n++] = 11;
  return n;
}
const requestChanged = new Int8Array(ORDER_REQUEST_KEYS.length);

/**
 * One order request of a version 5 record: its values, or `{"~d": [index, value, ...]}` when at most
 * half of them differ from the previous request in the record (`context.request`, the object
 * itself, compared field by field: no array of its values unless it is written whole).
 */
export function encodeOrderRequestV5(order: OrderRequest, context: { request: OrderRequest | undefined }): unknown {
  if (!hasExactKeys(order, ORDER_REQUEST_KEYS)) return order;
  const previous = context.request;
  context.request = order;
  if (previous !== undefined) {
    const changed = requestChanges(order, previous, requestChanged);
    if (changed * 2 <= ORDER_REQUEST_KEYS.length) {
      const changes = new Array<unknown>(changed * 2);
      const values = order as unknown as Record<string, unknown>;
      for (let c = 0; c < changed; c++) {
        const index = present(requestChanged[c], 'c < changed, the count noted in requestChanged');
        changes[c * 2] = index;
        changes[c * 2 + 1] = values[present(ORDER_REQUEST_KEYS[index], 'requestChanges notes indexes of the key list')];
      }
      return { [DELTA_KEY]: changes };
    }
  }
  return orderRequestValues(order);
}

export function decodeOrderRequest(stored: unknown, context: DeltaContext, kind: string, field: string): OrderRequest {
  return decodeViewDelta(stored, ORDER_REQUEST_KEYS, context, kind, field) as OrderRequest;
}

/** Encodes a step's input against (and into) the record's delta context. */
export function encodeInputDelta(input: EngineInput, context: DeltaContext): EngineInput {
  if (input.kind === 'PlaceOrder')
    return {
      ...input,
      order: encodeViewDelta(input.order, ORDER_REQUEST_KEYS, context, orderRequestValues) as OrderRequest,
    };
  if (input.kind === 'PlaceOrders') {
    return {
      ...input,
      orders: input.orders.map(
        (order) => encodeViewDelta(order, ORDER_REQUEST_KEYS, context, orderRequestValues) as OrderRequest,
      ),
    };
  }
  return input;
}

export function decodeInputDelta(stored: EngineInput, context: DeltaContext): EngineInput {
  if (stored.kind === 'PlaceOrder') {
    return {
      ...stored,
      order: decodeViewDelta(stored.order, ORDER_REQUEST_KEYS, context, stored.kind, 'order') as OrderRequest,
    };
  }
  if (stored.kind === 'PlaceOrders' && Array.isArray(stored.orders)) {
    return {
      ...stored,
      orders: stored.orders.map(
        (order) => decodeViewDelta(order, ORDER_REQUEST_KEYS, context, stored.kind, 'orders') as OrderRequest,
      ),
    };
  }
  return stored;
}
