// One step's working set: the input's sequence and time, deterministic id counters, the facts
// the step produced (in the order things happened) and the entities it changed (for the funds
// statement at the end of the step and for the answer to the caller).

import type { LedgerEntryRecord } from '../readModel/records.ts';
import type { EngineEvent } from './events.ts';
import { engineId, type IdKind } from './ids.ts';
import {
  releaseShared,
  type AccountState,
  type EngineState,
  type Exposure,
  type FillState,
  type MarketState,
  type OrderState,
  type SportEventState,
} from './state.ts';

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
  /** What happened, in order (handed over whole at the end of the step: takeFacts). */
  facts: EngineEvent[] = [];
  readonly changedAccounts = new ChangeSet<AccountState>();
  readonly changedEvents = new ChangeSet<SportEventState>();
  readonly changedFills = new ChangeSet<FillState>();
  readonly changedBalances = new ChangeSet<AccountState>();
  readonly changedMarkets = new ChangeSet<MarketState>();
  /** Ledger entries recorded, in order (the caller's answer). */
  readonly entries: LedgerEntryRecord[] = [];
  private ordersChanged = 0;

  constructor(
    public state: EngineState,
    public seq: number,
    public now: number,
  ) {}

  /**
   * Starts another step on this context: the engine reuses one context for all its steps, so the
   * lists are emptied rather than allocated anew for every input.
   */
  begin(state: EngineState, seq: number, now: number): void {
    this.state = state;
    this.seq = seq;
    this.now = now;
    this.counter = 0;
    this.facts.length = 0;
    this.changedAccounts.clear();
    this.changedEvents.clear();
    this.changedFills.clear();
    this.changedBalances.clear();
    this.changedMarkets.clear();
    this.entries.length = 0;
    this.ordersChanged = 0;
  }

  nextId(kind: IdKind): string {
    return engineId(this.seq, kind, this.counter++);
  }

  /** The step's facts, for its outcome; the context starts a fresh list (no copy of this one). */
  takeFacts(): EngineEvent[] {
    const facts = this.facts;
    this.facts = [];
    return facts;
  }

  emit(fact: EngineEvent): void {
    this.facts.push(fact);
  }

  /**
   * The step changes `order`: called before its first change in the step (a reader sharing the
   * object keeps its copy of the order as it stood; state.ts releaseShared), and again after.
   */
  orderChanged(order: OrderState): void {
    releaseShared(order);
    order.seq = this.seq;
    this.ordersChanged++;
  }

  fillChanged(fill: FillState): void {
    fill.seq = this.seq;
    fill.updatedAt = this.now;
    this.changedFills.add(fill);
  }

  positionChanged(exposure: Exposure): void {
    exposure.updatedAt = this.now;
  }

  balanceChanged(account: AccountState): void {
    this.changedBalances.add(account);
  }

  accountChanged(account: AccountState): void {
    account.updatedAt = this.now;
    this.changedAccounts.add(account);
  }

  eventChanged(event: SportEventState): void {
    this.changedEvents.add(event);
  }

  marketChanged(market: MarketState): void {
    market.seq = this.seq;
    market.updatedAt = this.now;
    this.changedMarkets.add(market);
  }

  get touchedAnything(): boolean {
    return (
      this.facts.length +
        this.ordersChanged +
        this.changedFills.size +
        this.changedBalances.size +
        this.changedMarkets.size +
        this.changedAccounts.size +
        this.changedEvents.size >
      0
    );
  }
}
