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
// Readers get immutable values: a published account or order is never changed; a change
// publishes a new one (an account's live orders are a persistent tree, orderTree.ts: a change
// copies O(log n) of it).

import { present } from '../domain/assert.ts';
import { balanceView, orderView, positionView } from '../domain/readModel/render.ts';
import type { MarketRecord, OrderRecord, PositionRecord } from '../domain/readModel/records.ts';
import { fundsFiguresOf } from '../domain/engine/funds.ts';
import type { AccountState, EngineState } from '../domain/engine/state.ts';
import { abs, decimalOf, decimalText } from '../domain/money/decimal.ts';
import type { AccountStatus, BalanceView, OrderView, PositionView } from '../domain/views.ts';
import type { Batch } from './batch.ts';
import type { LiveAccount, LiveOrder, LivePosition, LiveView } from './gateway.ts';
import { PlaceTree, type Place, type PlaceChange } from './orderTree.ts';

class PublishedOrder implements LiveOrder {
  private rendered: Readonly<OrderView> | undefined;

  constructor(
    readonly id: string,
    readonly accountId: string,
    readonly key: Place | null,
    /** Where it sits in its account's tree: its key, or for an order without one a place before every key. */
    readonly place: Place,
    private readonly record: Readonly<OrderRecord>,
  ) {}

  get view(): Readonly<OrderView> {
    return (this.rendered ??= Object.freeze(orderView(this.record)));
  }
}

/** A changed order as its batch left it: its record (null: no longer live) and, when the batch accepted it, where. */
interface StagedOrder {
  id: string;
  record: Readonly<OrderRecord> | null;
  /** Index of the record in the batch's records, and of the accepting fact among that record's facts. */
  created: { record: number; index: number } | null;
}

type StagedAccount = Omit<LiveAccount, 'orders' | 'unkeyedOrders'>;

/** What one batch changed of the view, taken when it was decided; applied once it is durable. */
export interface ViewDelta {
  /** Each changed order once. */
  orders: StagedOrder[];
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

/** A published account: its balance and positions as staged, and its live orders. */
class PublishedAccount implements LiveAccount {
  constructor(
    readonly staged: StagedAccount,
    readonly orders: PlaceTree<LiveOrder>,
    readonly unkeyedOrders: number,
  ) {}

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
    const { eventId, maxPriceCents, maxPrice } = market;
    positions.push(
      new PublishedPosition(exposure.marketId, { ...exposure }, { eventId, maxPriceCents, maxPrice }, state.seq),
    );
  }
  positions.sort(byContractsThenMarket);
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
  // each order the facts name, once, with where the batch accepted it (null: accepted earlier)
  const named = new Map<string, { record: number; index: number } | null>();
  const name = (orderId: string) => {
    if (!named.has(orderId)) named.set(orderId, null);
  };
  const accountIds = new Set<string>();
  for (const item of batch.answered) {
    if (item.record === null) continue;
    const events = item.reply.events;
    for (let i = 0; i < events.length; i++) {
      const event = present(events[i], 'i < events.length');
      switch (event.type) {
        case 'OrderAccepted':
          named.set(event.order_id, { record: item.record, index: item.base + i });
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
  const delta: ViewDelta = { orders: [], accounts: new Map(), seq: state.seq };
  for (const [id, created] of named) {
    const order = state.orders.get(id);
    delta.orders.push({ id, record: order ? { ...order } : null, created });
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
  private readonly orders = new Map<string, PublishedOrder>();
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

  order(orderId: string): LiveOrder | undefined {
    return this.orders.get(orderId);
  }

  private unkeyedPlace(): Place {
    return [-1n, this.unkeyedPlaces++];
  }

  /**
   * The whole state, after a recovery, with the journal places recovery knows (`places`: from
   * the snapshot and the replayed tail); a live order without one has no key. Costs the state's
   * size; only at a start or a reload.
   */
  reset(state: EngineState, position: bigint, places?: ReadonlyMap<string, Place>): void {
    this.accounts.clear();
    this.orders.clear();
    const ordersOf = new Map<string, Array<PlaceChange<LiveOrder>>>();
    const unkeyedOf = new Map<string, number>();
    for (const order of state.orders.values()) {
      const key = places?.get(order.id) ?? null;
      if (key === null) unkeyedOf.set(order.accountId, (unkeyedOf.get(order.accountId) ?? 0) + 1);
      const published = new PublishedOrder(order.id, order.accountId, key, key ?? this.unkeyedPlace(), { ...order });
      this.orders.set(order.id, published);
      let list = ordersOf.get(order.accountId);
      if (!list) ordersOf.set(order.accountId, (list = []));
      list.push({ place: published.place, value: published });
    }
    for (const accountId of state.accounts.keys()) {
      const staged = stageAccount(state, accountId);
      if (!staged) continue;
      const orders = PlaceTree.empty<LiveOrder>().withChanges(ordersOf.get(accountId) ?? []);
      this.accounts.set(accountId, new PublishedAccount(staged, orders, unkeyedOf.get(accountId) ?? 0));
    }
    this.at = position;
    this.atSeq = state.seq;
  }

  /** The journal places of the live orders that have one (what a snapshot keeps). */
  places(): Map<string, Place> {
    const places = new Map<string, Place>();
    for (const order of this.orders.values()) if (order.key) places.set(order.id, order.key);
    return places;
  }

  /**
   * Publishes a landed batch's delta. `recordPositions` are the global positions of the batch's
   * records (null when the store does not tell each record's: new orders then have no key).
   */
  apply(delta: ViewDelta, recordPositions: readonly bigint[] | null, position: bigint): void {
    const edited = new Map<string, OrderEdits>();
    const editsOf = (accountId: string): OrderEdits => {
      let edits = edited.get(accountId);
      if (!edits) edited.set(accountId, (edits = { changes: [], unkeyed: 0 }));
      return edits;
    };
    for (const staged of delta.orders) {
      // an order the batch accepted was not published before it (order ids are never reused)
      const before = staged.created ? undefined : this.orders.get(staged.id);
      if (staged.record === null) {
        if (!before) continue; // accepted and ended within the batch
        this.orders.delete(staged.id);
        const edits = editsOf(before.accountId);
        edits.changes.push({ place: before.place, value: null });
        if (before.key === null) edits.unkeyed--;
        continue;
      }
      let key = before ? before.key : null;
      if (!before && staged.created && recordPositions) {
        const recordPosition = recordPositions[staged.created.record];
        if (recordPosition !== undefined) key = [recordPosition, staged.created.index];
      }
      const place = before ? before.place : (key ?? this.unkeyedPlace());
      const published = new PublishedOrder(staged.id, staged.record.accountId, key, place, staged.record);
      this.orders.set(staged.id, published);
      const edits = editsOf(published.accountId);
      edits.changes.push({ place, value: published });
      if (!before && key === null) edits.unkeyed++;
    }
    for (const [accountId, staged] of delta.accounts) {
      const before = this.accounts.get(accountId);
      const edits = edited.get(accountId);
      edited.delete(accountId);
      this.accounts.set(
        accountId,
        accountWith(staged, before?.orders ?? PlaceTree.empty<LiveOrder>(), before?.unkeyedOrders ?? 0, edits),
      );
    }
    // orders of accounts whose balance the batch did not restate
    for (const [accountId, edits] of edited) {
      const before = this.accounts.get(accountId);
      if (!before) continue;
      this.accounts.set(accountId, accountWith(before.staged, before.orders, before.unkeyedOrders, edits));
    }
    if (position > this.at) this.at = position;
    if (delta.seq > this.atSeq) this.atSeq = delta.seq;
  }
}

/** A batch's changes to one account's live orders: the tree edits, and how many unkeyed orders it adds (less those it ends). */
interface OrderEdits {
  changes: Array<PlaceChange<LiveOrder>>;
  unkeyed: number;
}

/** An account as staged, with its live orders and the batch's `edits` applied to them. */
function accountWith(
  staged: StagedAccount,
  orders: PlaceTree<LiveOrder>,
  unkeyedOrders: number,
  edits: OrderEdits | undefined,
): PublishedAccount {
  if (!edits) return new PublishedAccount(staged, orders, unkeyedOrders);
  return new PublishedAccount(staged, orders.withChanges(edits.changes), unkeyedOrders + edits.unkeyed);
}
