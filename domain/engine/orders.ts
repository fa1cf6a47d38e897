// Orders: placement (validation, funding, status by market state), matching with self-trade
// prevention, fills with FIFO position lots and fees, cancellation and release of delayed orders.

import type { RestingOrder } from '../book/book.ts';
import { marketOrderLimit, matchIncoming, type MatchPolicy, type TradeVerdict } from '../book/match.ts';
import type { Refusal } from '../errors.ts';
import {
  compare, contractsTimesCents, FEE_DECIMAL_PLACES, formatCents, formatNanos, isZero, money, NANOS_PER_CONTRACT, negated, parsePriceCents,
  parseQuantityNanos, plus, plusContractsTimesCents, toFixedPlaces, ZERO, type Decimal,
} from '../money/decimal.ts';
import { feeOf, type Fee } from '../money/fees.ts';
import type { StepContext } from './context.ts';
import { pointsForContracts } from './fees.ts';
import { creditReferral } from './referrals.ts';
import { applyFunding, canPayFee, exposureOf, liabilityWithOrder, refreshLiability, reserve } from './funds.ts';
import type { CancellationReason, EngineEvent } from './events.ts';
import type { OrderLimits, OrderRequest } from './inputs.ts';
import { FEES, pool, transfer } from './ledger.ts';
import { addTimer } from './timers.ts';
import type { AccountState, EngineState, FillState, MarketState, OrderState } from './state.ts';

/** Live orders per account, derived from `state.orders` on first use and kept current after (never serialised). */
const liveCounts = new WeakMap<EngineState, Map<string, number>>();

function liveCountsOf(state: EngineState): Map<string, number> {
  let counts = liveCounts.get(state);
  if (!counts) {
    counts = new Map();
    for (const order of state.orders.values()) counts.set(order.accountId, (counts.get(order.accountId) ?? 0) + 1);
    liveCounts.set(state, counts);
  }
  return counts;
}

function countLive(state: EngineState, accountId: string, delta: 1 | -1): void {
  const counts = liveCounts.get(state);
  if (!counts) return; // derived on first use
  const next = (counts.get(accountId) ?? 0) + delta;
  if (next === 0) counts.delete(accountId);
  else counts.set(accountId, next);
}

/** Whether `quantityNanos` contracts risking `riskCentsPerContract` each reach the minimum (exact below 2^53, far above it beyond). */
const risksAtLeast = (quantityNanos: number, riskCentsPerContract: number, minCents: number): boolean =>
  quantityNanos * riskCentsPerContract >= minCents * NANOS_PER_CONTRACT;

/** `rejection_reason` values (the order exists, status `rejected`; the API answers 422 with it). */
export const RejectionReasons = { insufficientFunds: 'Insufficient funds' } as const;

/** `cancellation_reason` values. */
export const CancellationReasons = {
  user: 'cancelled_by_user',
  noLiquidity: 'no_liquidity',
  marketOrderRemainder: 'market_order_remainder',
  selfTrade: 'self_trade_prevented',
  insufficientFunds: 'insufficient_funds',
  expired: 'expired',
  eventStarted: 'event_started',
  marketSuspended: 'market_suspended',
  marketClosed: 'market_closed',
  marketCancelled: 'market_cancelled',
  marketResulted: 'market_resulted',
  marketVoided: 'market_voided',
} as const satisfies Record<string, CancellationReason>;

export interface OrderOutcome { order?: OrderState; error?: Refusal }

const refuse = (error: Refusal): OrderOutcome => ({ error });
const MICROS_PER_SECOND = 1_000_000;

export function placeOrder(ctx: StepContext, accountId: string, request: OrderRequest, limits?: OrderLimits): OrderOutcome {
  const state = ctx.state;
  const account = state.accounts.get(accountId);
  if (!account) return refuse({ code: 'order_account_unknown' });
  if (account.status !== 'active') return refuse({ code: 'order_account_not_active' });
  if (state.orders.has(request.order_id) || state.finishedOrders.has(request.order_id)) return refuse({ code: 'order_exists' });
  const market = state.markets.get(request.market_id);
  if (!market) return refuse({ code: 'order_market_unknown' });
  if (!((market.status === 'open' || market.status === 'pre_open') && market.trading)) return refuse({ code: 'market_not_accepting_orders' });
  if (request.order_type === 'market' && market.status === 'pre_open') return refuse({ code: 'market_order_before_open' });
  let priceCents: number | null = null;
  if (request.order_type === 'limit') {
    if (request.price === null || request.price === undefined) return refuse({ code: 'price_required' });
    const price = parsePriceCents(request.price, market.maxPriceCents);
    if (!price.ok) return refuse(price.error);
    priceCents = price.value;
  } else if (request.price !== null && request.price !== undefined) {
    // unused by a market order, but validated whenever present (SPEC), max_price included
    const price = parsePriceCents(request.price, market.maxPriceCents);
    if (!price.ok) return refuse(price.error);
  }
  const quantity = parseQuantityNanos(request.quantity);
  if (!quantity.ok) return refuse(quantity.error);
  const event = state.events.get(market.eventId);
  const started = event !== undefined && event.startedAt !== null;
  if (request.expiration === 'good_till_start' && started) return refuse({ code: 'event_started' });
  if (request.expiration === 'good_till_time') {
    if (request.expiration_time === null || request.expiration_time === undefined) return refuse({ code: 'expiration_time_required' });
    if (request.expiration_time <= ctx.now) return refuse({ code: 'expiration_time_past' });
  }
  if (limits) {
    if ((liveCountsOf(state).get(accountId) ?? 0) >= limits.live_orders_max) return refuse({ code: 'too_many_live_orders', live_orders_max: limits.live_orders_max });
    // a market order risks at the worst price it may reach now (no liquidity: it is cancelled, risking nothing)
    const riskPriceCents = priceCents ?? marketOrderLimit(market.book, request.action, quantity.value, accountId);
    if (riskPriceCents >= 0) {
      const riskPerContract = request.action === 'buy' ? riskPriceCents : market.maxPriceCents - riskPriceCents;
      if (!risksAtLeast(quantity.value, riskPerContract, limits.risk_min_cents)) return refuse({ code: 'order_risk_too_small', risk_min: formatCents(limits.risk_min_cents) });
    }
  }

  const order: OrderState = {
    id: request.order_id,
    accountId,
    marketId: market.id,
    action: request.action,
    orderType: request.order_type,
    status: 'created',
    quantityNanos: quantity.value,
    filledNanos: 0,
    priceCents,
    reserveCents: priceCents ?? 0,
    totalValue: ZERO,
    clientOrderId: request.client_order_id ?? null,
    deviceId: request.device_id ?? null,
    ipAddress: request.ip_address ?? null,
    expiration: request.expiration ?? null,
    expirationTime: request.expiration === 'good_till_time' ? request.expiration_time : null,
    expiresAt: event ? event.start : null,
    acceptedAt: null,
    delayedUntil: null,
    insertedAt: ctx.now,
    placedPreStart: !started,
    cancellationReason: null,
    rejectionReason: null,
    cancelOnDisconnect: request.cancel_on_disconnect ?? false,
    arrivalSeq: ctx.seq,
    seq: ctx.seq,
  };
  ctx.orderChanged(order);

  if (order.orderType === 'market') {
    // A market order is an immediate-or-cancel order limited at the worst price the book offers now.
    // The taker's own resting orders are cancelled on the way (self-trade prevention), so
    // they do not count towards the quantity it can fill.
    const worst = marketOrderLimit(market.book, order.action, order.quantityNanos, accountId);
    if (worst < 0) {
      order.status = 'cancelled';
      order.cancellationReason = CancellationReasons.noLiquidity;
      state.finishedOrders.set(order.id, accountId);
      ctx.emit(rejectedFact(order, 'no_liquidity'));
      return { order };
    }
    order.reserveCents = worst;
  }

  const funding = liabilityWithOrder(account, account.exposures.get(market.id), order, market.maxPriceCents);
  if (compare(account.cash, funding.total) < 0) {
    order.status = 'rejected';
    order.rejectionReason = RejectionReasons.insufficientFunds;
    state.finishedOrders.set(order.id, accountId);
    ctx.emit(rejectedFact(order, 'insufficient_funds'));
    return { order };
  }

  state.orders.set(order.id, order);
  countLive(state, accountId, 1);
  market.liveOrderIds.add(order.id);
  const marketExposure = exposureOf(account, market, ctx.now);
  applyFunding(account, marketExposure, order, funding); // = reserve + refreshLiability: the same computation was just made
  ctx.balanceChanged(account);
  if (order.expiration === 'good_till_time') addTimer(state, order);

  if (market.status === 'pre_open') {
    order.status = 'accepted';
    order.acceptedAt = ctx.now;
    ctx.emit(acceptedFact(order, 'accepted', null));
  } else if (started && market.inPlayDelaySec > 0) {
    order.status = 'delayed';
    order.delayedUntil = ctx.now + market.inPlayDelaySec * MICROS_PER_SECOND;
    addTimer(state, order);
    ctx.emit(acceptedFact(order, 'delayed', order.delayedUntil));
  } else {
    order.status = 'open';
    order.acceptedAt = ctx.now;
    ctx.emit(acceptedFact(order, 'open', null));
    execute(ctx, market, order);
  }
  return { order };
}

// The placement facts: the order's terms after the fact's own fields, in the order the journal's
// key lists give (factEncoding.ts), built in one object literal each.

type AcceptedFact = Extract<EngineEvent, { type: 'OrderAccepted' }>;
type RejectedFact = Extract<EngineEvent, { type: 'OrderRejected' }>;

function acceptedFact(order: OrderState, status: AcceptedFact['status'], delayedUntil: number | null): AcceptedFact {
  return {
    type: 'OrderAccepted', status, delayed_until: delayedUntil,
    order_id: order.id, account_id: order.accountId, market_id: order.marketId, action: order.action, order_type: order.orderType,
    price: order.priceCents === null ? null : formatCents(order.priceCents), quantity: formatNanos(order.quantityNanos),
    expiration: order.expiration, expiration_time: order.expirationTime, expires_at: order.expiresAt, placed_pre_start: order.placedPreStart,
    client_order_id: order.clientOrderId, device_id: order.deviceId, ip_address: order.ipAddress, cancel_on_disconnect: order.cancelOnDisconnect,
  };
}

function rejectedFact(order: OrderState, reason: RejectedFact['reason']): RejectedFact {
  return {
    type: 'OrderRejected', reason,
    order_id: order.id, account_id: order.accountId, market_id: order.marketId, action: order.action, order_type: order.orderType,
    price: order.priceCents === null ? null : formatCents(order.priceCents), quantity: formatNanos(order.quantityNanos),
    expiration: order.expiration, expiration_time: order.expirationTime, expires_at: order.expiresAt, placed_pre_start: order.placedPreStart,
    client_order_id: order.clientOrderId, device_id: order.deviceId, ip_address: order.ipAddress, cancel_on_disconnect: order.cancelOnDisconnect,
  };
}

/**
 * Matches a live order through the matcher (domain/book/match.ts: price-time priority,
 * self-trade prevention cancelling the resting order), with the engine's funds rules as its
 * policy: a resting order whose account cannot pay its fee is cancelled and matching goes on; an
 * incoming order that cannot pay stops. Then its limit remainder rests, or the rest is cancelled.
 */
export function execute(ctx: StepContext, market: MarketState, order: OrderState): void {
  const policy = new FundsPolicy(ctx, market, order);
  const result = matchIncoming(market.book, {
    id: order.id, ownerId: order.accountId, side: order.action, limitCents: order.reserveCents,
    quantityNanos: order.quantityNanos - order.filledNanos, rests: order.orderType === 'limit',
  }, policy);
  if (order.filledNanos === order.quantityNanos) {
    order.status = 'filled';
    finish(ctx, market, order);
  } else if (result.rested) {
    order.status = 'open';
  } else {
    cancelLive(ctx, order, result.stopped ? CancellationReasons.insufficientFunds
      : order.orderType === 'market' ? CancellationReasons.marketOrderRemainder : CancellationReasons.user);
  }
  ctx.orderChanged(order);
}

/** The engine's side of matching one incoming order: fees, funds and the fills of each trade. */
class FundsPolicy implements MatchPolicy {
  private readonly taker: AccountState;
  private makerFee: Fee | null = null;
  private takerFee: Fee | null = null;

  constructor(private readonly ctx: StepContext, private readonly market: MarketState, private readonly order: OrderState) {
    this.taker = ctx.state.accounts.get(order.accountId)!;
  }

  beforeTrade(resting: RestingOrder, nanos: number): TradeVerdict {
    const { ctx, market } = this;
    const makerOrder = ctx.state.orders.get(resting.id)!;
    const maker = ctx.state.accounts.get(resting.ownerId)!;
    const makerFee = tradeFee(maker.rates.maker, nanos, resting.priceCents, market.maxPriceCents);
    const takerFee = tradeFee(this.taker.rates.taker, nanos, resting.priceCents, market.maxPriceCents);
    if (!canPayFee(maker, makerOrder, nanos, makerFee.rounded, market.maxPriceCents)) return 'cancel_resting';
    if (!canPayFee(this.taker, this.order, nanos, takerFee.rounded, market.maxPriceCents)) return 'stop';
    this.makerFee = makerFee;
    this.takerFee = takerFee;
    return 'trade';
  }

  onTrade(resting: RestingOrder, nanos: number, priceCents: number): void {
    trade(this.ctx, this.market, this.order, this.ctx.state.orders.get(resting.id)!, nanos, priceCents, this.takerFee!, this.makerFee!);
  }

  onCancelled(resting: RestingOrder, selfTrade: boolean): void {
    cancelLive(this.ctx, this.ctx.state.orders.get(resting.id)!, selfTrade ? CancellationReasons.selfTrade : CancellationReasons.insufficientFunds);
  }
}

export type { Fee };

/** A trade's fee for one side: the money module's fee rounding on min(price, max_price - price) per contract. */
export function tradeFee(rate: Decimal, nanos: number, priceCents: number, maxPriceCents: number): Fee {
  return feeOf(rate, nanos, Math.min(priceCents, maxPriceCents - priceCents));
}

// A fill never lowers the worst-case liability check's headroom except by fee rounding (the fee
// reserve holds the unrounded fee at the highest rate); canPayFee (funds.ts) guards that last cent
// so the available balance never goes negative.

function trade(
  ctx: StepContext, market: MarketState, taker: OrderState, maker: OrderState, nanos: number, priceCents: number, takerFee: Fee, makerFee: Fee,
): void {
  const tradeId = ctx.nextId('trade');
  const makerFillId = ctx.nextId('fill');
  const takerFillId = ctx.nextId('fill');
  const event = ctx.state.events.get(market.eventId);
  const makerPoints = pointsForContracts(nanos, riskCentsOf(maker.action, priceCents, market.maxPriceCents), market.pointsCost);
  const takerPoints = pointsForContracts(nanos, riskCentsOf(taker.action, priceCents, market.maxPriceCents), market.pointsCost);
  ctx.emit({
    type: 'Traded', trade_id: tradeId, market_id: market.id, price: formatCents(priceCents), quantity: formatNanos(nanos),
    taker_side: taker.action, pre_start: !event || event.startedAt === null,
    maker_order_id: maker.id, maker_account_id: maker.accountId, maker_fill_id: makerFillId,
    maker_closing: formatNanos(closingOf(ctx, market, maker, nanos)), maker_fee: toFixedPlaces(makerFee.unrounded, FEE_DECIMAL_PLACES), maker_points: makerPoints,
    taker_order_id: taker.id, taker_account_id: taker.accountId, taker_fill_id: takerFillId,
    taker_closing: formatNanos(closingOf(ctx, market, taker, nanos)), taker_fee: toFixedPlaces(takerFee.unrounded, FEE_DECIMAL_PLACES), taker_points: takerPoints,
  });
  applyFill(ctx, market, maker, nanos, priceCents, 'provider', makerFee, makerPoints, makerFillId, takerFillId, tradeId);
  applyFill(ctx, market, taker, nanos, priceCents, 'taker', takerFee, takerPoints, takerFillId, makerFillId, tradeId);
  if (maker.filledNanos === maker.quantityNanos) {
    maker.status = 'filled';
    finish(ctx, market, maker);
  }
  market.lastTradedCents = priceCents;
  ctx.marketChanged(market);
}

/** Per contract, what a side risks at `priceCents`: the price bought, max_price - price sold. */
function riskCentsOf(action: 'buy' | 'sell', priceCents: number, maxPriceCents: number): number {
  return action === 'buy' ? priceCents : maxPriceCents - priceCents;
}

/** Contracts of a fill of `nanos` of `order` that close the account's opposite position (first in, first out). */
function closingOf(ctx: StepContext, market: MarketState, order: OrderState, nanos: number): number {
  const position = ctx.state.accounts.get(order.accountId)!.exposures.get(market.id)!.positionNanos;
  const opposite = order.action === 'buy' ? position < 0 : position > 0;
  return opposite ? Math.min(nanos, Math.abs(position)) : 0;
}

function applyFill(
  ctx: StepContext, market: MarketState, order: OrderState, nanos: number, priceCents: number,
  liquidity: 'provider' | 'taker', fee: Fee, points: number, fillId: string, counterpartFillId: string, tradeId: string,
): FillState {
  const state = ctx.state;
  const account = state.accounts.get(order.accountId)!;
  const exposure = account.exposures.get(market.id)!;
  const maxPriceCents = market.maxPriceCents;
  reserve(account, exposure, order, nanos, -1, maxPriceCents);
  order.filledNanos += nanos;
  order.totalValue = plusContractsTimesCents(order.totalValue, nanos, priceCents);
  ctx.orderChanged(order);

  // Close opposite lots first-in first-out, realising their PnL into cash; open a lot with the rest.
  let closingNanos = 0;
  let realized = ZERO;
  const isBuy = order.action === 'buy';
  if ((isBuy && exposure.positionNanos < 0) || (!isBuy && exposure.positionNanos > 0)) {
    let toClose = Math.min(nanos, Math.abs(exposure.positionNanos));
    closingNanos = toClose;
    while (toClose > 0) {
      const lot = exposure.lots[0]!;
      const take = Math.min(lot.nanos, toClose);
      const pnl = isBuy
        ? contractsTimesCents(take, lot.priceCents - priceCents) // short closed by a buy
        : contractsTimesCents(take, priceCents - lot.priceCents); // long closed by a sell
      realized = plus(realized, pnl);
      exposure.openPremium = plusContractsTimesCents(exposure.openPremium, take, -lot.priceCents);
      const lotFill = state.fills.get(lot.fillId)!;
      lotFill.closedNanos += take;
      lotFill.closedPnl = plus(lotFill.closedPnl, pnl);
      lotFill.settlementsCount += 1;
      ctx.emit({ type: 'LotClosed', fill_id: lot.fillId, quantity: formatNanos(take), pnl: money(pnl) });
      lot.nanos -= take;
      toClose -= take;
      if (lot.nanos === 0) {
        exposure.lots.shift();
        if (lotFill.nanos - lotFill.closingNanos - lotFill.closedNanos - lotFill.expiredNanos === 0) {
          lotFill.status = 'settled';
          lotFill.settledAt = ctx.now;
        }
      }
      ctx.fillChanged(lotFill);
    }
    exposure.positionNanos += isBuy ? closingNanos : -closingNanos;
  }
  const openingNanos = nanos - closingNanos;
  if (openingNanos > 0) {
    exposure.lots.push({ fillId, nanos: openingNanos, priceCents });
    exposure.openPremium = plusContractsTimesCents(exposure.openPremium, openingNanos, priceCents);
    exposure.positionNanos += isBuy ? openingNanos : -openingNanos;
  }
  const eventId = market.eventId;
  if (!isZero(realized)) {
    transfer(ctx, account, realized, pool(market.id), 'trade_pnl', null);
    exposure.realizedPnl = plus(exposure.realizedPnl, realized);
    account.totals.settlementPnl = plus(account.totals.settlementPnl, realized);
  }
  const feePaid = negated(fee.rounded);
  const feeEntryId = ctx.nextId('ledger');
  transfer(ctx, account, feePaid, FEES, 'fee', {
    id: feeEntryId, accountId: account.id, type: 'fee', amount: feePaid,
    eventId, marketId: market.id, feeSource: 'trade', tradeId: fillId,
  });
  exposure.fees = plus(exposure.fees, fee.rounded);
  account.totals.fees = plus(account.totals.fees, fee.rounded);
  const riskCents = riskCentsOf(order.action, priceCents, maxPriceCents);
  account.totals.traded = plusContractsTimesCents(account.totals.traded, nanos, riskCents);
  account.tradeCount += 1;
  if (account.tradeCount === 1 && state.referrals.byReferee.size > 0) creditReferral(ctx, account);
  exposure.amountRisked = plusContractsTimesCents(exposure.amountRisked, nanos, riskCents);
  exposure.pointsPending += points;
  refreshLiability(account, exposure, maxPriceCents);
  ctx.positionChanged(exposure);
  ctx.balanceChanged(account);

  const event = state.events.get(eventId);
  const fill: FillState = {
    id: fillId, tradeId, counterpartFillId, orderId: order.id, accountId: account.id, marketId: market.id, eventId,
    clientOrderId: order.clientOrderId, action: order.action, liquidity,
    status: openingNanos > 0 ? 'open' : 'settled',
    priceCents, nanos, originalNanos: nanos, originalPriceCents: priceCents, amended: false, lastModifiedAt: null,
    closingNanos, closedNanos: 0, expiredNanos: 0, closedPnl: ZERO, expiredPnl: ZERO,
    tradeFee: fee.rounded, unroundedFee: fee.unrounded, feeRefunded: ZERO, points,
    settlementsCount: 0, placedPreStart: order.placedPreStart, preStart: !event || event.startedAt === null,
    deviceId: order.deviceId, ipAddress: order.ipAddress, maxPriceCents,
    openedAt: ctx.now, expiresAt: order.expiresAt, settledAt: openingNanos > 0 ? null : ctx.now,
    insertedAt: ctx.now, updatedAt: ctx.now, seq: ctx.seq, feeEntryId,
  };
  state.fills.set(fillId, fill);
  market.fillIds.add(fillId);
  return fill;
}

/** Takes an order out of the live set (it reached a terminal status). */
function finish(ctx: StepContext, market: MarketState, order: OrderState): void {
  const state = ctx.state;
  state.orders.delete(order.id);
  countLive(state, order.accountId, -1);
  market.liveOrderIds.delete(order.id);
  state.timedOrderIds.delete(order.id);
  state.finishedOrders.set(order.id, order.accountId);
  ctx.orderChanged(order);
}

/** Cancels a live order: off the book, reservation released, `cancelled` or `partially_cancelled`. */
export function cancelLive(ctx: StepContext, order: OrderState, reason: CancellationReason): void {
  const state = ctx.state;
  const market = state.markets.get(order.marketId)!;
  market.book.cancel(order.id);
  const account = state.accounts.get(order.accountId)!;
  const exposure = account.exposures.get(market.id)!;
  reserve(account, exposure, order, order.quantityNanos - order.filledNanos, -1, market.maxPriceCents);
  refreshLiability(account, exposure, market.maxPriceCents);
  ctx.balanceChanged(account);
  order.status = order.filledNanos > 0 ? 'partially_cancelled' : 'cancelled';
  order.cancellationReason = reason;
  ctx.emit({ type: 'OrderCancelled', order_id: order.id, reason });
  finish(ctx, market, order);
}

export function cancelOrder(ctx: StepContext, accountId: string, orderId: string): OrderOutcome {
  const order = ctx.state.orders.get(orderId);
  if (!order || order.accountId !== accountId) {
    if (ctx.state.finishedOrders.get(orderId) === accountId) return refuse({ code: 'order_not_cancellable' });
    return refuse({ code: 'order_not_found' });
  }
  cancelLive(ctx, order, CancellationReasons.user);
  return { order };
}

/** The account's live orders (in one market, or every market it has an exposure in), in arrival order per market. */
export function liveOrderIdsOf(ctx: StepContext, accountId: string, marketId: string | null, cancelOnDisconnectOnly: boolean): string[] {
  const account = ctx.state.accounts.get(accountId);
  if (!account) return [];
  const marketIds = marketId === null ? [...account.exposures.keys()].sort() : [marketId];
  const ids: string[] = [];
  for (const id of marketIds) {
    const market = ctx.state.markets.get(id);
    if (!market) continue;
    for (const orderId of market.liveOrderIds) {
      const order = ctx.state.orders.get(orderId);
      if (order && order.accountId === accountId && (!cancelOnDisconnectOnly || order.cancelOnDisconnect)) ids.push(orderId);
    }
  }
  return ids;
}

/** A delayed order whose delay has passed goes to the book (or fills). */
export function release(ctx: StepContext, market: MarketState, order: OrderState): void {
  order.status = 'open';
  order.acceptedAt = ctx.now;
  if (order.expiration !== 'good_till_time') ctx.state.timedOrderIds.delete(order.id);
  ctx.emit({ type: 'OrderReleased', order_id: order.id });
  execute(ctx, market, order);
}
