// One step's working set: the input's sequence and time, deterministic id counters, and what the
// step changed. Snapshots (views) are built once per changed entity when the step ends, which
// keeps events lean: an order filled three times in one step is reported once.

import type { EngineEvent } from './events.ts';
import { engineId, type IdKind } from './ids.ts';
import type { AccountState, EngineState, Exposure, FillState, MarketState, OrderState } from './state.ts';

/**
 * The entities of one kind a step changed, in first-change order, each once. Most steps change
 * one or two of each kind: membership is a scan of the list until it grows long enough for an
 * index to pay (a Set per kind and step would cost more than the scans it saves).
 */
export class ChangeSet<T extends object> {
  readonly items: T[] = [];
  private index: Set<T> | null = null;

  get size(): number {
    return this.items.length;
  }

  has(item: T): boolean {
    if (this.index) return this.index.has(item);
    const items = this.items;
    for (let i = 0; i < items.length; i++) if (items[i] === item) return true;
    return false;
  }

  clear(): void {
    this.items.length = 0;
    this.index = null;
  }

  add(item: T): void {
    if (this.has(item)) return;
    this.items.push(item);
    if (this.index) this.index.add(item);
    else if (this.items.length > CHANGE_SET_SCAN_MAX) this.index = new Set(this.items);
  }
}

const CHANGE_SET_SCAN_MAX = 8;

export class StepContext {
  private counter = 0;
  readonly lifecycle: EngineEvent[] = [];
  readonly placedOrders = new ChangeSet<OrderState>();
  readonly changedOrders = new ChangeSet<OrderState>();
  readonly trades: EngineEvent[] = [];
  readonly changedFills = new ChangeSet<FillState>();
  readonly ledger: EngineEvent[] = [];
  readonly changedPositions = new ChangeSet<Exposure>();
  readonly changedBalances = new ChangeSet<AccountState>();
  readonly changedMarkets = new ChangeSet<MarketState>();
  readonly settled: EngineEvent[] = [];

  constructor(public state: EngineState, public seq: number, public now: number) {}

  /**
   * Starts another step on this context: the engine reuses one context for all its steps, so the
   * lists are emptied rather than allocated anew for every input.
   */
  begin(state: EngineState, seq: number, now: number): void {
    this.state = state;
    this.seq = seq;
    this.now = now;
    this.counter = 0;
    this.lifecycle.length = 0;
    this.placedOrders.clear();
    this.changedOrders.clear();
    this.trades.length = 0;
    this.changedFills.clear();
    this.ledger.length = 0;
    this.changedPositions.clear();
    this.changedBalances.clear();
    this.changedMarkets.clear();
    this.settled.length = 0;
  }

  nextId(kind: IdKind): string {
    return engineId(this.seq, kind, this.counter++);
  }

  orderChanged(order: OrderState): void {
    order.seq = this.seq;
    if (!this.placedOrders.has(order)) this.changedOrders.add(order);
  }

  fillChanged(fill: FillState): void {
    fill.seq = this.seq;
    fill.updatedAt = this.now;
    this.changedFills.add(fill);
  }

  positionChanged(exposure: Exposure): void {
    exposure.updatedAt = this.now;
    this.changedPositions.add(exposure);
  }

  balanceChanged(account: AccountState): void {
    this.changedBalances.add(account);
  }

  marketChanged(market: MarketState): void {
    market.seq = this.seq;
    market.updatedAt = this.now;
    this.changedMarkets.add(market);
  }

  get touchedAnything(): boolean {
    return this.lifecycle.length + this.placedOrders.size + this.changedOrders.size + this.trades.length
      + this.changedFills.size + this.ledger.length + this.changedPositions.size + this.changedBalances.size
      + this.changedMarkets.size + this.settled.length > 0;
  }
}
