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

/** The record folded for `id`; an error saying `missing` when the fold holds none. */
export function recordOf<T>(map: ReadonlyMap<string, { record: T }>, id: string, missing: string): T {
  const stored = map.get(id);
  if (!stored) throw new Error(missing);
  return stored.record;
}

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
    return orderView(recordOf(this.store.orders, id, `no order ${id}`));
  }

  balance(accountId: string): BalanceView {
    const record = recordOf(this.store.accounts, accountId, `no balance for ${accountId}`);
    return balanceView(record, record.funds, this.seqOf.get(`balance:${accountId}`) ?? 0);
  }

  account(accountId: string): AccountView {
    return accountView(recordOf(this.store.accounts, accountId, `no account ${accountId}`));
  }

  fills(accountId?: string): FillView[] {
    return [...this.store.fills.values()]
      .map(({ record }) => fillView(record))
      .filter((f) => accountId === undefined || f.account_id === accountId);
  }

  fill(id: string): FillView {
    return fillView(recordOf(this.store.fills, id, `no fill ${id}`));
  }

  position(accountId: string, marketId: string): PositionView | undefined {
    const stored = this.store.positions.get(positionKey(accountId, marketId));
    const market = this.store.markets.get(marketId)?.record;
    return stored && market
      ? positionView(stored.record, market, this.seqOf.get(`position:${positionKey(accountId, marketId)}`) ?? 0)
      : undefined;
  }

  market(id: string): MarketStateView {
    return marketView(recordOf(this.store.markets, id, `no market ${id}`));
  }

  sportEvent(id: string): SportEventView {
    return sportEventView(recordOf(this.store.sportEvents, id, `no sport event ${id}`));
  }

  /** Every ledger entry recorded, in order. */
  ledger(accountId?: string): LedgerEntryView[] {
    return this.entries.filter((e) => accountId === undefined || e.account_id === accountId);
  }
}
