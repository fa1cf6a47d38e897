// One step's working set: the input's sequence and time, deterministic id counters, and what the
// step changed. Snapshots (views) are built once per changed entity when the step ends, which
// keeps events lean: an order filled three times in one step is reported once.

import type { EngineEvent } from './events.ts';
import { engineId, type IdKind } from './ids.ts';
import type { AccountState, EngineState, Exposure, FillState, MarketState, OrderState } from './state.ts';

export class StepContext {
  private counter = 0;
  readonly lifecycle: EngineEvent[] = [];
  readonly placedOrders = new Set<OrderState>();
  readonly changedOrders = new Set<OrderState>();
  readonly trades: EngineEvent[] = [];
  readonly changedFills = new Set<FillState>();
  readonly ledger: EngineEvent[] = [];
  readonly changedPositions = new Set<Exposure>();
  readonly changedBalances = new Set<AccountState>();
  readonly changedMarkets = new Set<MarketState>();
  readonly settled: EngineEvent[] = [];

  constructor(readonly state: EngineState, readonly seq: number, readonly now: number) {}

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
