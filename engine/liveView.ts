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

import { balanceView, orderView, positionView } from '../domain/readModel/render.ts';
import type { OrderRecord } from '../domain/readModel/records.ts';
import { fundsFiguresOf } from '../domain/engine/funds.ts';
import type { EngineState } from '../domain/engine/state.ts';
import { abs, decimalOf, decimalText } from '../domain/money/decimal.ts';
import type { OrderView } from '../domain/views.ts';
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

/** What one batch changed of the view, rendered when it was decided; applied once it is durable. */
export interface ViewDelta {
  orders: Map<string, StagedOrder>;
  accounts: Map<string, StagedAccount>;
  /** The engine seq of the state it was taken from (the batch's last step). */
  seq: number;
}

const byContractsThenMarket = (a: LivePosition, b: LivePosition): number =>
  b.contractsNanos - a.contractsNanos ||
  (a.view.market_id < b.view.market_id ? -1 : a.view.market_id > b.view.market_id ? 1 : 0);

/** An account's balance and open positions as the state holds them now. */
function stageAccount(state: EngineState, accountId: string): StagedAccount | undefined {
  const account = state.accounts.get(accountId);
  if (!account) return undefined;
  const positions: LivePosition[] = [];
  for (const exposure of account.exposures.values()) {
    if (exposure.positionNanos === 0) continue;
    const market = state.markets.get(exposure.marketId);
    if (!market) continue;
    const view = Object.freeze(positionView(exposure, market, state.seq));
    // the read model's `contracts` column: |position| as decimal text (projections/core/slices/positions.ts)
    positions.push(
      Object.freeze({
        view,
        contracts: decimalText(abs(decimalOf(view.position))),
        contractsNanos: Math.abs(exposure.positionNanos),
      }),
    );
  }
  positions.sort(byContractsThenMarket);
  return {
    id: account.id,
    userId: account.userId,
    status: account.status,
    balance: Object.freeze(balanceView(account, fundsFiguresOf(account), state.seq)),
    positions: Object.freeze(positions),
  };
}

/**
 * What the batch's journaled steps changed, taken from the state as the batch leaves it: the
 * orders their facts name (each accepted order with its place in its record, counted as the
 * read models count it: the facts of the record's earlier steps, then the fact's index in its
 * step) and the accounts they touched.
 */
export function stage(batch: Batch, state: EngineState): ViewDelta {
  const created = new Map<string, { record: number; index: number }>();
  const orderIds = new Set<string>();
  const accountIds = new Set<string>();
  for (const item of batch.answered) {
    if (item.record === null) continue;
    const events = item.reply.events;
    for (let i = 0; i < events.length; i++) {
      const event = events[i]!; // i < events.length
      switch (event.type) {
        case 'OrderAccepted':
          created.set(event.order_id, { record: item.record, index: item.base + i });
          orderIds.add(event.order_id);
          break;
        case 'OrderReleased':
        case 'OrderCancelled':
          orderIds.add(event.order_id);
          break;
        case 'Traded':
          orderIds.add(event.maker_order_id).add(event.taker_order_id);
          break;
        default:
          break;
      }
    }
    if (item.accounts) for (const accountId of item.accounts) accountIds.add(accountId);
  }
  const delta: ViewDelta = { orders: new Map(), accounts: new Map(), seq: state.seq };
  for (const id of orderIds) {
    const order = state.orders.get(id);
    delta.orders.set(id, { id, record: order ? Object.freeze({ ...order }) : null, created: created.get(id) ?? null });
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
  private readonly accounts = new Map<string, LiveAccount>();
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
      const published = new PublishedOrder(
        order.id,
        order.accountId,
        key,
        key ?? this.unkeyedPlace(),
        Object.freeze({ ...order }),
      );
      this.orders.set(order.id, published);
      let list = ordersOf.get(order.accountId);
      if (!list) ordersOf.set(order.accountId, (list = []));
      list.push({ place: published.place, value: published });
    }
    for (const accountId of state.accounts.keys()) {
      const staged = stageAccount(state, accountId);
      if (!staged) continue;
      const orders = PlaceTree.empty<LiveOrder>().withChanges(ordersOf.get(accountId) ?? []);
      this.accounts.set(accountId, Object.freeze({ ...staged, orders, unkeyedOrders: unkeyedOf.get(accountId) ?? 0 }));
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
    const changedOrders = new Map<
      string,
      Array<{ before: PublishedOrder | undefined; after: PublishedOrder | null }>
    >();
    const changesOf = (accountId: string) => {
      let changes = changedOrders.get(accountId);
      if (!changes) changedOrders.set(accountId, (changes = []));
      return changes;
    };
    for (const staged of delta.orders.values()) {
      const before = this.orders.get(staged.id);
      if (staged.record === null) {
        if (!before) continue; // accepted and ended within the batch
        this.orders.delete(staged.id);
        changesOf(before.accountId).push({ before, after: null });
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
      changesOf(published.accountId).push({ before, after: published });
    }
    for (const [accountId, staged] of delta.accounts) {
      const before = this.accounts.get(accountId);
      const changes = changedOrders.get(accountId);
      changedOrders.delete(accountId);
      const orders = (before?.orders as PlaceTree<LiveOrder> | undefined) ?? PlaceTree.empty<LiveOrder>();
      this.accounts.set(
        accountId,
        Object.freeze({ ...staged, ...ordersWith(orders, before?.unkeyedOrders ?? 0, changes) }),
      );
    }
    // orders of accounts whose balance the batch did not restate
    for (const [accountId, changes] of changedOrders) {
      const before = this.accounts.get(accountId);
      if (!before) continue;
      this.accounts.set(
        accountId,
        Object.freeze({
          ...before,
          ...ordersWith(before.orders as PlaceTree<LiveOrder>, before.unkeyedOrders, changes),
        }),
      );
    }
    if (position > this.at) this.at = position;
    if (delta.seq > this.atSeq) this.atSeq = delta.seq;
  }
}

/** An account's live orders with `changes` applied (after null: ended). */
function ordersWith(
  orders: PlaceTree<LiveOrder>,
  unkeyedOrders: number,
  changes: ReadonlyArray<{ before: PublishedOrder | undefined; after: PublishedOrder | null }> | undefined,
): { orders: PlaceTree<LiveOrder>; unkeyedOrders: number } {
  if (!changes) return { orders, unkeyedOrders };
  const edits: Array<PlaceChange<LiveOrder>> = [];
  let unkeyed = unkeyedOrders;
  for (const { before, after } of changes) {
    if (after === null) {
      if (!before) continue;
      edits.push({ place: before.place, value: null });
      if (before.key === null) unkeyed--;
      continue;
    }
    edits.push({ place: after.place, value: after });
    if (!before && after.key === null) unkeyed++;
  }
  return { orders: orders.withChanges(edits), unkeyedOrders: unkeyed };
}
