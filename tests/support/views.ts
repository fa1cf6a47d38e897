// Read models in memory for tests that drive the engine directly: every step's facts folded (by
// the projectors' own fold) into records, rendered as the REST views a client would read.

import type { EngineEvent } from '../../domain/engine/events.ts';
import {
  accountView,
  balanceView,
  fillView,
  ledgerEntryView,
  marketView,
  orderView,
  positionView,
  sportEventView,
} from '../../domain/readModel/render.ts';
import type {
  AccountView,
  BalanceView,
  FillView,
  LedgerEntryView,
  MarketStateView,
  OrderView,
  PositionView,
  SportEventView,
} from '../../domain/views.ts';
import { emptyStore, FactFold, positionKey, type FoldStore } from '../../projections/facts/fold.ts';

export class FoldedViews {
  readonly store: FoldStore = emptyStore();
  private readonly entries: LedgerEntryView[] = [];
  private readonly seqOf = new Map<string, number>();

  /** Folds one step's facts. */
  step(seq: number, nowUs: number, events: readonly EngineEvent[]): void {
    const fold = new FactFold(this.store);
    events.forEach((event, idx) => fold.apply({ event, seq, nowUs, pos: String(seq), idx }));
    for (const { entry, at } of fold.entries) this.entries.push(ledgerEntryView(entry, at.nowUs, at.seq));
    for (const [id, { at }] of fold.balances) this.seqOf.set(`balance:${id}`, at.seq);
    for (const [key, { at }] of fold.positions) this.seqOf.set(`position:${key}`, at.seq);
  }

  order(id: string): OrderView {
    const stored = this.store.orders.get(id);
    if (!stored) throw new Error(`no order ${id}`);
    return orderView(stored.record);
  }

  balance(accountId: string): BalanceView {
    const stored = this.store.accounts.get(accountId);
    if (!stored) throw new Error(`no balance for ${accountId}`);
    return balanceView(stored.record, stored.record.funds, this.seqOf.get(`balance:${accountId}`) ?? 0);
  }

  account(accountId: string): AccountView {
    const stored = this.store.accounts.get(accountId);
    if (!stored) throw new Error(`no account ${accountId}`);
    return accountView(stored.record);
  }

  fills(accountId?: string): FillView[] {
    return [...this.store.fills.values()]
      .map(({ record }) => fillView(record))
      .filter((f) => accountId === undefined || f.account_id === accountId);
  }

  fill(id: string): FillView {
    const stored = this.store.fills.get(id);
    if (!stored) throw new Error(`no fill ${id}`);
    return fillView(stored.record);
  }

  position(accountId: string, marketId: string): PositionView | undefined {
    const stored = this.store.positions.get(positionKey(accountId, marketId));
    const market = this.store.markets.get(marketId)?.record;
    return stored && market
      ? positionView(stored.record, market, this.seqOf.get(`position:${positionKey(accountId, marketId)}`) ?? 0)
      : undefined;
  }

  market(id: string): MarketStateView {
    const stored = this.store.markets.get(id);
    if (!stored) throw new Error(`no market ${id}`);
    return marketView(stored.record);
  }

  sportEvent(id: string): SportEventView {
    const stored = this.store.sportEvents.get(id);
    if (!stored) throw new Error(`no sport event ${id}`);
    return sportEventView(stored.record);
  }

  /** Every ledger entry recorded, in order. */
  ledger(accountId?: string): LedgerEntryView[] {
    return this.entries.filter((e) => accountId === undefined || e.account_id === accountId);
  }
}
