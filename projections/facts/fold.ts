// The fold: the engine's facts, applied in journal order to the records a read model keeps, give
// every entity's state after a batch of steps, and so its REST view (domain/readModel/render.ts).
// How each fact changes each record is the domain's evolve (domain/evolve/), the very functions
// the engine changes its own records with; this file only finds the records a fact names, guards
// against applying a step twice, marks what changed, and makes the ledger entries. Facts read
// from records before version 6 do not state an order's remaining and status after a trade or a
// cancel: those are completed here from the order as folded so far, by the domain's rules.
//
// A projector loads the records the batch's facts name (FoldStore), folds, and writes what
// changed. Each record remembers the step that last changed it: a fact from a step that is not
// newer leaves it alone, so a batch applied twice changes nothing the second time.

import { centsOf, decimalOf, nanosOf, negated } from '../../domain/money/decimal.ts';
import type {
  FillRecord,
  LedgerEntryRecord,
  MarketRecord,
  OrderRecord,
  PositionRecord,
  SportEventRecord,
} from '../../domain/readModel/records.ts';
import {
  accountDetailsSet,
  accountPointsCredited,
  accountRecordOf,
  accountTierChanged,
  accountTradeAmended,
  accountTraded,
  accountTransferred,
  riskCentsOf,
} from '../../domain/evolve/accounts.ts';
import {
  fillAmended,
  fillLotClosed,
  fillLotResettled,
  fillLotSettled,
  fillOfTrade,
  fillSettlementFeeShared,
  fillVoided,
  tradeFeeOf,
} from '../../domain/evolve/fills.ts';
import {
  marketArchived,
  marketFeePercentSet,
  marketRecordOf,
  marketSettled,
  marketStatusChanged,
  marketTraded,
  marketUpdated,
  sportEventFeePercentSet,
  sportEventRecordOf,
  sportEventStarted,
  sportEventUpdated,
} from '../../domain/evolve/markets.ts';
import { pointsEntryOf, referralEntriesOf, transferEntryOf } from '../../domain/evolve/ledger.ts';
import {
  cancelledStatus,
  orderCancelled,
  orderPlaced,
  orderRecordOf,
  orderReleased,
  orderTradedAs,
} from '../../domain/evolve/orders.ts';
import {
  movesPosition,
  positionAmended,
  positionLotClosed,
  positionRecordOf,
  positionTraded,
  positionTransferred,
} from '../../domain/evolve/positions.ts';
import { memberOfLedgerAccount, type EngineEvent } from '../../domain/engine/events.ts';
import type { AccountBalance } from './records.ts';

/** Where a fact sits: its step, the step's time, and its place in the journal (record position, index in the record). */
export interface Stamp {
  seq: number;
  nowUs: number;
  pos: string;
  idx: number;
}

export interface Fact extends Stamp {
  event: EngineEvent;
}

/** The records of what a batch names, as stored, each with the step that last changed it (-1: none yet). */
export interface FoldStore {
  orders: Map<string, { record: OrderRecord; seq: number }>;
  fills: Map<string, { record: FillRecord; seq: number }>;
  accounts: Map<string, { record: AccountBalance; seq: number; balanceSeq: number }>;
  /** By `positionKey(account, market)`. */
  positions: Map<string, { record: PositionRecord; seq: number }>;
  markets: Map<string, { record: MarketRecord; seq: number }>;
  sportEvents: Map<string, { record: SportEventRecord; seq: number }>;
  /** Ids of ledger entries already stored. */
  entryIds: Set<string>;
}

export const positionKey = (accountId: string, marketId: string): string => `${accountId}\u0000${marketId}`;

export function emptyStore(): FoldStore {
  return {
    orders: new Map(),
    fills: new Map(),
    accounts: new Map(),
    positions: new Map(),
    markets: new Map(),
    sportEvents: new Map(),
    entryIds: new Set(),
  };
}

/** An entity the batch changed: its record now, the last and the first of its changes in the batch, and where it was created (if in this batch). */
interface Changed<T> {
  record: T;
  at: Stamp;
  since: Stamp;
  created: Stamp | null;
}

/** What the ids of a batch's facts name: what a projector loads before folding. */
export interface Named {
  orders: Set<string>;
  fills: Set<string>;
  accounts: Set<string>;
  /** Account and market pairs. */
  positions: Map<string, { accountId: string; marketId: string }>;
  markets: Set<string>;
  sportEvents: Set<string>;
  /** Markets whose open fills the batch changes (a settlement-side fee percent moves their potential fee). */
  openFillsOf: Set<string>;
}

/**
 * Every id the facts name. A lot closed belongs to the position of the trade side before it, so
 * the trades' sides name every position a batch touches.
 */
export function namedBy(facts: readonly Fact[]): Named {
  const named: Named = {
    orders: new Set(),
    fills: new Set(),
    accounts: new Set(),
    positions: new Map(),
    markets: new Set(),
    sportEvents: new Set(),
    openFillsOf: new Set(),
  };
  const position = (accountId: string, marketId: string) => {
    named.positions.set(positionKey(accountId, marketId), { accountId, marketId });
    named.markets.add(marketId);
  };
  for (const { event: e } of facts) {
    switch (e.type) {
      case 'AccountOpened':
      case 'AccountUpdated':
      case 'LoyaltyTierChanged':
      case 'FundsReserved':
        named.accounts.add(e.account_id);
        break;
      case 'SportEventScheduled':
      case 'SportEventStarted':
      case 'SportEventUpdated':
        named.sportEvents.add(e.event_id);
        break;
      case 'MarketListed':
      case 'MarketUpdated':
      case 'MarketArchived':
      case 'MarketStatusChanged':
      case 'MarketSettled':
        named.markets.add(e.market_id);
        break;
      case 'OrderAccepted':
      case 'OrderRejected':
        named.orders.add(e.order_id);
        named.markets.add(e.market_id);
        break;
      case 'OrderReleased':
      case 'OrderCancelled':
        named.orders.add(e.order_id);
        break;
      case 'Traded':
        named.orders.add(e.maker_order_id).add(e.taker_order_id);
        named.fills.add(e.maker_fill_id).add(e.taker_fill_id);
        named.accounts.add(e.maker_account_id).add(e.taker_account_id);
        position(e.maker_account_id, e.market_id);
        position(e.taker_account_id, e.market_id);
        break;
      case 'LotClosed':
      case 'LotSettled':
      case 'FillVoided':
        named.fills.add(e.fill_id);
        break;
      case 'FillAmended':
        named.fills.add(e.fill_id);
        named.accounts.add(e.account_id);
        position(e.account_id, e.market_id);
        break;
      case 'Transferred': {
        const member = memberOfLedgerAccount(e.from) ?? memberOfLedgerAccount(e.to);
        if (member) named.accounts.add(member);
        if (member && e.market_id) position(member, e.market_id);
        else if (e.market_id) named.markets.add(e.market_id);
        break;
      }
      case 'PointsCredited':
        named.accounts.add(e.account_id);
        named.markets.add(e.market_id);
        break;
      case 'SettlementFeeSet':
        for (const marketId of e.market_ids) {
          named.markets.add(marketId);
          named.openFillsOf.add(marketId);
        }
        if (e.scope === 'event') named.sportEvents.add(e.scope_id);
        break;
      case 'LotResettled':
        named.fills.add(e.fill_id);
        break;
      case 'SettlementFeeBooked':
        named.accounts.add(e.account_id);
        for (let i = 0; i + 1 < e.shares.length; i += 2) named.fills.add(e.shares[i]!);
        break;
      case 'ReferralCredited':
        named.accounts.add(e.referrer_account_id).add(e.referee_account_id);
        break;
      case 'ReferralRecorded':
      case 'ReferralPointsSet':
        break;
      default: {
        const unknown: never = e;
        throw new Error(`fact of unknown type ${String((unknown as { type: unknown }).type)}`);
      }
    }
  }
  return named;
}

/** A fact the fold cannot place (a journal and a read model out of step): projecting stops rather than guess. */
class FoldError extends Error {
  constructor(message: string) {
    super(`fold: ${message}`);
    this.name = 'FoldError';
  }
}

export class FactFold {
  readonly orders = new Map<string, Changed<OrderRecord>>();
  readonly fills = new Map<string, Changed<FillRecord>>();
  readonly accounts = new Map<string, Changed<AccountBalance>>();
  readonly balances = new Map<string, Changed<AccountBalance>>();
  readonly positions = new Map<string, Changed<PositionRecord>>();
  readonly markets = new Map<string, Changed<MarketRecord>>();
  readonly sportEvents = new Map<string, Changed<SportEventRecord>>();
  /** Ledger entries recorded by the batch, in order. */
  readonly entries: Array<{ entry: LedgerEntryRecord; at: Stamp }> = [];
  /** Settlement-side fees stated, by entry id: what the Transferred fact after each makes its entry of. */
  private readonly settlementFees = new Map<string, Extract<EngineEvent, { type: 'SettlementFeeBooked' }>>();

  constructor(private readonly store: FoldStore) {}

  apply(fact: Fact): void {
    const e = fact.event;
    switch (e.type) {
      case 'AccountOpened': {
        if (this.store.accounts.has(e.account_id) && this.store.accounts.get(e.account_id)!.seq >= fact.seq) return;
        const record: AccountBalance = {
          ...accountRecordOf(e, fact.nowUs),
          funds: { buyOrders: '0.00', sellOrders: '0.00', positions: '0.00', available: '0.00' },
        };
        this.store.accounts.set(e.account_id, { record, seq: -1, balanceSeq: -1 });
        this.mark(this.accounts, e.account_id, record, fact, true);
        this.mark(this.balances, e.account_id, record, fact, true);
        return;
      }
      case 'AccountUpdated': {
        const account = this.account(e.account_id, fact, 'account');
        if (!account) return;
        accountDetailsSet(account, e, fact.nowUs);
        this.mark(this.accounts, e.account_id, account, fact);
        this.mark(this.balances, e.account_id, account, fact);
        return;
      }
      case 'LoyaltyTierChanged': {
        const account = this.account(e.account_id, fact, 'account');
        if (!account) return;
        accountTierChanged(account, e.tier, fact.nowUs);
        this.mark(this.accounts, e.account_id, account, fact);
        this.mark(this.balances, e.account_id, account, fact);
        return;
      }
      case 'FundsReserved': {
        const account = this.account(e.account_id, fact, 'balance');
        if (!account) return;
        account.funds = {
          buyOrders: e.buy_orders,
          sellOrders: e.sell_orders,
          positions: e.positions,
          available: e.available,
        };
        this.mark(this.balances, e.account_id, account, fact);
        return;
      }
      case 'SportEventScheduled': {
        const stored = this.store.sportEvents.get(e.event_id);
        if (stored && stored.seq >= fact.seq) return;
        const record = sportEventRecordOf(e);
        this.store.sportEvents.set(e.event_id, { record, seq: -1 });
        this.mark(this.sportEvents, e.event_id, record, fact, true);
        return;
      }
      case 'SportEventStarted': {
        const stored = this.store.sportEvents.get(e.event_id);
        if (!stored) throw new FoldError(`sport event ${e.event_id} started but never scheduled`);
        if (stored.seq >= fact.seq) return;
        sportEventStarted(stored.record, fact.nowUs);
        this.mark(this.sportEvents, e.event_id, stored.record, fact);
        return;
      }
      case 'SportEventUpdated': {
        const stored = this.store.sportEvents.get(e.event_id);
        if (!stored) throw new FoldError(`sport event ${e.event_id} updated but never scheduled`);
        if (stored.seq >= fact.seq) return;
        sportEventUpdated(stored.record, e);
        this.mark(this.sportEvents, e.event_id, stored.record, fact);
        return;
      }
      case 'MarketListed': {
        const stored = this.store.markets.get(e.market_id);
        if (stored && stored.seq >= fact.seq) return;
        const record = marketRecordOf(e, fact.nowUs, fact.seq);
        this.store.markets.set(e.market_id, { record, seq: -1 });
        this.mark(this.markets, e.market_id, record, fact, true);
        return;
      }
      case 'MarketUpdated': {
        const market = this.market(e.market_id, fact);
        if (!market) return;
        marketUpdated(market, e);
        this.touchMarket(market, fact);
        return;
      }
      case 'MarketArchived': {
        const market = this.market(e.market_id, fact);
        if (!market) return;
        marketArchived(market, fact.nowUs);
        this.touchMarket(market, fact);
        return;
      }
      case 'MarketStatusChanged': {
        const market = this.market(e.market_id, fact);
        if (!market) return;
        marketStatusChanged(market, e.status, e.trading);
        this.touchMarket(market, fact);
        return;
      }
      case 'MarketSettled': {
        const market = this.market(e.market_id, fact);
        if (!market) return;
        marketSettled(market, e.result, fact.nowUs);
        this.touchMarket(market, fact);
        return;
      }
      case 'OrderAccepted':
      case 'OrderRejected': {
        const stored = this.store.orders.get(e.order_id);
        if (stored && stored.seq >= fact.seq) return;
        const record = orderRecordOf(e, fact.nowUs, fact.seq);
        orderPlaced(record, e, fact.nowUs);
        this.store.orders.set(e.order_id, { record, seq: -1 });
        this.mark(this.orders, e.order_id, record, fact, true);
        return;
      }
      case 'OrderReleased': {
        const order = this.order(e.order_id, fact);
        if (!order) return;
        orderReleased(order, fact.nowUs);
        this.touchOrder(order, fact);
        return;
      }
      case 'OrderCancelled': {
        const order = this.order(e.order_id, fact);
        if (!order) return;
        orderCancelled(order, e.status ?? cancelledStatus(order.filledNanos), e.reason);
        this.touchOrder(order, fact);
        return;
      }
      case 'Traded':
        this.traded(e, fact);
        return;
      case 'LotClosed': {
        const fill = this.fill(e.fill_id, fact);
        if (!fill) return;
        const nanos = nanosOf(e.quantity);
        fillLotClosed(fill, nanos, decimalOf(e.pnl), fact.nowUs);
        this.touchFill(fill, fact);
        const position = this.position(fill.accountId, fill.marketId, fact);
        if (position) {
          positionLotClosed(position, nanos, fill.priceCents);
          this.touchPosition(position, fact);
        }
        return;
      }
      case 'LotSettled': {
        const fill = this.fill(e.fill_id, fact);
        if (!fill) return;
        fillLotSettled(fill, nanosOf(e.quantity), decimalOf(e.pnl), fact.nowUs);
        this.touchFill(fill, fact);
        return;
      }
      case 'FillVoided': {
        const fill = this.fill(e.fill_id, fact);
        if (!fill) return;
        fillVoided(fill);
        this.touchFill(fill, fact);
        return;
      }
      case 'FillAmended':
        this.amended(e, fact);
        return;
      case 'Transferred':
        this.transferred(e, fact);
        return;
      case 'PointsCredited': {
        const account = this.account(e.account_id, fact, 'balance');
        if (account) accountPointsCredited(account, e.points);
        this.record(fact, pointsEntryOf(e, this.eventIdOf(e.market_id)));
        return;
      }
      case 'SettlementFeeSet':
        this.settlementFeeSet(e, fact);
        return;
      case 'LotResettled': {
        const fill = this.fill(e.fill_id, fact);
        if (!fill) return;
        fillLotResettled(fill, decimalOf(e.pnl));
        this.touchFill(fill, fact);
        return;
      }
      case 'SettlementFeeBooked':
        this.settlementFees.set(e.id, e);
        for (let i = 0; i + 1 < e.shares.length; i += 2) {
          const fill = this.fill(e.shares[i]!, fact);
          if (!fill) continue;
          fillSettlementFeeShared(fill, decimalOf(e.shares[i + 1]!));
          this.touchFill(fill, fact);
        }
        return;
      case 'ReferralCredited': {
        const referrer = this.account(e.referrer_account_id, fact, 'balance');
        if (referrer) accountPointsCredited(referrer, e.points);
        for (const entry of referralEntriesOf(e)) this.record(fact, entry);
        return;
      }
      case 'ReferralRecorded':
      case 'ReferralPointsSet':
        return;
      default: {
        const unknown: never = e;
        throw new FoldError(`fact of unknown type ${String((unknown as { type: unknown }).type)}`);
      }
    }
  }

  private traded(e: Extract<EngineEvent, { type: 'Traded' }>, fact: Fact): void {
    const market = this.market(e.market_id, fact, true);
    const marketRecord = market ?? this.store.markets.get(e.market_id)?.record;
    if (!marketRecord) throw new FoldError(`trade ${e.trade_id} in market ${e.market_id}, never listed`);
    const priceCents = centsOf(e.price);
    const nanos = nanosOf(e.quantity);
    if (market) {
      marketTraded(market, priceCents);
      this.touchMarket(market, fact);
    }
    for (let side = 0; side < 2; side++) {
      const maker = side === 0;
      const orderId = maker ? e.maker_order_id : e.taker_order_id;
      const accountId = maker ? e.maker_account_id : e.taker_account_id;
      const fillId = maker ? e.maker_fill_id : e.taker_fill_id;
      const terms = this.store.orders.get(orderId)?.record;
      if (!terms) throw new FoldError(`order ${orderId} traded before it was placed`);
      const action: 'buy' | 'sell' = maker === (e.taker_side === 'buy') ? 'sell' : 'buy';
      const order = this.order(orderId, fact);
      if (order) {
        orderTradedAs(order, e, maker, nanos, priceCents);
        this.touchOrder(order, fact);
      }
      const closingNanos = nanosOf(maker ? e.maker_closing : e.taker_closing);
      const stored = this.store.fills.get(fillId);
      if (!stored || stored.seq < fact.seq) {
        const fee = tradeFeeOf(maker ? e.maker_fee : e.taker_fee);
        const fill = fillOfTrade(
          e,
          maker,
          terms,
          marketRecord.eventId,
          marketRecord.maxPriceCents,
          priceCents,
          nanos,
          closingNanos,
          fee.unrounded,
          fee.rounded,
          null,
          fact.nowUs,
          fact.seq,
        );
        this.store.fills.set(fillId, { record: fill, seq: -1 });
        this.mark(this.fills, fillId, fill, { ...fact, idx: fact.idx * 2 + side }, true);
      }
      const position = this.position(accountId, e.market_id, fact, true);
      if (position) {
        positionTraded(position, action, nanos, nanos - closingNanos, priceCents);
        this.touchPosition(position, fact);
      }
      const account = this.account(accountId, fact, 'balance');
      if (account) accountTraded(account, nanos, riskCentsOf(action, priceCents, marketRecord.maxPriceCents));
    }
  }

  /** A percent copied onto the markets it applies to; their open fills' potential fee moves with it. */
  private settlementFeeSet(e: Extract<EngineEvent, { type: 'SettlementFeeSet' }>, fact: Fact): void {
    for (const marketId of e.market_ids) {
      const market = this.market(marketId, fact);
      if (!market) continue;
      marketFeePercentSet(market, e.scope, e.percent);
      this.touchMarket(market, fact);
    }
    if (e.scope === 'event') {
      const stored = this.store.sportEvents.get(e.scope_id);
      if (stored && stored.seq < fact.seq && stored.record.eventFeePercent !== e.percent) {
        sportEventFeePercentSet(stored.record, e.percent);
        this.mark(this.sportEvents, e.scope_id, stored.record, fact);
      }
    }
    const markets = new Set(e.market_ids);
    for (const [id, stored] of this.store.fills) {
      if (stored.record.status !== 'open' || !markets.has(stored.record.marketId)) continue;
      const fill = this.fill(id, fact);
      if (fill) this.touchFill(fill, fact);
    }
  }

  private amended(e: Extract<EngineEvent, { type: 'FillAmended' }>, fact: Fact): void {
    const fill = this.fill(e.fill_id, fact);
    if (!fill) return;
    const priceCents = centsOf(e.price);
    const nanos = nanosOf(e.quantity);
    const max = fill.maxPriceCents;
    const account = this.account(e.account_id, fact, 'balance');
    if (account)
      accountTradeAmended(
        account,
        fill.nanos,
        riskCentsOf(fill.action, fill.priceCents, max),
        nanos,
        riskCentsOf(fill.action, priceCents, max),
      );
    const position = this.position(e.account_id, e.market_id, fact);
    if (position) {
      // a fill can be amended only while wholly open: its lot is all of it
      positionAmended(position, fill.action, fill.nanos, fill.priceCents, nanos, priceCents);
      this.touchPosition(position, fact);
    }
    const fee = tradeFeeOf(e.fee);
    fillAmended(fill, priceCents, nanos, fee.unrounded, fee.rounded, e.points, fact.nowUs);
    this.touchFill(fill, fact);
  }

  private transferred(e: Extract<EngineEvent, { type: 'Transferred' }>, fact: Fact): void {
    const toMember = memberOfLedgerAccount(e.to);
    const member = toMember ?? memberOfLedgerAccount(e.from);
    if (!member) throw new FoldError(`transfer ${e.id ?? ''} between ${e.from} and ${e.to} touches no member`);
    const amount = decimalOf(e.amount);
    const signed = toMember ? amount : negated(amount); // into the member's cash
    const account = this.account(member, fact, 'balance');
    if (account) accountTransferred(account, e.kind, amount, signed);
    if (e.market_id !== null && movesPosition(e.kind)) {
      const position = this.position(member, e.market_id, fact);
      if (position) {
        positionTransferred(position, e.kind, amount, signed);
        if (e.kind === 'settlement') this.touchPosition(position, fact);
      }
    }
    if (e.id === null) return;
    const isFee = e.kind === 'fee' || e.kind === 'fee_refund';
    // a settlement-side fee was stated just before; anything else of these kinds is a trade fee
    const settlementFee = isFee ? this.settlementFees.get(e.id) : undefined;
    let feeId: string | null = null;
    if (!settlementFee && isFee && e.fill_id !== null) {
      const stored = this.store.fills.get(e.fill_id);
      if (e.kind === 'fee_refund') {
        feeId = stored?.record.feeEntryId ?? null;
      } else if (stored && (stored.record.feeEntryId ?? null) === null) {
        // the fill's first fee is its trade fee: what refunds of it name
        const fill = this.fill(e.fill_id, fact);
        if (fill) fill.feeEntryId = e.id;
      }
    }
    const eventId = e.market_id === null ? null : this.eventIdOf(e.market_id);
    this.record(fact, transferEntryOf(e, e.id, member, signed, eventId, settlementFee, feeId));
  }

  private record(fact: Fact, entry: LedgerEntryRecord): void {
    if (this.store.entryIds.has(entry.id)) return;
    this.store.entryIds.add(entry.id);
    this.entries.push({ entry, at: fact });
  }

  private eventIdOf(marketId: string): string | null {
    return this.store.markets.get(marketId)?.record.eventId ?? null;
  }

  // ── loading a record for a change (null: the stored one is already as new as this step) ────

  private account(id: string, fact: Fact, part: 'account' | 'balance'): AccountBalance | null {
    const stored = this.store.accounts.get(id);
    if (!stored) throw new FoldError(`account ${id} named before it was opened`);
    return (part === 'account' ? stored.seq : stored.balanceSeq) >= fact.seq ? null : stored.record;
  }

  private order(id: string, fact: Fact): OrderRecord | null {
    const stored = this.store.orders.get(id);
    if (!stored) throw new FoldError(`order ${id} named before it was placed`);
    return stored.seq >= fact.seq ? null : stored.record;
  }

  private fill(id: string, fact: Fact): FillRecord | null {
    const stored = this.store.fills.get(id);
    if (!stored) throw new FoldError(`fill ${id} named before its trade`);
    return stored.seq >= fact.seq ? null : stored.record;
  }

  private market(id: string, fact: Fact, optional = false): MarketRecord | null {
    const stored = this.store.markets.get(id);
    if (!stored) {
      if (optional) return null;
      throw new FoldError(`market ${id} named before it was listed`);
    }
    return stored.seq >= fact.seq ? null : stored.record;
  }

  private position(accountId: string, marketId: string, fact: Fact, create = false): PositionRecord | null {
    const key = positionKey(accountId, marketId);
    let stored = this.store.positions.get(key);
    if (!stored) {
      if (!create) return null;
      stored = { record: positionRecordOf(accountId, marketId, fact.nowUs), seq: -1 };
      this.store.positions.set(key, stored);
    }
    return stored.seq >= fact.seq ? null : stored.record;
  }

  // ── marking what changed ───────────────────────────────────────────────────────────────────

  private mark<T>(changed: Map<string, Changed<T>>, key: string, record: T, at: Stamp, created = false): void {
    const seen = changed.get(key);
    if (seen) {
      seen.at = at;
      return;
    }
    changed.set(key, { record, at, since: at, created: created ? at : null });
  }

  private touchOrder(order: OrderRecord, fact: Fact): void {
    order.seq = fact.seq;
    this.mark(this.orders, order.id, order, fact);
  }

  private touchFill(fill: FillRecord, fact: Fact): void {
    fill.seq = fact.seq;
    fill.updatedAt = fact.nowUs;
    this.mark(this.fills, fill.id, fill, fact);
  }

  private touchPosition(position: PositionRecord, fact: Fact): void {
    position.updatedAt = fact.nowUs;
    this.mark(this.positions, positionKey(position.accountId, position.marketId), position, fact);
  }

  private touchMarket(market: MarketRecord, fact: Fact): void {
    market.seq = fact.seq;
    market.updatedAt = fact.nowUs;
    this.mark(this.markets, market.id, market, fact);
  }
}
