// The engine's whole state folded from its facts alone: a journal's steps applied from zero with
// the domain's evolve (the record functions of this folder, the engine's own books in books.ts,
// its reservations in domain/engine/funds.ts, its timers in domain/engine/timers.ts) give the
// state the engine held after each step, and so its state hash (docs/ENGINE.md, "One evolve").
// Nothing is decided again: every change is what a fact states, or an index of it.
//
// What a fact leaves implicit follows from the state folded so far, by the engine's own rules:
// - an order's reservation: its terms (OrderAccepted), what is left of it (Traded) and its
//   account's fee rates (AccountOpened, AccountUpdated, LoyaltyTierChanged); a market order's
//   reserve price is the worst price the folded book offered it (the book the engine matched it on);
// - a limit order rests once its matching is over (no fact says so): when the next order is taken
//   in or released, and at the end of the step, if it is still live with something left;
// - liabilities are functions of the reservations and positions, refreshed at the end of the step;
// - a market's result ends its fills and exposures, and keeps what each account took from it
//   (MarketSettled closes the step's settlement); the event's and group's fees a result charges are
//   kept by scope and account as the engine assesses them, with the facts' amounts and shares.

import { marketOrderLimit } from '../book/match.ts';
import {
  centsOf,
  contractsTimesCents,
  decimalOf,
  isZero,
  nanosOf,
  negated,
  plus,
  ZERO,
  type Decimal,
} from '../money/decimal.ts';
import { assert, present } from '../assert.ts';
import { memberOfLedgerAccount, type EngineEvent, type LedgerAccount } from '../engine/events.ts';
import { exposureOf, refreshLiability, reservedAtRates, reserve } from '../engine/funds.ts';
import type {
  AccountState,
  ChargedFee,
  EngineState,
  Exposure,
  MarketState,
  OrderState,
  SettledAccount,
} from '../engine/state.ts';
import { marketsInScope } from '../engine/settlementFees.ts';
import { addTimer } from '../engine/timers.ts';
import {
  accountDetailsSet,
  accountPointsCredited,
  accountTierChanged,
  accountTradeAmended,
  accountTraded,
  accountTransferred,
  riskCentsOf,
} from './accounts.ts';
import {
  exposureAmended,
  exposureTraded,
  groupPercentSet,
  ledgerPosted,
  lotOpened,
  marketBooksSettled,
  oldestLotClosed,
  orderFinished,
  orderLive,
  orderRejected,
  orderReleasedFromTimers,
  poolSet,
  referralCredited,
  referralPointsSet,
  referralRecorded,
  scopeAssessed,
  scopeCharged,
  scopeChargeDropped,
  settledAccountMoved,
  settledAccountsOf,
  settledFillResettled,
  type BooksAccount,
} from './books.ts';
import { accountStateOf, marketStateOf, sportEventStateOf } from './engineRecords.ts';
import { fillAmended, fillLotClosed, fillLotSettled, fillOfTrade, fillVoided, tradeFeeOf } from './fills.ts';
import {
  marketArchived,
  marketFeePercentSet,
  marketSettled,
  marketStatusChanged,
  marketTraded,
  marketUpdated,
  sportEventFeePercentSet,
  sportEventStarted,
  sportEventUpdated,
} from './markets.ts';
import { cancelledStatus, orderCancelled, orderPlaced, orderReleased, orderTradedAs } from './orders.ts';
import {
  movesPosition,
  positionAmended,
  positionClosedOut,
  positionLotClosed,
  positionTraded,
  positionTransferred,
} from './positions.ts';

type Fact<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

/** Folds steps' facts into an engine state (a fresh one, `initialState()`, to fold a journal from zero). */
export class EngineStateFold {
  private seq = 0;
  private nowUs = 0;
  /** The order being matched: it rests, if it may, once its matching is over. */
  private matching: OrderState | null = null;
  /** Exposures whose reservations or position changed in the step: their liabilities are refreshed at its end. */
  private readonly changed = new Map<Exposure, AccountState>();
  /** What the first settlement of the step's market paid each account (its settlement transfers). */
  private readonly settlementPnls = new Map<string, Decimal>();
  /** Settlement-side fees stated in the step, by id, until the Transferred fact with their amount. */
  private readonly feesStated = new Map<string, ChargedFee>();
  /** The step's event and group fees charged, by source and account: booked when MarketSettled names the market completing their scope. */
  private readonly scopeFees = new Map<string, ChargedFee>();

  constructor(readonly state: EngineState) {}

  /** One journaled step: its facts, in order, then what its end leaves implicit. */
  step(seq: number, nowUs: number, facts: readonly EngineEvent[]): void {
    if (facts.length === 0) return;
    this.seq = seq;
    this.nowUs = nowUs;
    for (const fact of facts) this.apply(fact);
    this.matchingOver();
    this.refreshLiabilities();
    this.settlementPnls.clear();
    this.feesStated.clear();
    this.scopeFees.clear();
    this.state.seq = seq;
  }

  private apply(e: EngineEvent): void {
    const state = this.state;
    switch (e.type) {
      case 'AccountOpened':
        state.accounts.set(e.account_id, accountStateOf(e, this.nowUs));
        return;
      case 'AccountUpdated': {
        const account = this.account(e.account_id);
        const fees = feesKeyOf(account);
        accountDetailsSet(account, e, this.nowUs);
        if (feesKeyOf(account) !== fees) this.reservedAtRates(account);
        return;
      }
      case 'LoyaltyTierChanged': {
        const account = this.account(e.account_id);
        accountTierChanged(account, e.tier, this.nowUs);
        if (account.feeSchedule === 'loyalty_tier_on_trade') this.reservedAtRates(account);
        return;
      }
      case 'SportEventScheduled':
        state.sportEvents.set(e.event_id, sportEventStateOf(e));
        return;
      case 'SportEventStarted':
        sportEventStarted(this.sportEvent(e.event_id), this.nowUs);
        return;
      case 'SportEventUpdated':
        sportEventUpdated(this.sportEvent(e.event_id), e);
        return;
      case 'MarketListed': {
        const market = marketStateOf(e, centsOf(e.max_price), this.nowUs, this.seq);
        state.markets.set(market.id, market);
        poolSet(state.ledger, market.id, true);
        this.sportEvent(e.event_id).marketIds.push(market.id);
        return;
      }
      case 'MarketUpdated':
        this.stamp(this.market(e.market_id), (market) => marketUpdated(market, e));
        return;
      case 'MarketArchived':
        this.stamp(this.market(e.market_id), (market) => marketArchived(market, this.nowUs));
        return;
      case 'MarketStatusChanged':
        this.stamp(this.market(e.market_id), (market) => marketStatusChanged(market, e.status, e.trading));
        return;
      case 'SettlementFeeSet':
        this.settlementFeeSet(e);
        return;
      case 'MarketSettled':
        this.marketSettled(e);
        return;
      case 'OrderAccepted':
        this.matchingOver();
        this.orderAccepted(e);
        return;
      case 'OrderRejected':
        this.matchingOver();
        orderRejected(state, e.order_id, e.account_id);
        return;
      case 'OrderReleased': {
        this.matchingOver();
        const order = this.order(e.order_id);
        orderReleasedFromTimers(state, order);
        orderReleased(order, this.nowUs);
        order.seq = this.seq;
        this.matching = order;
        return;
      }
      case 'OrderCancelled':
        this.orderCancelled(e);
        return;
      case 'Traded':
        this.traded(e);
        return;
      case 'LotClosed':
        this.lotClosed(e);
        return;
      case 'LotSettled': {
        // the market's fills and exposures end with its MarketSettled fact; the fill's record until then
        const fill = state.fills.get(e.fill_id);
        if (fill) fillLotSettled(fill, nanosOf(e.quantity), decimalOf(e.pnl), this.nowUs);
        return;
      }
      case 'FillVoided': {
        const fill = state.fills.get(e.fill_id);
        if (fill) fillVoided(fill);
        return;
      }
      case 'FillAmended':
        this.fillAmended(e);
        return;
      case 'Transferred':
        this.transferred(e);
        return;
      case 'PointsCredited':
        accountPointsCredited(this.account(e.account_id), e.points);
        return;
      case 'ReferralRecorded':
        referralRecorded(state.referrals, e.referrer_account_id, e.referee_account_id, this.nowUs);
        return;
      case 'ReferralCredited':
        referralCredited(state.referrals, e.referee_account_id);
        accountPointsCredited(this.account(e.referrer_account_id), e.points);
        return;
      case 'ReferralPointsSet':
        referralPointsSet(state.referrals, e.points);
        return;
      case 'LotResettled':
        this.lotResettled(e);
        return;
      case 'SettlementFeeBooked':
        this.settlementFeeBooked(e);
        return;
      case 'FundsReserved': // what the reservations folded here show, rounded
        return;
      default: {
        const unknown: never = e;
        throw new Error(`fact of unknown type ${String((unknown as { type: unknown }).type)}`);
      }
    }
  }

  private orderAccepted(e: Fact<'OrderAccepted'>): void {
    const state = this.state;
    const account = this.account(e.account_id);
    const market = this.market(e.market_id);
    const quantityNanos = nanosOf(e.quantity);
    const priceCents = e.price === null ? null : centsOf(e.price);
    const order: OrderState = {
      id: e.order_id,
      accountId: e.account_id,
      marketId: e.market_id,
      action: e.action,
      orderType: e.order_type,
      status: 'created',
      quantityNanos,
      filledNanos: 0,
      priceCents,
      // a market order reserves at the worst price the book offered it (the book it was matched on)
      reserveCents: priceCents ?? marketOrderLimit(market.book, e.action, quantityNanos, e.account_id),
      totalValue: ZERO,
      clientOrderId: e.client_order_id,
      deviceId: e.device_id,
      ipAddress: e.ip_address,
      expiration: e.expiration,
      expirationTime: e.expiration_time,
      expiresAt: e.expires_at,
      acceptedAt: null,
      delayedUntil: null,
      insertedAt: this.nowUs,
      placedPreStart: e.placed_pre_start,
      cancellationReason: null,
      rejectionReason: null,
      cancelOnDisconnect: e.cancel_on_disconnect,
      arrivalSeq: this.seq,
      seq: this.seq,
    };
    orderLive(state, market, order);
    const exposure = exposureOf(account, market, this.nowUs);
    reserve(account, exposure, order, quantityNanos, 1, market.maxPriceCents);
    this.changed.set(exposure, account);
    if (order.expiration === 'good_till_time') addTimer(state, order);
    orderPlaced(order, e, this.nowUs);
    if (e.status === 'delayed') addTimer(state, order);
    else if (e.status === 'open') this.matching = order;
  }

  private orderCancelled(e: Fact<'OrderCancelled'>): void {
    const order = this.order(e.order_id);
    const market = this.market(order.marketId);
    const account = this.account(order.accountId);
    const exposure = exposureIn(account, market.id);
    market.book.cancel(order.id);
    reserve(account, exposure, order, order.quantityNanos - order.filledNanos, -1, market.maxPriceCents);
    this.changed.set(exposure, account);
    orderCancelled(order, e.status ?? cancelledStatus(order.filledNanos), e.reason);
    orderFinished(this.state, market, order);
    order.seq = this.seq;
    if (this.matching === order) this.matching = null;
  }

  private traded(e: Fact<'Traded'>): void {
    const state = this.state;
    const market = this.market(e.market_id);
    const priceCents = centsOf(e.price);
    const nanos = nanosOf(e.quantity);
    const max = market.maxPriceCents;
    market.book.fill(e.maker_order_id, nanos);
    const orders: OrderState[] = [];
    for (let side = 0; side < 2; side++) {
      const maker = side === 0;
      const order = this.order(maker ? e.maker_order_id : e.taker_order_id);
      const account = this.account(order.accountId);
      const exposure = exposureIn(account, market.id);
      reserve(account, exposure, order, nanos, -1, max);
      orderTradedAs(order, e, maker, nanos, priceCents);
      order.seq = this.seq;
      orders.push(order);
      const closingNanos = nanosOf(maker ? e.maker_closing : e.taker_closing);
      const fillId = maker ? e.maker_fill_id : e.taker_fill_id;
      // the lots this side closes are the oldest ones (its LotClosed facts follow); its opening part is the newest
      lotOpened(exposure, fillId, nanos - closingNanos, priceCents);
      positionTraded(exposure, order.action, nanos, nanos - closingNanos, priceCents);
      const riskCents = riskCentsOf(order.action, priceCents, max);
      accountTraded(account, nanos, riskCents);
      exposureTraded(exposure, nanos, riskCents, maker ? e.maker_points : e.taker_points);
      exposure.updatedAt = this.nowUs;
      this.changed.set(exposure, account);
      const fee = tradeFeeOf(maker ? e.maker_fee : e.taker_fee);
      // the fee's ledger entry is the Transferred fact of kind fee that follows
      const fill = fillOfTrade(
        e,
        maker,
        order,
        market.eventId,
        max,
        priceCents,
        nanos,
        closingNanos,
        fee.unrounded,
        fee.rounded,
        null,
        this.nowUs,
        this.seq,
      );
      state.fills.set(fillId, fill);
      market.fillIds.add(fillId);
    }
    // A filled order leaves the live orders here; the engine takes it out after both sides' facts
    // (fees, a referral credit), which finish no other order: a referral only raises a tier, and
    // reserving anew at the lower rates of a higher tier never cancels one.
    for (const order of orders) {
      if (order.status !== 'filled') continue;
      orderFinished(state, market, order);
      if (this.matching === order) this.matching = null;
    }
    this.stamp(market, () => marketTraded(market, priceCents));
  }

  private lotClosed(e: Fact<'LotClosed'>): void {
    const fill = present(this.state.fills.get(e.fill_id), 'a lot closed is of an unsettled fill');
    const account = this.account(fill.accountId);
    const exposure = exposureIn(account, fill.marketId);
    const lot = present(exposure.lots[0], 'a position has an open lot for each contract it closes');
    assert(lot.fillId === fill.id, 'lots close first in, first out');
    const nanos = nanosOf(e.quantity);
    positionLotClosed(exposure, nanos, lot.priceCents);
    fillLotClosed(fill, nanos, decimalOf(e.pnl), this.nowUs);
    oldestLotClosed(exposure, nanos);
    fill.seq = this.seq;
    fill.updatedAt = this.nowUs;
    this.changed.set(exposure, account);
  }

  private fillAmended(e: Fact<'FillAmended'>): void {
    const fill = present(this.state.fills.get(e.fill_id), 'an amended fill is unsettled');
    const account = this.account(e.account_id);
    const exposure = exposureIn(account, e.market_id);
    const lot = present(
      exposure.lots.find((l) => l.fillId === fill.id),
      'a wholly open fill is one lot',
    );
    const priceCents = centsOf(e.price);
    const nanos = nanosOf(e.quantity);
    const max = fill.maxPriceCents;
    positionAmended(exposure, fill.action, lot.nanos, lot.priceCents, nanos, priceCents);
    lot.nanos = nanos;
    lot.priceCents = priceCents;
    const riskBefore = riskCentsOf(fill.action, fill.priceCents, max);
    const risk = riskCentsOf(fill.action, priceCents, max);
    accountTradeAmended(account, fill.nanos, riskBefore, nanos, risk);
    exposureAmended(
      exposure,
      contractsTimesCents(fill.nanos, riskBefore),
      contractsTimesCents(nanos, risk),
      fill.points,
      e.points,
    );
    const fee = tradeFeeOf(e.fee);
    fillAmended(fill, priceCents, nanos, fee.unrounded, fee.rounded, e.points, this.nowUs);
    fill.seq = this.seq;
    fill.updatedAt = this.nowUs;
    exposure.updatedAt = this.nowUs;
    this.changed.set(exposure, account);
  }

  private transferred(e: Fact<'Transferred'>): void {
    const toMember = memberOfLedgerAccount(e.to);
    const member = present(toMember ?? memberOfLedgerAccount(e.from), 'a transfer moves a member account');
    const account = this.account(member);
    const amount = decimalOf(e.amount);
    const signed = toMember ? amount : negated(amount); // into the member's cash
    accountTransferred(account, e.kind, amount, signed);
    if (!isZero(amount)) {
      const other = booksAccountOf(toMember ? e.from : e.to);
      ledgerPosted(this.state.ledger, other.account, other.marketId, negated(signed));
    }
    if (e.market_id !== null && movesPosition(e.kind)) {
      const exposure = account.exposures.get(e.market_id);
      if (exposure) {
        positionTransferred(exposure, e.kind, amount, signed);
        this.changed.set(exposure, account);
      }
    }
    if (e.kind === 'settlement' && e.market_id !== null) this.settlementTransferred(e.market_id, member, signed);
    const stated = e.id === null ? undefined : this.feesStated.get(e.id);
    if (stated) stated.amount = amount;
    if (e.kind === 'fee' && e.id !== null && e.fill_id !== null) {
      // a fill's first fee is its trade fee: what a refund of it names
      const fill = this.state.fills.get(e.fill_id);
      if (fill && (fill.feeEntryId ?? null) === null) fill.feeEntryId = e.id;
    }
  }

  private settlementFeeSet(e: Fact<'SettlementFeeSet'>): void {
    const state = this.state;
    if (e.scope === 'event') {
      const event = state.sportEvents.get(e.scope_id);
      if (event) sportEventFeePercentSet(event, e.percent);
    } else if (e.scope === 'market_group') {
      groupPercentSet(state, e.scope_id, e.percent);
    }
    for (const marketId of e.market_ids) {
      const market = this.market(marketId);
      this.stamp(market, () => marketFeePercentSet(market, e.scope, e.percent));
      // the open fills' potential fee moves with the percent
      for (const fillId of market.fillIds) {
        const fill = state.fills.get(fillId);
        if (fill && fill.status === 'open') {
          fill.seq = this.seq;
          fill.updatedAt = this.nowUs;
        }
      }
    }
  }

  private marketSettled(e: Fact<'MarketSettled'>): void {
    const state = this.state;
    const market = this.market(e.market_id);
    const first = market.status !== 'resulted' && market.status !== 'voided';
    if (first && e.result !== 'void' && !state.settlementFees.settled.has(market.id)) this.settledBooksOf(market);
    this.stamp(market, () => marketSettled(market, e.result, this.nowUs));
    this.scopeFeesBooked(market, first);
    if (first) {
      // every position there was settled or unwound and every order released by the facts before
      for (const accountId of market.accountIds) {
        const account = this.account(accountId);
        const exposure = exposureIn(account, market.id);
        exposure.lots = [];
        positionClosedOut(exposure);
        exposure.pointsPending = 0;
        refreshLiability(account, exposure, market.maxPriceCents);
        this.changed.delete(exposure);
      }
      marketBooksSettled(state, market);
    }
    poolSet(state.ledger, market.id, false);
  }

  /**
   * A market resulted win or lose: what each account that traded there took from it (long or
   * short, its lots and fills at the result, the settlement paid, its net winnings), kept for its
   * fees and a corrected result. Made once the facts of the positions' settlement are folded.
   */
  private settledBooksOf(market: MarketState): Map<string, SettledAccount> {
    const settled = settledAccountsOf(this.state, market, this.settlementPnls);
    this.state.settlementFees.settled.set(market.id, settled);
    return settled;
  }

  /** A settlement transfer: the first result's (kept for the settled books) or a corrected result's difference. */
  private settlementTransferred(marketId: string, accountId: string, signed: Decimal): void {
    const books = this.state.settlementFees.settled.get(marketId)?.get(accountId);
    if (!books) {
      this.settlementPnls.set(accountId, plus(this.settlementPnls.get(accountId) ?? ZERO, signed));
      return;
    }
    settledAccountMoved(books, signed);
  }

  /** LotResettled: the lot's fill realises `pnl` more; its account's market fee is refunded and charged anew (the facts after). */
  private lotResettled(e: Fact<'LotResettled'>): void {
    const marketId = present(this.state.settledFills.get(e.fill_id), 'a lot settled again is of a settled fill');
    const settled = present(this.state.settlementFees.settled.get(marketId), 'a market settled again has its books');
    for (const books of settled.values()) {
      if (!books.lots.some((lot) => lot.fillId === e.fill_id)) continue;
      settledFillResettled(books, e.fill_id, decimalOf(e.pnl));
      books.fee = null;
      return;
    }
  }

  /** SettlementFeeBooked: a market's fee kept on its settled books; an event's or group's kept for MarketSettled. */
  private settlementFeeBooked(e: Fact<'SettlementFeeBooked'>): void {
    const charged: ChargedFee | null =
      e.fee_id === null ? { id: e.id, amount: ZERO, shares: sharesOf(e.shares) } : null;
    if (charged) this.feesStated.set(e.id, charged);
    if (e.source !== 'settlement') {
      if (charged) this.scopeFees.set(`${e.source}:${e.account_id}`, charged);
      return;
    }
    const marketId = present(e.market_id, "a market's settlement fee names its market");
    const settled = this.state.settlementFees.settled.get(marketId) ?? this.settledBooksOf(this.market(marketId));
    const books = present(settled.get(e.account_id), 'a settlement fee is charged to an account settled there');
    books.fee = charged;
  }

  /**
   * After a market's result (`first`) or a corrected one: the event's and the group's fees charged
   * when it completed them, kept by scope and account (each account's earlier charge given back
   * first, stated or, at 0.00, not), as the engine assesses them (settlementFees.ts assessScopes):
   * the fees' amounts and shares are the facts'.
   */
  private scopeFeesBooked(market: MarketState, first: boolean): void {
    const state = this.state;
    const books = state.settlementFees;
    // a corrected result charges again only the accounts whose settlement it moved
    const moved = first ? null : settledAccountsWithLots(books.settled.get(market.id));
    for (const scope of ['event', 'market_group'] as const) {
      const scopeId = scope === 'event' ? market.eventId : market.groupingId;
      const key = `${scope}:${scopeId}`;
      const percent =
        scope === 'event'
          ? (state.sportEvents.get(scopeId)?.eventFeePercent ?? null)
          : (books.groupPercents.get(scopeId) ?? null);
      if (percent === null && !books.scopeCharges.has(key)) continue;
      const markets = marketsInScope(state, scope, scopeId);
      if (!markets.every((m) => m.status === 'resulted' || m.status === 'voided')) continue;
      const accounts = new Set<string>();
      for (const each of markets)
        for (const accountId of books.settled.get(each.id)?.keys() ?? [])
          if (!moved || moved.has(accountId)) accounts.add(accountId);
      for (const accountId of accounts) {
        scopeChargeDropped(books, key, accountId);
        if (percent === null) continue;
        const charged = present(this.scopeFees.get(`${scope}:${accountId}`), 'a completed scope charges each account');
        scopeCharged(books, key, accountId, charged);
      }
      scopeAssessed(books, key);
    }
  }

  /** A fee-rate change: every live order of the account reserved anew (its markets' liabilities with them). */
  private reservedAtRates(account: AccountState): void {
    reservedAtRates(this.state, account);
    for (const exposure of account.exposures.values()) this.changed.delete(exposure);
  }

  /** The order being matched rests, if it is a limit order still live with something left. */
  private matchingOver(): void {
    const order = this.matching;
    if (order === null) return;
    this.matching = null;
    const remaining = order.quantityNanos - order.filledNanos;
    if (order.orderType !== 'limit' || order.status !== 'open' || remaining === 0) return;
    this.market(order.marketId).book.add({
      id: order.id,
      ownerId: order.accountId,
      side: order.action,
      priceCents: order.reserveCents,
      remainingNanos: remaining,
    });
  }

  private refreshLiabilities(): void {
    for (const [exposure, account] of this.changed)
      refreshLiability(account, exposure, this.market(exposure.marketId).maxPriceCents);
    this.changed.clear();
  }

  /** A market's change: its record stamped with the step. */
  private stamp(market: MarketState, change: (market: MarketState) => void): void {
    change(market);
    market.seq = this.seq;
    market.updatedAt = this.nowUs;
  }

  private account(id: string): AccountState {
    return present(this.state.accounts.get(id), 'a fact names an account opened before');
  }

  private market(id: string): MarketState {
    return present(this.state.markets.get(id), 'a fact names a market listed before');
  }

  private sportEvent(id: string) {
    return present(this.state.sportEvents.get(id), 'a fact names a sport event scheduled before');
  }

  private order(id: string): OrderState {
    return present(this.state.orders.get(id), 'a fact names a live order');
  }
}

function feesKeyOf(account: AccountState): string {
  return `${account.feeSchedule}|${account.baseFeePercent}|${account.makerFactor}|${account.takerFactor}`;
}

function exposureIn(account: AccountState, marketId: string): Exposure {
  return present(account.exposures.get(marketId), "a live order's account has an exposure in its market");
}

/** The accounts of a market's settled books that held a position at the result. */
function settledAccountsWithLots(settled: Map<string, SettledAccount> | undefined): Set<string> {
  const accounts = new Set<string>();
  for (const [accountId, books] of settled ?? []) if (books.lots.length > 0) accounts.add(accountId);
  return accounts;
}

/** A fee's shares as SettlementFeeBooked lists them (`[fill_id, amount, ...]`). */
function sharesOf(flat: readonly string[]): ChargedFee['shares'] {
  const shares: ChargedFee['shares'] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const fillId = flat[i];
    const amount = flat[i + 1];
    assert(fillId !== undefined && amount !== undefined, 'i + 1 < flat.length');
    shares.push({ fillId, amount: decimalOf(amount) });
  }
  return shares;
}

/** The ledger account other than member cash a transfer names. */
function booksAccountOf(account: LedgerAccount): { account: BooksAccount; marketId: string | null } {
  if (account === 'outside' || account === 'fees') return { account, marketId: null };
  return { account: 'pool', marketId: account.slice('pool:'.length) };
}
