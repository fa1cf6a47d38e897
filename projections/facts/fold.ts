// The fold: the engine's facts, applied in journal order to the records a read model keeps, give
// every entity's state after a batch of steps, and so its REST view (domain/readModel/render.ts).
// The rules here are the consequences the facts leave implicit: a trade fills both orders
// (filled when nothing is left) and opens fills and moves positions; a lot closed or settled
// moves its fill; a transfer moves cash, totals, a position's fees or realised PnL, and makes the
// ledger entry of its kind; a market's result marks it settled.
//
// A projector loads the records the batch's facts name (FoldStore), folds, and writes what
// changed. Each record remembers the step that last changed it: a fact from a step that is not
// newer leaves it alone, so a batch applied twice changes nothing the second time.

import {
  ceilCent, centsOf, decimalOf, minus, nanosOf, negated, plus, plusContractsTimesCents, ZERO,
} from '../../domain/money/decimal.ts';
import {
  emptyMarketCatalogue, type FillRecord, type LedgerEntryRecord, type MarketRecord, type OrderRecord, type PositionRecord, type SportEventRecord,
} from '../../domain/readModel/records.ts';
import { memberOf, type EngineEvent } from '../../domain/engine/events.ts';
import type { AccountBalance } from './records.ts';

/** Where a fact sits: its step, the step's time, and its place in the journal (record position, index in the record). */
export interface Stamp { seq: number; nowUs: number; pos: string; idx: number }

export interface Fact extends Stamp { event: EngineEvent }

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
  return { orders: new Map(), fills: new Map(), accounts: new Map(), positions: new Map(), markets: new Map(), sportEvents: new Map(), entryIds: new Set() };
}

/** An entity the batch changed: its record now, the last and the first of its changes in the batch, and where it was created (if in this batch). */
interface Changed<T> { record: T; at: Stamp; since: Stamp; created: Stamp | null }

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
    orders: new Set(), fills: new Set(), accounts: new Set(), positions: new Map(), markets: new Set(), sportEvents: new Set(), openFillsOf: new Set(),
  };
  const position = (accountId: string, marketId: string) => {
    named.positions.set(positionKey(accountId, marketId), { accountId, marketId });
    named.markets.add(marketId);
  };
  for (const { event: e } of facts) {
    switch (e.type) {
      case 'AccountOpened': case 'AccountUpdated': case 'LoyaltyTierChanged': case 'FundsReserved':
        named.accounts.add(e.account_id);
        break;
      case 'SportEventScheduled': case 'SportEventStarted': case 'SportEventUpdated':
        named.sportEvents.add(e.event_id);
        break;
      case 'MarketListed': case 'MarketUpdated': case 'MarketArchived': case 'MarketStatusChanged': case 'MarketSettled':
        named.markets.add(e.market_id);
        break;
      case 'OrderAccepted': case 'OrderRejected':
        named.orders.add(e.order_id);
        named.markets.add(e.market_id);
        break;
      case 'OrderReleased': case 'OrderCancelled':
        named.orders.add(e.order_id);
        break;
      case 'Traded':
        named.orders.add(e.maker_order_id).add(e.taker_order_id);
        named.fills.add(e.maker_fill_id).add(e.taker_fill_id);
        named.accounts.add(e.maker_account_id).add(e.taker_account_id);
        position(e.maker_account_id, e.market_id);
        position(e.taker_account_id, e.market_id);
        break;
      case 'LotClosed': case 'LotSettled': case 'FillVoided':
        named.fills.add(e.fill_id);
        break;
      case 'FillAmended':
        named.fills.add(e.fill_id);
        named.accounts.add(e.account_id);
        position(e.account_id, e.market_id);
        break;
      case 'Transferred': {
        const member = memberOf(e.from) ?? memberOf(e.to);
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
      case 'ReferralRecorded': case 'ReferralPointsSet':
        break;
      default: {
        const unknown: never = e;
        throw new Error(`fact of unknown type ${String((unknown as { type: unknown }).type)}`);
      }
    }
  }
  return named;
}

const REJECTION_TEXT = 'Insufficient funds';

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
          id: e.account_id, userId: e.user_id, status: e.status, firstName: e.first_name, lastName: e.last_name, email: e.email,
          jurisdiction: e.jurisdiction, feeSchedule: e.fee_schedule, baseFeePercent: e.base_fee_percent, makerFactor: e.maker_factor,
          takerFactor: e.taker_factor, loyaltyTier: 'rookie', points: 0, createdAt: e.created_at, updatedAt: fact.nowUs, cash: ZERO,
          totals: { deposits: ZERO, withdrawals: ZERO, adjustments: ZERO, fees: ZERO, settlementPnl: ZERO, traded: ZERO }, tradeCount: 0,
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
        Object.assign(account, {
          status: e.status, firstName: e.first_name, lastName: e.last_name, email: e.email, jurisdiction: e.jurisdiction, feeSchedule: e.fee_schedule,
          baseFeePercent: e.base_fee_percent, makerFactor: e.maker_factor, takerFactor: e.taker_factor, createdAt: e.created_at, updatedAt: fact.nowUs,
        });
        this.mark(this.accounts, e.account_id, account, fact);
        this.mark(this.balances, e.account_id, account, fact);
        return;
      }
      case 'LoyaltyTierChanged': {
        const account = this.account(e.account_id, fact, 'account');
        if (!account) return;
        account.loyaltyTier = e.tier;
        account.updatedAt = fact.nowUs;
        this.mark(this.accounts, e.account_id, account, fact);
        this.mark(this.balances, e.account_id, account, fact);
        return;
      }
      case 'FundsReserved': {
        const account = this.account(e.account_id, fact, 'balance');
        if (!account) return;
        account.funds = { buyOrders: e.buy_orders, sellOrders: e.sell_orders, positions: e.positions, available: e.available };
        this.mark(this.balances, e.account_id, account, fact);
        return;
      }
      case 'SportEventScheduled': {
        const stored = this.store.sportEvents.get(e.event_id);
        if (stored && stored.seq >= fact.seq) return;
        const record: SportEventRecord = {
          id: e.event_id, title: e.title, shortTitle: e.short_title, eventType: e.event_type, sport: e.sport, competition: e.competition,
          participants: [...e.participants], start: e.start, startedAt: null, eventFeePercent: null,
        };
        this.store.sportEvents.set(e.event_id, { record, seq: -1 });
        this.mark(this.sportEvents, e.event_id, record, fact, true);
        return;
      }
      case 'SportEventStarted': {
        const stored = this.store.sportEvents.get(e.event_id);
        if (!stored) throw new FoldError(`sport event ${e.event_id} started but never scheduled`);
        if (stored.seq >= fact.seq) return;
        stored.record.startedAt = fact.nowUs;
        this.mark(this.sportEvents, e.event_id, stored.record, fact);
        return;
      }
      case 'SportEventUpdated': {
        const stored = this.store.sportEvents.get(e.event_id);
        if (!stored) throw new FoldError(`sport event ${e.event_id} updated but never scheduled`);
        if (stored.seq >= fact.seq) return;
        Object.assign(stored.record, {
          title: e.title, shortTitle: e.short_title, eventType: e.event_type, sport: e.sport, competition: e.competition,
          participants: [...e.participants], start: e.start,
        });
        this.mark(this.sportEvents, e.event_id, stored.record, fact);
        return;
      }
      case 'MarketListed': {
        const stored = this.store.markets.get(e.market_id);
        if (stored && stored.seq >= fact.seq) return;
        const record: MarketRecord = {
          id: e.market_id, eventId: e.event_id, title: e.title, shortTitle: e.short_title, question: e.question, rules: e.rules, symbol: e.symbol,
          groupingId: e.grouping_id, groupingName: e.grouping_name, featured: e.featured, status: e.status, trading: e.trading,
          maxPriceCents: centsOf(e.max_price), maxPrice: decimalOf(e.max_price), inPlayDelaySec: e.in_play_delay_sec, pointsCost: e.points_cost,
          result: null, settledAt: null, lastTradedCents: null, createdAt: fact.nowUs, updatedAt: fact.nowUs, seq: fact.seq,
          ...emptyMarketCatalogue(),
          settlementFeePercent: null, eventFeePercent: null, groupFeePercent: null,
        };
        this.store.markets.set(e.market_id, { record, seq: -1 });
        this.mark(this.markets, e.market_id, record, fact, true);
        return;
      }
      case 'MarketUpdated': {
        const market = this.market(e.market_id, fact);
        if (!market) return;
        Object.assign(market, {
          title: e.title, shortTitle: e.short_title, question: e.question, rules: e.rules, symbol: e.symbol, groupingName: e.grouping_name,
          featured: e.featured, inPlayDelaySec: e.in_play_delay_sec, pointsCost: e.points_cost, description: e.description,
          groupTitle: e.group_title, specifier: e.specifier, positionLabel: e.position, poweredBy: e.powered_by, filters: [...e.filters],
          tradingFilters: [...e.trading_filters], keywords: [...e.keywords], participants: e.participants === null ? null : [...e.participants],
          statDetail: e.stat_detail, featuredHome: e.featured_home, manualProbability: e.manual_probability,
        } satisfies Partial<MarketRecord>);
        this.touchMarket(market, fact);
        return;
      }
      case 'MarketArchived': {
        const market = this.market(e.market_id, fact);
        if (!market) return;
        market.archivedAt = fact.nowUs;
        this.touchMarket(market, fact);
        return;
      }
      case 'MarketStatusChanged': {
        const market = this.market(e.market_id, fact);
        if (!market) return;
        market.status = e.status;
        market.trading = e.trading;
        this.touchMarket(market, fact);
        return;
      }
      case 'MarketSettled': {
        const market = this.market(e.market_id, fact);
        if (!market) return;
        market.status = e.result === 'void' ? 'voided' : 'resulted';
        market.result = e.result;
        market.settledAt = fact.nowUs;
        this.touchMarket(market, fact);
        return;
      }
      case 'OrderAccepted': case 'OrderRejected': {
        const stored = this.store.orders.get(e.order_id);
        if (stored && stored.seq >= fact.seq) return;
        const rejected = e.type === 'OrderRejected';
        const record: OrderRecord = {
          id: e.order_id, accountId: e.account_id, marketId: e.market_id, action: e.action, orderType: e.order_type,
          status: rejected ? (e.reason === 'insufficient_funds' ? 'rejected' : 'cancelled') : e.status,
          quantityNanos: nanosOf(e.quantity), filledNanos: 0, priceCents: e.price === null ? null : centsOf(e.price), totalValue: ZERO,
          clientOrderId: e.client_order_id, deviceId: e.device_id, ipAddress: e.ip_address, expiration: e.expiration,
          expirationTime: e.expiration_time, expiresAt: e.expires_at,
          acceptedAt: rejected || e.status === 'delayed' ? null : fact.nowUs, delayedUntil: rejected ? null : e.delayed_until,
          insertedAt: fact.nowUs, placedPreStart: e.placed_pre_start,
          cancellationReason: rejected && e.reason === 'no_liquidity' ? 'no_liquidity' : null,
          rejectionReason: rejected && e.reason === 'insufficient_funds' ? REJECTION_TEXT : null,
          cancelOnDisconnect: e.cancel_on_disconnect, seq: fact.seq,
        };
        this.store.orders.set(e.order_id, { record, seq: -1 });
        this.mark(this.orders, e.order_id, record, fact, true);
        return;
      }
      case 'OrderReleased': {
        const order = this.order(e.order_id, fact);
        if (!order) return;
        order.status = 'open';
        if (order.acceptedAt === null) order.acceptedAt = fact.nowUs;
        this.touchOrder(order, fact);
        return;
      }
      case 'OrderCancelled': {
        const order = this.order(e.order_id, fact);
        if (!order) return;
        order.status = order.filledNanos > 0 ? 'partially_cancelled' : 'cancelled';
        order.cancellationReason = e.reason;
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
        fill.closedNanos += nanos;
        fill.closedPnl = plus(fill.closedPnl, decimalOf(e.pnl));
        fill.settlementsCount += 1;
        if (fill.nanos - fill.closingNanos - fill.closedNanos - fill.expiredNanos === 0) {
          fill.status = 'settled';
          fill.settledAt = fact.nowUs;
        }
        this.touchFill(fill, fact);
        const position = this.position(fill.accountId, fill.marketId, fact);
        if (position) {
          position.openPremium = plusContractsTimesCents(position.openPremium, nanos, -fill.priceCents);
          this.touchPosition(position, fact);
        }
        return;
      }
      case 'LotSettled': {
        const fill = this.fill(e.fill_id, fact);
        if (!fill) return;
        fill.expiredNanos += nanosOf(e.quantity);
        fill.expiredPnl = plus(fill.expiredPnl, decimalOf(e.pnl));
        fill.settlementsCount += 1;
        if (fill.status === 'open') {
          fill.status = 'settled';
          fill.settledAt = fact.nowUs;
        }
        this.touchFill(fill, fact);
        return;
      }
      case 'FillVoided': {
        const fill = this.fill(e.fill_id, fact);
        if (!fill) return;
        fill.feeRefunded = fill.tradeFee;
        fill.closedPnl = ZERO;
        fill.expiredPnl = ZERO;
        fill.status = 'cancelled';
        fill.settledAt = null;
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
        if (account) account.points += e.points;
        this.record(fact, {
          id: e.id, accountId: e.account_id, type: 'rollup', amount: decimalOf(e.amount_risked), points: e.points,
          eventId: this.eventIdOf(e.market_id), marketId: e.market_id, settlementId: e.settlement_id,
        });
        return;
      }
      case 'SettlementFeeSet':
        this.settlementFeeSet(e, fact);
        return;
      case 'LotResettled': {
        const fill = this.fill(e.fill_id, fact);
        if (!fill) return;
        fill.expiredPnl = plus(fill.expiredPnl, decimalOf(e.pnl));
        fill.settlementsCount += 1;
        this.touchFill(fill, fact);
        return;
      }
      case 'SettlementFeeBooked':
        this.settlementFees.set(e.id, e);
        for (let i = 0; i + 1 < e.shares.length; i += 2) {
          const fill = this.fill(e.shares[i]!, fact);
          if (!fill) continue;
          fill.settlementFee = plus(fill.settlementFee ?? ZERO, decimalOf(e.shares[i + 1]!));
          this.touchFill(fill, fact);
        }
        return;
      case 'ReferralCredited': {
        const referrer = this.account(e.referrer_account_id, fact, 'balance');
        if (referrer) referrer.points += e.points;
        const parties = { refereeAccountId: e.referee_account_id, referrerAccountId: e.referrer_account_id };
        this.record(fact, { id: e.referrer_entry_id, accountId: e.referrer_account_id, type: 'referral', amount: ZERO, points: e.points, ...parties });
        this.record(fact, { id: e.referee_entry_id, accountId: e.referee_account_id, type: 'referral', amount: ZERO, points: 0, ...parties });
        return;
      }
      case 'ReferralRecorded': case 'ReferralPointsSet':
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
      market.lastTradedCents = priceCents;
      this.touchMarket(market, fact);
    }
    const makerSide: 'buy' | 'sell' = e.taker_side === 'buy' ? 'sell' : 'buy';
    const sides = [
      { role: 'provider' as const, action: makerSide, orderId: e.maker_order_id, accountId: e.maker_account_id, fillId: e.maker_fill_id, closing: e.maker_closing, fee: e.maker_fee, points: e.maker_points, idx: fact.idx * 2 },
      { role: 'taker' as const, action: e.taker_side, orderId: e.taker_order_id, accountId: e.taker_account_id, fillId: e.taker_fill_id, closing: e.taker_closing, fee: e.taker_fee, points: e.taker_points, idx: fact.idx * 2 + 1 },
    ];
    for (const side of sides) {
      const terms = this.store.orders.get(side.orderId)?.record;
      if (!terms) throw new FoldError(`order ${side.orderId} traded before it was placed`);
      const order = this.order(side.orderId, fact);
      if (order) {
        order.filledNanos += nanos;
        order.totalValue = plusContractsTimesCents(order.totalValue, nanos, priceCents);
        if (order.filledNanos === order.quantityNanos) order.status = 'filled';
        this.touchOrder(order, fact);
      }
      const closingNanos = nanosOf(side.closing);
      const openingNanos = nanos - closingNanos;
      const stored = this.store.fills.get(side.fillId);
      if (!stored || stored.seq < fact.seq) {
        const unrounded = decimalOf(side.fee);
        const fill: FillRecord = {
          id: side.fillId, orderId: side.orderId, accountId: side.accountId, marketId: e.market_id, eventId: marketRecord.eventId,
          clientOrderId: terms.clientOrderId, action: side.action, liquidity: side.role, status: openingNanos > 0 ? 'open' : 'settled',
          priceCents, nanos, originalNanos: nanos, originalPriceCents: priceCents, amended: false, lastModifiedAt: null,
          closingNanos, closedNanos: 0, expiredNanos: 0, closedPnl: ZERO, expiredPnl: ZERO, tradeFee: ceilCent(unrounded), unroundedFee: unrounded,
          feeRefunded: ZERO, points: side.points, settlementsCount: 0, placedPreStart: terms.placedPreStart, preStart: e.pre_start,
          deviceId: terms.deviceId, ipAddress: terms.ipAddress, maxPriceCents: marketRecord.maxPriceCents,
          openedAt: fact.nowUs, expiresAt: terms.expiresAt, settledAt: openingNanos > 0 ? null : fact.nowUs,
          insertedAt: fact.nowUs, updatedAt: fact.nowUs, seq: fact.seq,
        };
        this.store.fills.set(side.fillId, { record: fill, seq: -1 });
        this.mark(this.fills, side.fillId, fill, { ...fact, idx: side.idx }, true);
      }
      const position = this.position(side.accountId, e.market_id, fact, true);
      if (position) {
        position.positionNanos += side.action === 'buy' ? nanos : -nanos;
        position.openPremium = plusContractsTimesCents(position.openPremium, openingNanos, priceCents);
        this.touchPosition(position, fact);
      }
      const account = this.account(side.accountId, fact, 'balance');
      if (account) {
        const riskCents = side.action === 'buy' ? priceCents : marketRecord.maxPriceCents - priceCents;
        account.totals.traded = plusContractsTimesCents(account.totals.traded, nanos, riskCents);
        account.tradeCount += 1;
      }
    }
  }

  /** A percent copied onto the markets it applies to; their open fills' potential fee moves with it. */
  private settlementFeeSet(e: Extract<EngineEvent, { type: 'SettlementFeeSet' }>, fact: Fact): void {
    const field = e.scope === 'market' ? 'settlementFeePercent' : e.scope === 'event' ? 'eventFeePercent' : 'groupFeePercent';
    for (const marketId of e.market_ids) {
      const market = this.market(marketId, fact);
      if (!market) continue;
      market[field] = e.percent;
      this.touchMarket(market, fact);
    }
    if (e.scope === 'event') {
      const stored = this.store.sportEvents.get(e.scope_id);
      if (stored && stored.seq < fact.seq && stored.record.eventFeePercent !== e.percent) {
        stored.record.eventFeePercent = e.percent;
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
    const riskOld = fill.action === 'buy' ? fill.priceCents : max - fill.priceCents;
    const riskNew = fill.action === 'buy' ? priceCents : max - priceCents;
    const account = this.account(e.account_id, fact, 'balance');
    if (account) {
      account.totals.traded = plusContractsTimesCents(plusContractsTimesCents(account.totals.traded, fill.nanos, -riskOld), nanos, riskNew);
    }
    const position = this.position(e.account_id, e.market_id, fact);
    if (position) {
      // a fill can be amended only while wholly open: its lot is all of it
      position.positionNanos += (fill.action === 'buy' ? 1 : -1) * (nanos - fill.nanos);
      position.openPremium = plusContractsTimesCents(plusContractsTimesCents(position.openPremium, fill.nanos, -fill.priceCents), nanos, priceCents);
      this.touchPosition(position, fact);
    }
    const unrounded = decimalOf(e.fee);
    fill.priceCents = priceCents;
    fill.nanos = nanos;
    fill.tradeFee = ceilCent(unrounded);
    fill.unroundedFee = unrounded;
    fill.points = e.points;
    fill.amended = true;
    fill.lastModifiedAt = fact.nowUs;
    this.touchFill(fill, fact);
  }

  private transferred(e: Extract<EngineEvent, { type: 'Transferred' }>, fact: Fact): void {
    const toMember = memberOf(e.to);
    const member = toMember ?? memberOf(e.from);
    if (!member) throw new FoldError(`transfer ${e.id ?? ''} between ${e.from} and ${e.to} touches no member`);
    const amount = decimalOf(e.amount);
    const signed = toMember ? amount : negated(amount); // into the member's cash
    const account = this.account(member, fact, 'balance');
    if (account) {
      account.cash = plus(account.cash, signed);
      const totals = account.totals;
      switch (e.kind) {
        case 'deposit': totals.deposits = plus(totals.deposits, amount); break;
        case 'withdrawal': totals.withdrawals = plus(totals.withdrawals, amount); break;
        case 'adjustment': totals.adjustments = plus(totals.adjustments, signed); break;
        case 'fee': totals.fees = plus(totals.fees, amount); break;
        case 'fee_refund': totals.fees = minus(totals.fees, amount); break;
        case 'trade_pnl': case 'settlement': totals.settlementPnl = plus(totals.settlementPnl, signed); break;
        default: {
          const unknown: never = e.kind;
          throw new FoldError(`transfer of unknown kind ${String(unknown)}`);
        }
      }
    }
    if (e.market_id !== null && e.kind !== 'deposit' && e.kind !== 'withdrawal' && e.kind !== 'adjustment') {
      const position = this.position(member, e.market_id, fact);
      if (position) {
        if (e.kind === 'fee') position.fees = plus(position.fees, amount);
        else if (e.kind === 'fee_refund') position.fees = minus(position.fees, amount);
        else position.realizedPnl = plus(position.realizedPnl, signed);
        if (e.kind === 'settlement') {
          // the market's result settled (or its void unwound) every open contract
          position.positionNanos = 0;
          position.openPremium = ZERO;
          this.touchPosition(position, fact);
        }
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
    this.record(fact, {
      id: e.id, accountId: member, type: e.kind as LedgerEntryRecord['type'], amount: signed,
      eventId: settlementFee ? settlementFee.event_id : e.market_id === null ? null : this.eventIdOf(e.market_id), marketId: e.market_id,
      feeSource: settlementFee ? settlementFee.source : isFee ? 'trade' : null, tradeId: e.fill_id, settlementId: e.settlement_id,
      paymentId: e.kind === 'deposit' || e.kind === 'withdrawal' ? e.id : null, method: e.method, reason: e.reason, subMethod: e.sub_method,
      feeId: settlementFee ? settlementFee.fee_id : feeId,
    });
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
      stored = {
        record: { accountId, marketId, positionNanos: 0, openPremium: ZERO, realizedPnl: ZERO, fees: ZERO, updatedAt: fact.nowUs },
        seq: -1,
      };
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
