// The REST views (domain/views.ts) of read-model records (records.ts): how an order, a fill, a
// balance, a position, a ledger entry, an account, a sport event and a market look on the wire.
// The engine renders its answers with these from its state; the projectors from what they fold.

import { usToIso } from '../clock.ts';
import {
  contractsTimesCents,
  contractsTimesCentsLessMoney,
  contractsTimesCentsMoney,
  formatCents,
  formatNanos,
  isPositive,
  minus,
  money,
  percentToRate,
  perContractMoney,
  plus,
  FEE_DECIMAL_PLACES,
  timesRatio,
  toFixedPlaces,
  ZERO,
  type Decimal,
} from '../money/decimal.ts';
import { DEFAULT_BASE_FEE_PERCENT, DEFAULT_MAKER_FACTOR, DEFAULT_TAKER_FACTOR } from '../engine/fees.ts';
import { potentialFeeOf } from '../money/fees.ts';
import { riskCentsOf, toWinCentsOf } from '../evolve/risk.ts';
import type {
  AccountView,
  BalanceView,
  FillView,
  LedgerEntryView,
  MarketCatalogueView,
  MarketStateView,
  OrderView,
  PositionView,
  SportEventView,
} from '../views.ts';
import type {
  AccountRecord,
  MarketCatalogueRecord,
  FillRecord,
  FundsFigures,
  LedgerEntryRecord,
  MarketRecord,
  OrderRecord,
  PositionRecord,
  SportEventRecord,
} from './records.ts';

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

export function orderView(order: OrderRecord): OrderView {
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
function feeShare(fill: FillRecord, nanos: number): Decimal {
  if (fill.nanos === 0 || nanos === 0) return ZERO;
  const fee = isPositive(fill.feeRefunded) ? minus(fill.tradeFee, fill.feeRefunded) : fill.tradeFee;
  return timesRatio(fee, nanos, fill.nanos, FEE_DECIMAL_PLACES);
}

/** The settlement-side percents in force for a market. */
type SettlementFeePercents = Pick<MarketRecord, 'settlementFeePercent' | 'eventFeePercent' | 'groupFeePercent'>;

/** The rate of net winnings a win would be charged in the market: its own, its event's and its group's percents together. */
function settlementFeeRateOf(market: SettlementFeePercents | undefined): Decimal {
  if (!market) return ZERO;
  const percent = (market.settlementFeePercent ?? 0) + (market.eventFeePercent ?? 0) + (market.groupFeePercent ?? 0);
  return percent > 0 ? percentToRate(percent) : ZERO;
}

/**
 * A fill as REST shows it. `market` gives the settlement-side percents in force: the unsettled
 * part's `remaining_potential_fee` is what they would charge on its `remaining_to_win`.
 */
export function fillView(fill: FillRecord, market?: SettlementFeePercents): FillView {
  const max = fill.maxPriceCents;
  const price = fill.priceCents;
  const riskCents = riskCentsOf(fill.action, price, max);
  const toWinCents = toWinCentsOf(fill.action, price, max);
  const openingNanos = fill.nanos - fill.closingNanos;
  const remainingNanos = fill.status === 'open' ? openingNanos - fill.closedNanos - fill.expiredNanos : 0;
  const originalOpening = fill.originalNanos - fill.closingNanos;
  const originalRiskCents = riskCentsOf(fill.action, fill.originalPriceCents, max);
  const originalToWinCents = toWinCentsOf(fill.action, fill.originalPriceCents, max);
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
    remaining_potential_fee: money(
      potentialFeeOf(settlementFeeRateOf(market), contractsTimesCents(remainingNanos, toWinCents)),
    ),
    remaining_premium: contractsTimesCentsMoney(remainingNanos, price),
    remaining_risk: contractsTimesCentsMoney(remainingNanos, riskCents),
    remaining_to_win: contractsTimesCentsMoney(remainingNanos, toWinCents),
    trade_fee: money(fill.tradeFee),
    unrounded_trade_fee: toFixedPlaces(fill.unroundedFee, FEE_DECIMAL_PLACES),
    total_fee: money(plus(minus(fill.tradeFee, fill.feeRefunded), fill.settlementFee ?? ZERO)),
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
    fee_entry_id: fill.feeEntryId ?? null,
    settlement_fee: money(fill.settlementFee ?? ZERO),
  };
}

/** The balance: cash, totals and fee terms from the account; what its funds reserve as the engine stated it. */
export function balanceView(account: AccountRecord, funds: FundsFigures, seq: number): BalanceView {
  const totals = account.totals;
  const onTrade = account.feeSchedule !== 'fixed_percent';
  return {
    account_id: account.id,
    user_id: account.userId,
    account_balance: money(account.cash),
    available_balance: funds.available,
    buy_order_liability: funds.buyOrders,
    sell_order_liability: funds.sellOrders,
    position_premium_liability: funds.positions,
    escrow: '0.00',
    fee_schedule: account.feeSchedule,
    // the rates in force: an unset rate shows the schedule's default, as fees.ts charges it
    base_fee_percent: onTrade ? null : (account.baseFeePercent ?? DEFAULT_BASE_FEE_PERCENT),
    maker_factor: onTrade ? (account.makerFactor ?? DEFAULT_MAKER_FACTOR) : null,
    taker_factor: onTrade ? (account.takerFactor ?? DEFAULT_TAKER_FACTOR) : null,
    loyalty_tier: account.loyaltyTier,
    points: account.points,
    total_adjustments: money(totals.adjustments),
    total_deposits: money(totals.deposits),
    total_withdrawals: money(totals.withdrawals),
    total_fees: money(totals.fees),
    total_settlement_pnl: money(totals.settlementPnl),
    total_traded: money(totals.traded),
    total_trade_count: account.tradeCount,
    seq,
  };
}

export function accountView(account: AccountRecord): AccountView {
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

export function positionView(
  exposure: PositionRecord,
  market: Pick<MarketRecord, 'eventId' | 'maxPriceCents' | 'maxPrice'>,
  seq: number,
): PositionView {
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

/** The operator's catalogue fields of a market as the wire and the MarketUpdated fact state them (lists copied). */
export function catalogueViewOf(market: MarketCatalogueRecord): Omit<MarketCatalogueView, 'archived_at'> {
  return {
    description: market.description,
    group_title: market.groupTitle,
    specifier: market.specifier,
    position: market.positionLabel,
    powered_by: market.poweredBy,
    filters: [...market.filters],
    trading_filters: [...market.tradingFilters],
    keywords: [...market.keywords],
    participants: market.participants === null ? null : [...market.participants],
    stat_detail: market.statDetail,
    featured_home: market.featuredHome,
    manual_probability: market.manualProbability,
  };
}

export function marketView(market: MarketRecord): MarketStateView {
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
    ...catalogueViewOf(market),
    archived_at: market.archivedAt,
    settlement_fee_percent: market.settlementFeePercent ?? null,
    event_fee_percent: market.eventFeePercent ?? null,
    group_fee_percent: market.groupFeePercent ?? null,
  };
}

export function sportEventView(event: SportEventRecord): SportEventView {
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
    event_fee_percent: event.eventFeePercent ?? null,
  };
}

export function ledgerEntryView(entry: LedgerEntryRecord, now: number, seq: number): LedgerEntryView {
  return {
    id: entry.id,
    account_id: entry.accountId,
    type: entry.type,
    amount: money(entry.amount),
    points: entry.points ?? 0,
    event_id: entry.eventId ?? null,
    market_id: entry.marketId ?? null,
    // a fee is its own; a refund names the fee it gives back
    fee_id: entry.type === 'fee' ? entry.id : entry.type === 'fee_refund' ? (entry.feeId ?? null) : null,
    payment_id: entry.paymentId ?? null,
    settlement_id: entry.settlementId ?? null,
    fee_source: entry.feeSource ?? null,
    trade_id: entry.tradeId ?? null,
    method: entry.method ?? null,
    reason: entry.reason ?? null,
    sub_method: entry.subMethod ?? null,
    referee_account_id: entry.refereeAccountId ?? null,
    referrer_account_id: entry.referrerAccountId ?? null,
    inserted_at: now,
    time: isoOf(now),
    seq,
  };
}
