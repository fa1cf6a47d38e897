// Wire-shaped snapshots (domain/views.ts) of the engine's entities, built at the end of a step
// for the entities that step changed.

import { usToIso } from '../clock.ts';
import {
  ceilCent, contractsTimesCentsLessMoney, isPositive, contractsTimesCentsMoney, floorCent, formatCents, formatNanos, integerAt, isNegative, lastExponent, minus, money, perContractMoney, toFixedPlaces,
  plus, FEE_DECIMAL_PLACES, roundedMoney, timesRatio, ZERO, type Decimal,
} from '../money/decimal.ts';
import { DEFAULT_BASE_FEE_PERCENT, DEFAULT_MAKER_FACTOR, DEFAULT_TAKER_FACTOR } from './fees.ts';
import type {
  AccountView, BalanceView, FillView, LedgerEntryType, LedgerEntryView, MarketStateView, OrderView, PositionView, SportEventView,
} from '../views.ts';
import type { AccountState, EngineState, Exposure, FillState, MarketState, OrderState, SportEventState } from './state.ts';

const AVG_PRICE_DECIMAL_PLACES = 7;

// Most views of one step share the step's time: remember the last conversion, and the text of
// the last whole second (only the milliseconds differ between nearby times).
let lastIsoUs = Number.NaN;
let lastIso = '';
let lastSecond = Number.NaN;
let lastSecondPrefix = '';
function isoOf(us: number): string {
  if (us !== lastIsoUs) {
    const ms = Math.floor(us / 1000);
    const second = Math.floor(ms / 1000);
    if (second !== lastSecond) {
      lastSecondPrefix = usToIso(second * 1_000_000).slice(0, -4); // "...THH:MM:SS."
      lastSecond = second;
    }
    const millis = ms - second * 1000;
    lastIso = `${lastSecondPrefix}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
    lastIsoUs = us;
  }
  return lastIso;
}

function averagePrice(total: Decimal, nanos: number): string | null {
  if (nanos === 0) return null;
  return perContractMoney(total, nanos, AVG_PRICE_DECIMAL_PLACES);
}

export function orderView(order: OrderState): OrderView {
  return {
    id: order.id,
    account_id: order.accountId,
    market_id: order.marketId,
    action: order.action,
    order_type: order.orderType,
    status: order.status,
    quantity: formatNanos(order.quantityNanos),
    filled: formatNanos(order.filledNanos),
    filled_percentage: Math.floor((order.filledNanos * 100) / order.quantityNanos),
    price: order.priceCents === null ? null : formatCents(order.priceCents),
    avg_price: averagePrice(order.totalValue, order.filledNanos),
    total_value: money(order.totalValue),
    amount: null,
    filled_amount: null,
    client_order_id: order.clientOrderId,
    device_id: order.deviceId,
    ip_address: order.ipAddress,
    expiration: order.expiration,
    expiration_time: order.expirationTime,
    expires_at: order.expiresAt,
    accepted_at: order.acceptedAt,
    delayed_until: order.delayedUntil,
    inserted_at: order.insertedAt,
    time: isoOf(order.insertedAt),
    placed_pre_start: order.placedPreStart,
    fix_order: false,
    cancellation_reason: order.cancellationReason,
    rejection_reason: order.rejectionReason,
    odds_type: null,
    odds_value: null,
    cancel_on_disconnect: order.cancelOnDisconnect,
    seq: order.seq,
  };
}

/**
 * The part of a fill's trade fee, net of refunds (a voided market refunds it whole), that `nanos`
 * of it carry, nine places half up.
 */
function feeShare(fill: FillState, nanos: number): Decimal {
  if (fill.nanos === 0 || nanos === 0) return ZERO;
  const fee = isPositive(fill.feeRefunded) ? minus(fill.tradeFee, fill.feeRefunded) : fill.tradeFee;
  return timesRatio(fee, nanos, fill.nanos, FEE_DECIMAL_PLACES);
}

export function fillView(fill: FillState): FillView {
  const max = fill.maxPriceCents;
  const price = fill.priceCents;
  const riskCents = fill.action === 'buy' ? price : max - price;
  const toWinCents = fill.action === 'buy' ? max - price : price;
  const openingNanos = fill.nanos - fill.closingNanos;
  const remainingNanos = fill.status === 'open' ? openingNanos - fill.closedNanos - fill.expiredNanos : 0;
  const originalOpening = fill.originalNanos - fill.closingNanos;
  const originalRiskCents = fill.action === 'buy' ? fill.originalPriceCents : max - fill.originalPriceCents;
  const originalToWinCents = fill.action === 'buy' ? max - fill.originalPriceCents : fill.originalPriceCents;
  const closedFee = feeShare(fill, fill.closedNanos + fill.closingNanos);
  const expiredFee = feeShare(fill, fill.expiredNanos);
  const gross = plus(fill.closedPnl, fill.expiredPnl);
  return {
    trade_id: fill.id,
    order_id: fill.orderId,
    account_id: fill.accountId,
    market_id: fill.marketId,
    event_id: fill.eventId,
    client_order_id: fill.clientOrderId,
    action: fill.action,
    status: fill.status,
    liquidity_action: fill.liquidity,
    price: formatCents(price),
    filled: formatNanos(fill.nanos),
    traded_contracts: formatNanos(fill.nanos),
    original_filled: formatNanos(fill.originalNanos),
    original_price: formatCents(fill.originalPriceCents),
    original_premium: contractsTimesCentsMoney(fill.originalNanos, fill.originalPriceCents),
    original_risk: contractsTimesCentsMoney(Math.max(originalOpening, 0), originalRiskCents),
    original_to_win: contractsTimesCentsMoney(Math.max(originalOpening, 0), originalToWinCents),
    amended: fill.amended,
    last_modified_at: fill.lastModifiedAt,
    last_modified_by_admin_id: null,
    admin_log: null,
    closed_contracts: formatNanos(fill.closedNanos),
    expired_contracts: formatNanos(fill.expiredNanos),
    settled_contracts: formatNanos(fill.closedNanos + fill.expiredNanos),
    remaining: formatNanos(remainingNanos),
    virtual_remaining: formatNanos(remainingNanos),
    closing: formatNanos(fill.closingNanos),
    closed_fee: money(closedFee),
    expired_fee: money(expiredFee),
    closed_pnl: money(fill.closedPnl),
    expired_pnl: money(fill.expiredPnl),
    closed_net_pnl: money(minus(fill.closedPnl, closedFee)),
    expired_net_pnl: money(minus(fill.expiredPnl, expiredFee)),
    gross_pnl: money(gross),
    pc_premium: formatCents(price),
    pc_risk: formatCents(riskCents),
    pc_to_win: formatCents(toWinCents),
    remaining_potential_fee: '0.00',
    remaining_premium: contractsTimesCentsMoney(remainingNanos, price),
    remaining_risk: contractsTimesCentsMoney(remainingNanos, riskCents),
    remaining_to_win: contractsTimesCentsMoney(remainingNanos, toWinCents),
    trade_fee: money(fill.tradeFee),
    unrounded_trade_fee: toFixedPlaces(fill.unroundedFee, FEE_DECIMAL_PLACES),
    total_fee: money(minus(fill.tradeFee, fill.feeRefunded)),
    points: fill.points,
    settlements_count: fill.settlementsCount,
    placed_pre_start: fill.placedPreStart,
    pre_start: fill.preStart,
    device_id: fill.deviceId,
    ip_address: fill.ipAddress,
    opened_at: fill.openedAt,
    expires_at: fill.expiresAt,
    settled_at: fill.settledAt === null ? null : isoOf(fill.settledAt),
    inserted_at: fill.insertedAt,
    updated_at: fill.updatedAt,
    time: isoOf(fill.insertedAt),
    seq: fill.seq,
  };
}

// A balance is rebuilt after every change of its account, but most of its amounts did not
// change: each account keeps the texts of its last balance with the decimals they came from, and
// a text is made again only when one of those is another object (decimals are never changed in
// place, so the same object means the same value).

/** The text of one amount, remade when the amount is another decimal. */
class AmountText {
  private value: Decimal | null = null;
  private text = '';

  constructor(private readonly format: (value: Decimal) => string) {}

  of(value: Decimal): string {
    if (value !== this.value) {
      this.value = value;
      this.text = this.format(value);
    }
    return this.text;
  }
}

const ceilMoney = (value: Decimal): string => {
  const exponent = lastExponent(value);
  return (exponent < -2 ? roundedMoney(integerAt(value, exponent), exponent, true) : null) ?? money(ceilCent(value));
};

class BalanceTexts {
  readonly cash = new AmountText(money);
  readonly buyOrderLiability = new AmountText(ceilMoney);
  readonly sellOrderLiability = new AmountText(ceilMoney);
  readonly adjustments = new AmountText(money);
  readonly deposits = new AmountText(money);
  readonly withdrawals = new AmountText(money);
  readonly fees = new AmountText(money);
  readonly settlementPnl = new AmountText(money);
  readonly traded = new AmountText(money);
  // amounts of several decimals
  private availableOf: [Decimal | null, Decimal | null] = [null, null];
  private availableText = '';
  private positionOf: [Decimal | null, Decimal | null, Decimal | null] = [null, null, null];
  private positionText = '';

  /** Cash less liabilities, down to the cent, never below 0. */
  available(account: AccountState): string {
    const of = this.availableOf;
    if (account.cash !== of[0] || account.liability !== of[1]) {
      of[0] = account.cash;
      of[1] = account.liability;
      const exponent = Math.min(lastExponent(account.cash), lastExponent(account.liability));
      const difference = integerAt(account.cash, exponent) - integerAt(account.liability, exponent);
      const fast = Number.isSafeInteger(difference) ? roundedMoney(difference > 0 ? difference : 0, exponent, false) : null;
      if (fast !== null) {
        this.availableText = fast;
      } else {
        const available = floorCent(minus(account.cash, account.liability));
        this.availableText = money(isNegative(available) ? ZERO : available);
      }
    }
    return this.availableText;
  }

  /** What positions (not orders) hold, up to the cent. */
  positionLiability(account: AccountState): string {
    const of = this.positionOf;
    if (account.liability !== of[0] || account.buyOrderLiability !== of[1] || account.sellOrderLiability !== of[2]) {
      of[0] = account.liability;
      of[1] = account.buyOrderLiability;
      of[2] = account.sellOrderLiability;
      const { liability, buyOrderLiability: buy, sellOrderLiability: sell } = account;
      const exponent = Math.min(lastExponent(liability), lastExponent(buy), lastExponent(sell));
      const position = integerAt(liability, exponent) - integerAt(buy, exponent) - integerAt(sell, exponent);
      this.positionText = (Number.isSafeInteger(position) ? roundedMoney(position, exponent, true) : null)
        ?? ceilMoney(minus(minus(liability, buy), sell));
    }
    return this.positionText;
  }
}

const balanceTexts = new WeakMap<AccountState, BalanceTexts>();

export function balanceView(account: AccountState, seq: number): BalanceView {
  let texts = balanceTexts.get(account);
  if (!texts) {
    texts = new BalanceTexts();
    balanceTexts.set(account, texts);
  }
  const totals = account.totals;
  const onTrade = account.feeSchedule !== 'fixed_percent';
  return {
    account_id: account.id,
    user_id: account.userId,
    account_balance: texts.cash.of(account.cash),
    available_balance: texts.available(account),
    buy_order_liability: texts.buyOrderLiability.of(account.buyOrderLiability),
    sell_order_liability: texts.sellOrderLiability.of(account.sellOrderLiability),
    position_premium_liability: texts.positionLiability(account),
    escrow: '0.00',
    fee_schedule: account.feeSchedule,
    // the rates in force: an unset rate shows the schedule's default, as fees.ts charges it
    base_fee_percent: onTrade ? null : account.baseFeePercent ?? DEFAULT_BASE_FEE_PERCENT,
    maker_factor: onTrade ? account.makerFactor ?? DEFAULT_MAKER_FACTOR : null,
    taker_factor: onTrade ? account.takerFactor ?? DEFAULT_TAKER_FACTOR : null,
    loyalty_tier: account.loyaltyTier,
    points: account.points,
    total_adjustments: texts.adjustments.of(totals.adjustments),
    total_deposits: texts.deposits.of(totals.deposits),
    total_withdrawals: texts.withdrawals.of(totals.withdrawals),
    total_fees: texts.fees.of(totals.fees),
    total_settlement_pnl: texts.settlementPnl.of(totals.settlementPnl),
    total_traded: texts.traded.of(totals.traded),
    total_trade_count: account.tradeCount,
    seq,
  };
}

export function accountView(account: AccountState): AccountView {
  return {
    account_id: account.id,
    user_id: account.userId,
    status: account.status,
    first_name: account.firstName,
    last_name: account.lastName,
    email: account.email,
    jurisdiction: account.jurisdiction,
    fee_schedule: account.feeSchedule,
    base_fee_percent: account.baseFeePercent,
    maker_factor: account.makerFactor,
    taker_factor: account.takerFactor,
    loyalty_tier: account.loyaltyTier,
    created_at: account.createdAt,
    updated_at: account.updatedAt,
  };
}

export function positionView(exposure: Exposure, market: MarketState, seq: number): PositionView {
  const nanos = exposure.positionNanos;
  const contracts = Math.abs(nanos);
  const premium = exposure.openPremium;
  return {
    account_id: exposure.accountId,
    market_id: exposure.marketId,
    event_id: market.eventId,
    position: formatNanos(nanos),
    side: nanos > 0 ? 'long' : nanos < 0 ? 'short' : 'flat',
    contracts: formatNanos(contracts),
    avg_price: averagePrice(premium, contracts),
    premium: money(premium),
    risk: nanos >= 0 ? money(premium) : contractsTimesCentsLessMoney(contracts, market.maxPriceCents, premium),
    to_win: nanos > 0 ? contractsTimesCentsLessMoney(contracts, market.maxPriceCents, premium) : money(premium),
    realized_pnl: money(exposure.realizedPnl),
    fees: money(exposure.fees),
    market_max_price: money(market.maxPrice),
    updated_at: exposure.updatedAt,
    seq,
  };
}

export function marketView(market: MarketState): MarketStateView {
  return {
    market_id: market.id,
    event_id: market.eventId,
    title: market.title,
    short_title: market.shortTitle,
    question: market.question,
    rules: market.rules,
    symbol: market.symbol,
    grouping_id: market.groupingId,
    grouping_name: market.groupingName,
    featured: market.featured,
    status: market.status,
    trading: market.trading,
    max_price: money(market.maxPrice),
    in_play_delay_sec: market.inPlayDelaySec,
    points_cost: market.pointsCost,
    result: market.result,
    settled_at: market.settledAt,
    last_traded_price: market.lastTradedCents === null ? null : formatCents(market.lastTradedCents),
    created_at: market.createdAt,
    updated_at: market.updatedAt,
    seq: market.seq,
  };
}

export function sportEventView(event: SportEventState): SportEventView {
  return {
    event_id: event.id,
    title: event.title,
    short_title: event.shortTitle,
    event_type: event.eventType,
    sport: event.sport,
    competition: event.competition,
    participants: [...event.participants],
    start: event.start,
    status: event.startedAt === null ? 'scheduled' : 'in_progress',
    started_at: event.startedAt,
  };
}

export interface LedgerEntryInput {
  id: string;
  accountId: string;
  type: LedgerEntryType;
  amount: Decimal;
  points?: number;
  eventId?: string | null;
  marketId?: string | null;
  feeSource?: LedgerEntryView['fee_source'];
  tradeId?: string | null;
  settlementId?: string | null;
  paymentId?: string | null;
  method?: string | null;
  reason?: string | null;
  subMethod?: string | null;
}

export function ledgerEntryView(entry: LedgerEntryInput, now: number, seq: number): LedgerEntryView {
  return {
    id: entry.id,
    account_id: entry.accountId,
    type: entry.type,
    amount: money(entry.amount),
    points: entry.points ?? 0,
    event_id: entry.eventId ?? null,
    market_id: entry.marketId ?? null,
    fee_id: entry.type === 'fee' || entry.type === 'fee_refund' ? entry.id : null,
    payment_id: entry.paymentId ?? null,
    settlement_id: entry.settlementId ?? null,
    fee_source: entry.feeSource ?? null,
    trade_id: entry.tradeId ?? null,
    method: entry.method ?? null,
    reason: entry.reason ?? null,
    sub_method: entry.subMethod ?? null,
    referee_account_id: null,
    referrer_account_id: null,
    inserted_at: now,
    time: isoOf(now),
    seq,
  };
}

/** Every market of an event, in listing order. */
export function marketsOfEvent(state: EngineState, eventId: string): MarketState[] {
  const event = state.events.get(eventId);
  if (!event) return [];
  return event.marketIds.map((id) => state.markets.get(id)).filter((m): m is MarketState => m !== undefined);
}
