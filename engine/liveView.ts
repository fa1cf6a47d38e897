// The engine's published view of its live state (the gateway's LiveView): live orders, balances
// and positions as of the last durable batch, for reads that need not wait for the read models.
//
// Two halves, on either side of the journal:
//   - `stage` runs when a batch has been decided (the pipeline closes it), before the next batch
//     is decided: it takes what the batch's steps changed (the orders their facts name, the
//     accounts they touched) out of the state, as it stands after the batch, into a delta: a
//     frozen copy of each changed live order (rendered on first read), the balance and open
//     positions of each touched account rendered with the domain's own renderers. Its cost is
//     what the batch changed, never the state's size.
//   - `apply` runs when the batch's append has landed (the publisher, before it answers the
//     callers): the delta replaces the changed entries, and the view's position moves to the
//     journal's. Nothing decided but not yet durable is ever seen.
// The view is changed only by `apply` and `reset`, on the engine's thread, between turns of the
// event loop: a reader that reads it synchronously (as every reader does) reads one landed batch's
// state. The values it hands out (an order's view, a balance, a position) never change: a change
// publishes a new one. An account's live orders are kept in the order they were accepted, which
// is their journal place order (a new order's place is past every place before it), so a batch
// adds, replaces and removes them in O(1) each, and a listing walks them from the newest.

import { defined, present } from '../domain/assert.ts';
import { balanceView, orderView, positionView } from '../domain/readModel/render.ts';
import type { MarketRecord, PositionRecord } from '../domain/readModel/records.ts';
import { fundsFiguresOf } from '../domain/engine/funds.ts';
import {
  ORDER_SHARER,
  type AccountState,
  type EngineState,
  type OrderSharer,
  type OrderState,
} from '../domain/engine/state.ts';
import { abs, decimalOf, decimalText } from '../domain/money/decimal.ts';
import type { AccountStatus, BalanceView, OrderView, PositionView } from '../domain/views.ts';
import type { Batch } from './batch.ts';
import type { LiveAccount, LiveOrder, LiveOrders, LivePosition, LiveView, Place } from './gateway.ts';

/**
 * A live order as a batch left it, its REST view rendered on first read. It holds the engine's own
 * order object until the engine is about to change it (it is the order's sharer, state.ts
 * OrderSharer), and a copy of the order as it stood from then on: an order that rests unchanged
 * is never copied. Made when the batch is staged; its place among its account's orders is set when
 * the batch lands (`apply`), before any reader can see it. Its fields are what a resting order
 * costs the view, so the place is two numbers rather than a tuple.
 */
class PublishedOrder implements LiveOrder, OrderSharer {
  private rendered: Readonly<OrderView> | undefined = undefined;
  /** Who held the same object before this one, if anyone (told in turn: it takes its copy too). */
  private previous: OrderSharer | null = null;
  /**
   * Its place among its account's orders: its journal key (the position of the record that
   * accepted it, and the accepting fact's index among the record's facts), or, for an order whose
   * key is not known, a place before every key ([-1, n], in the order such orders came).
   */
  placePosition = -1n;
  placeIndex = -1;
  /** Whether the place is the order's journal key. */
  keyed = false;

  constructor(private record: Readonly<OrderState>) {}

  /** Publishes the engine's live `order` itself, as its sharer. */
  static sharing(order: OrderState): PublishedOrder {
    const published = new PublishedOrder(order);
    published.previous = order[ORDER_SHARER] ?? null;
    order[ORDER_SHARER] = published;
    return published;
  }

  orderChanging(order: OrderState): void {
    this.record = { ...order };
    const previous = this.previous;
    this.previous = null;
    previous?.orderChanging(order);
  }

  get id(): string {
    return this.record.id;
  }

  get accountId(): string {
    return this.record.accountId;
  }

  get key(): Place | null {
    return this.keyed ? [this.placePosition, this.placeIndex] : null;
  }

  /** Whether its place comes before `place`. */
  placedBefore(place: Place): boolean {
    return this.placePosition < place[0] || (this.placePosition === place[0] && this.placeIndex < place[1]);
  }

  /** Takes the place of the order it replaces in the view. */
  placedAs(before: PublishedOrder): void {
    this.placePosition = before.placePosition;
    this.placeIndex = before.placeIndex;
    this.keyed = before.keyed;
  }

  get view(): Readonly<OrderView> {
    return (this.rendered ??= Object.freeze(orderView(this.record)));
  }
}

const byPlace = (a: PublishedOrder, b: PublishedOrder): number =>
  a.placePosition < b.placePosition ? -1 : a.placePosition > b.placePosition ? 1 : a.placeIndex - b.placeIndex;

type StagedAccount = Omit<LiveAccount, 'orders' | 'unkeyedOrders'>;

/** What one batch changed of the view, taken when it was decided; applied once it is durable. */
export interface ViewDelta {
  /** Each changed order still live, once, in the order the batch's facts first name them. */
  orders: PublishedOrder[];
  /**
   * For each of `orders`, two numbers: when the batch accepted it, the index of its record among
   * the batch's records and the index of the accepting fact among that record's facts; -1, -1
   * when it was accepted earlier.
   */
  created: number[];
  /** The orders the batch ended (no longer live), and beside each, its account. */
  ended: string[];
  endedAccounts: string[];
  accounts: Map<string, StagedAccount>;
  /** The engine seq of the state it was taken from (the batch's last step). */
  seq: number;
}

type PositionMarket = Pick<MarketRecord, 'eventId' | 'maxPriceCents' | 'maxPrice'>;

/**
 * A published open position: its sort key taken when staged, its view rendered on first read
 * from a copy of the exposure's fields (its amounts are immutable values, so the copy is the
 * position as staged).
 */
class PublishedPosition implements LivePosition {
  readonly contractsNanos: number;
  private rendered: Readonly<PositionView> | undefined;
  private contractsText: string | undefined;

  constructor(
    readonly marketId: string,
    private readonly exposure: Readonly<PositionRecord>,
    private readonly market: Readonly<PositionMarket>,
    private readonly seq: number,
  ) {
    this.contractsNanos = Math.abs(exposure.positionNanos);
  }

  get view(): Readonly<PositionView> {
    return (this.rendered ??= Object.freeze(positionView(this.exposure, this.market, this.seq)));
  }

  /** The read model's `contracts` column: |position| as decimal text (projections/core/slices/positions.ts). */
  get contracts(): string {
    return (this.contractsText ??= decimalText(abs(decimalOf(this.view.position))));
  }
}

/** An account's balance and open positions as staged; the balance rendered on first read from a copy of the account's fields. */
class StagedAccountState implements StagedAccount {
  private rendered: Readonly<BalanceView> | undefined;

  constructor(
    readonly id: string,
    readonly userId: string,
    readonly status: AccountStatus,
    /** The account's fields as staged (its totals copied too: they change in place). */
    private readonly record: Readonly<AccountState>,
    private readonly seq: number,
    readonly positions: readonly LivePosition[],
  ) {}

  get balance(): Readonly<BalanceView> {
    return (this.rendered ??= Object.freeze(balanceView(this.record, fundsFiguresOf(this.record), this.seq)));
  }
}

/**
 * An account's live orders in the published view, oldest place first (the order they were
 * accepted in; after a reset, sorted by place, those without a key first).
 */
class AccountOrders implements LiveOrders {
  private readonly byId = new Map<string, PublishedOrder>();

  get size(): number {
    return this.byId.size;
  }

  get(orderId: string): PublishedOrder | undefined {
    return this.byId.get(orderId);
  }

  /** Adds an order at the newest end, or replaces the one with its id where it stands. */
  put(order: PublishedOrder): void {
    this.byId.set(order.id, order);
  }

  remove(orderId: string): PublishedOrder | undefined {
    const order = this.byId.get(orderId);
    if (order) this.byId.delete(orderId);
    return order;
  }

  /** Every order, oldest place first. */
  values(): IterableIterator<PublishedOrder> {
    return this.byId.values();
  }

  newestFirst(before: Place | null, visit: (order: LiveOrder) => boolean): void {
    const orders = [...this.byId.values()];
    for (let i = orders.length - 1; i >= 0; i--) {
      const order = present(orders[i], 'i < orders.length');
      if (before !== null && !order.placedBefore(before)) continue;
      if (!visit(order)) return;
    }
  }
}

/** A published account: its balance and positions as the last landed batch staged them, and its live orders. */
class PublishedAccount implements LiveAccount {
  readonly orders = new AccountOrders();
  /** How many of `orders` have no key. */
  unkeyedOrders = 0;

  constructor(public staged: StagedAccount) {}

  get id(): string {
    return this.staged.id;
  }

  get userId(): string {
    return this.staged.userId;
  }

  get status(): AccountStatus {
    return this.staged.status;
  }

  get balance(): Readonly<BalanceView> {
    return this.staged.balance;
  }

  get positions(): readonly LivePosition[] {
    return this.staged.positions;
  }

  put(order: PublishedOrder, unkeyed: boolean): void {
    this.orders.put(order);
    if (unkeyed) this.unkeyedOrders++;
  }

  remove(orderId: string): void {
    const order = this.orders.remove(orderId);
    if (order && !order.keyed) this.unkeyedOrders--;
  }
}

const byContractsThenMarket = (a: PublishedPosition, b: PublishedPosition): number =>
  b.contractsNanos - a.contractsNanos || (a.marketId < b.marketId ? -1 : a.marketId > b.marketId ? 1 : 0);

/** An account's balance and open positions as the state holds them now (copied; rendered when first read). */
function stageAccount(state: EngineState, accountId: string): StagedAccount | undefined {
  const account = state.accounts.get(accountId);
  if (!account) return undefined;
  const positions: PublishedPosition[] = [];
  for (const exposure of account.exposures.values()) {
    if (exposure.positionNanos === 0) continue;
    const market = state.markets.get(exposure.marketId);
    if (!market) continue;
    // the market's fields a position is rendered with (its event, its maximum price) never change
    positions.push(new PublishedPosition(exposure.marketId, { ...exposure }, market, state.seq));
  }
  if (positions.length > 1) positions.sort(byContractsThenMarket);
  const record = { ...account, totals: { ...account.totals } };
  return new StagedAccountState(account.id, account.userId, account.status, record, state.seq, positions);
}

/**
 * What the batch's journaled steps changed, taken from the state as the batch leaves it: the
 * orders their facts name (each accepted order with its place in its record, counted as the
 * read models count it: the facts of the record's earlier steps, then the fact's index in its
 * step) and the accounts they touched.
 */
export function stage(batch: Batch, state: EngineState): ViewDelta {
  // each order the facts name, once: -1, accepted earlier; else k, accepted by the batch at the
  // record accepted[2k] and the fact index accepted[2k + 1] among that record's facts
  const named = new Map<string, number>();
  const accepted: number[] = [];
  const name = (orderId: string) => {
    if (!named.has(orderId)) named.set(orderId, -1);
  };
  const accountIds = new Set<string>();
  for (const item of batch.answered) {
    if (item.record === null) continue;
    const events = item.reply.events;
    for (let i = 0; i < events.length; i++) {
      const event = present(events[i], 'i < events.length');
      switch (event.type) {
        case 'OrderAccepted':
          named.set(event.order_id, accepted.length / 2);
          accepted.push(item.record, item.base + i);
          break;
        case 'OrderReleased':
        case 'OrderCancelled':
          name(event.order_id);
          break;
        case 'Traded':
          name(event.maker_order_id);
          name(event.taker_order_id);
          break;
        default:
          break;
      }
    }
    if (item.accounts) for (const accountId of item.accounts) accountIds.add(accountId);
  }
  const delta: ViewDelta = {
    orders: [],
    created: [],
    ended: [],
    endedAccounts: [],
    accounts: new Map(),
    seq: state.seq,
  };
  for (const [id, k] of named) {
    const order = state.orders.get(id);
    if (!order) {
      delta.ended.push(id);
      // its account, as the engine keeps every finished order's ("": not known, apply looks it up)
      delta.endedAccounts.push(state.finishedOrders.get(id) ?? '');
    } else {
      delta.orders.push(PublishedOrder.sharing(order));
      if (k < 0) delta.created.push(-1, -1);
      else
        delta.created.push(
          defined(accepted[2 * k], 'k < accepted.length / 2'),
          defined(accepted[2 * k + 1], 'k < accepted.length / 2'),
        );
    }
  }
  for (const accountId of accountIds) {
    const staged = stageAccount(state, accountId);
    if (staged) delta.accounts.set(accountId, staged);
  }
  return delta;
}

/** The published view: changed only by `apply` and `reset`, on the engine's thread, between reads. */
export class PublishedView implements LiveView {
  private at: bigint;
  private atSeq = 0;
  private readonly accounts = new Map<string, PublishedAccount>();
  /** Places handed to orders without a key: below every key (record positions are >= 0), in the order they came. */
  private unkeyedPlaces = 0;

  constructor(state: EngineState, position: bigint, places?: ReadonlyMap<string, Place>) {
    this.at = position;
    this.reset(state, position, places);
  }

  get position(): bigint {
    return this.at;
  }

  get seq(): number {
    return this.atSeq;
  }

  account(accountId: string): LiveAccount | undefined {
    return this.accounts.get(accountId);
  }

  order(accountId: string, orderId: string): LiveOrder | undefined {
    return this.accounts.get(accountId)?.orders.get(orderId);
  }

  /** Places `order` before every key, after the orders without a key placed so far. */
  private placeUnkeyed(order: PublishedOrder): void {
    order.placePosition = -1n;
    order.placeIndex = this.unkeyedPlaces++;
    order.keyed = false;
  }

  /**
   * The whole state, after a recovery, with the journal places recovery knows (`places`: from
   * the snapshot and the replayed tail); a live order without one has no key. Costs the state's
   * size; only at a start or a reload.
   */
  reset(state: EngineState, position: bigint, places?: ReadonlyMap<string, Place>): void {
    this.accounts.clear();
    for (const accountId of state.accounts.keys()) {
      const staged = stageAccount(state, accountId);
      if (staged) this.accounts.set(accountId, new PublishedAccount(staged));
    }
    const published: PublishedOrder[] = [];
    for (const order of state.orders.values()) {
      const key = places?.get(order.id);
      const live = PublishedOrder.sharing(order);
      if (key) {
        live.placePosition = key[0];
        live.placeIndex = key[1];
        live.keyed = true;
      } else this.placeUnkeyed(live);
      published.push(live);
    }
    published.sort(byPlace);
    for (const order of published) this.accounts.get(order.accountId)?.put(order, !order.keyed);
    this.at = position;
    this.atSeq = state.seq;
  }

  /** The journal places of the live orders that have one (what a snapshot keeps). */
  places(): Map<string, Place> {
    const places = new Map<string, Place>();
    for (const account of this.accounts.values())
      for (const order of account.orders.values())
        if (order.keyed) places.set(order.id, [order.placePosition, order.placeIndex]);
    return places;
  }

  /**
   * Publishes a landed batch's delta. `recordPositions` are the global positions of the batch's
   * records (null when the store does not tell each record's: new orders then have no key). It
   * runs after the batch's append landed and before its callers are answered, so nothing in it
   * throws on what it finds: an order whose account it does not hold is left unpublished (the read
   * models answer for it), an ended order whose account is not known is looked for in every account.
   */
  apply(delta: ViewDelta, recordPositions: readonly bigint[] | null, position: bigint): void {
    for (const [accountId, staged] of delta.accounts) {
      const account = this.accounts.get(accountId);
      if (account) account.staged = staged;
      else this.accounts.set(accountId, new PublishedAccount(staged));
    }
    // an order accepted and ended within the batch was never published: nothing to remove
    for (let i = 0; i < delta.ended.length; i++) {
      const id = defined(delta.ended[i], 'i < ended.length');
      const account = this.accounts.get(defined(delta.endedAccounts[i], 'an account beside each ended order'));
      if (account) account.remove(id);
      else for (const any of this.accounts.values()) if (any.orders.get(id)) any.remove(id);
    }
    for (let i = 0; i < delta.orders.length; i++) {
      const order = present(delta.orders[i], 'i < orders.length');
      const createdRecord = defined(delta.created[2 * i], 'two numbers per order');
      // (an order's account is published with the batch that accepted it, or by a reset)
      const account = this.accounts.get(order.accountId);
      if (!account) continue;
      // an order the batch accepted was not published before it (order ids are never reused)
      const before = createdRecord < 0 ? account.orders.get(order.id) : undefined;
      const recordPosition = createdRecord >= 0 && recordPositions ? recordPositions[createdRecord] : undefined;
      if (before) order.placedAs(before);
      else if (recordPosition !== undefined) {
        order.placePosition = recordPosition;
        order.placeIndex = defined(delta.created[2 * i + 1], 'two numbers per order');
        order.keyed = true;
      } else this.placeUnkeyed(order);
      account.put(order, !before && !order.keyed);
    }
    if (position > this.at) this.at = position;
    if (delta.seq > this.atSeq) this.atSeq = delta.seq;
  }
}
