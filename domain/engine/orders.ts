// Orders: placement (validation, funding, status by market state), matching with self-trade
// prevention, fills with FIFO position lots and fees, cancellation and release of delayed orders.

import type { RestingOrder } from '../book/book.ts';
import { marketOrderLimit, matchIncoming, type MatchPolicy, type TradeVerdict } from '../book/match.ts';
import type { Refusal } from '../errors.ts';
import {
  compare,
  contractsTimesCents,
  FEE_DECIMAL_PLACES,
  formatCents,
  formatNanos,
  isZero,
  money,
  NANOS_PER_CONTRACT,
  negated,
  parsePriceCents,
  parseQuantityNanos,
  plus,
  toFixedPlaces,
  ZERO,
  type Decimal,
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
import {
  ORDER_SHARER,
  type AccountState,
  type EngineState,
  type Exposure,
  type MarketState,
  type OrderState,
  type SportEventState,
} from './state.ts';
import { assert, present } from '../assert.ts';
import { accountTraded, riskCentsOf } from '../evolve/accounts.ts';
import { fillLotClosed, fillOfTrade } from '../evolve/fills.ts';
import { marketTraded } from '../evolve/markets.ts';
import {
  cancelledStatus,
  orderCancelled,
  orderPlaced,
  orderReleased,
  orderTraded,
  REJECTION_TEXT,
  statusAfterFill,
} from '../evolve/orders.ts';
import { positionLotClosed, positionTraded } from '../evolve/positions.ts';
import {
  exposureTraded,
  lotOpened,
  oldestLotClosed,
  orderFinished,
  orderLive,
  orderRejected,
  orderReleasedFromTimers,
} from '../evolve/books.ts';

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
export const RejectionReasons = { insufficientFunds: REJECTION_TEXT } as const;

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

export interface OrderOutcome {
  order?: OrderState;
  error?: Refusal;
}

const refuse = (error: Refusal): OrderOutcome => ({ error });
const MICROS_PER_SECOND = 1_000_000;

export function decideOrder(
  ctx: StepContext,
  accountId: string,
  request: OrderRequest,
  limits?: OrderLimits,
): OrderOutcome {
  const state = ctx.state;
  const account = state.accounts.get(accountId);
  if (!account) return refuse({ code: 'order_account_unknown' });
  if (account.status !== 'active') return refuse({ code: 'order_account_not_active' });
  if (state.orders.has(request.order_id) || state.finishedOrders.has(request.order_id))
    return refuse({ code: 'order_exists' });
  const market = state.markets.get(request.market_id);
  if (!market) return refuse({ code: 'order_market_unknown' });
  if (!((market.status === 'open' || market.status === 'pre_open') && market.trading))
    return refuse({ code: 'market_not_accepting_orders' });
  if (request.order_type === 'market' && market.status === 'pre_open')
    return refuse({ code: 'market_order_before_open' });
  const priceCents = requestPriceCents(request, market.maxPriceCents);
  if (priceCents !== null && typeof priceCents === 'object') return refuse(priceCents);
  const quantity = parseQuantityNanos(request.quantity);
  if (!quantity.ok) return refuse(quantity.error);
  const event = state.sportEvents.get(market.eventId);
  const started = event !== undefined && event.startedAt !== null;
  if (request.expiration === 'good_till_start' && started) return refuse({ code: 'event_started' });
  if (request.expiration === 'good_till_time') {
    if (request.expiration_time === null || request.expiration_time === undefined)
      return refuse({ code: 'expiration_time_required' });
    if (request.expiration_time <= ctx.now) return refuse({ code: 'expiration_time_past' });
  }
  if (limits) {
    const refusal = limitsRefusal(state, accountId, market, request.action, priceCents, quantity.value, limits);
    if (refusal) return refuse(refusal);
  }
  const order = orderOf(ctx, accountId, request, market.id, priceCents, quantity.value, event, started);
  ctx.orderChanged(order);
  return admit(ctx, account, market, order, started);
}

/**
 * A limit order's price in cents, null for a market order, or why the price is refused (a
 * market order's price is unused but validated whenever present, docs/TRADING.md "Orders",
 * max_price included).
 */
function requestPriceCents(request: OrderRequest, maxPriceCents: number): number | null | Refusal {
  const text = request.price;
  if (text === null || text === undefined) return request.order_type === 'limit' ? { code: 'price_required' } : null;
  const price = parsePriceCents(text, maxPriceCents);
  if (!price.ok) return price.error;
  return request.order_type === 'limit' ? price.value : null;
}

/** Why an order is refused under the limits its input carries (live orders per account, the minimum risk), or null. */
function limitsRefusal(
  state: EngineState,
  accountId: string,
  market: MarketState,
  action: OrderRequest['action'],
  priceCents: number | null,
  quantityNanos: number,
  limits: OrderLimits,
): Refusal | null {
  if ((liveCountsOf(state).get(accountId) ?? 0) >= limits.live_orders_max)
    return { code: 'too_many_live_orders', live_orders_max: limits.live_orders_max };
  // a market order risks at the worst price it may reach now (no liquidity: it is cancelled, risking nothing)
  const riskPriceCents = priceCents ?? marketOrderLimit(market.book, action, quantityNanos, accountId);
  if (riskPriceCents < 0) return null;
  const riskPerContract = riskCentsOf(action, riskPriceCents, market.maxPriceCents);
  if (!risksAtLeast(quantityNanos, riskPerContract, limits.risk_min_cents))
    return { code: 'order_risk_too_small', risk_min: formatCents(limits.risk_min_cents) };
  return null;
}

/** The order a valid request makes, as it is before it is taken in (status `created`). */
function orderOf(
  ctx: StepContext,
  accountId: string,
  request: OrderRequest,
  marketId: string,
  priceCents: number | null,
  quantityNanos: number,
  event: SportEventState | undefined,
  started: boolean,
): OrderState {
  return {
    id: request.order_id,
    accountId,
    marketId,
    action: request.action,
    orderType: request.order_type,
    status: 'created',
    quantityNanos,
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
    [ORDER_SHARER]: null,
  };
}

/**
 * A valid order request's order, taken in: a market order finds the worst price it may reach (or
 * no liquidity), the order is funded (or rejected for funds), then it waits for the open
 * (pre-open market), waits out the in-play delay, or goes to matching.
 */
function admit(
  ctx: StepContext,
  account: AccountState,
  market: MarketState,
  order: OrderState,
  started: boolean,
): OrderOutcome {
  const state = ctx.state;
  const accountId = account.id;
  if (order.orderType === 'market') {
    // A market order is an immediate-or-cancel order limited at the worst price the book offers now.
    // The taker's own resting orders are cancelled on the way (self-trade prevention), so
    // they do not count towards the quantity it can fill.
    const worst = marketOrderLimit(market.book, order.action, order.quantityNanos, accountId);
    if (worst < 0) {
      orderRejected(state, order.id, accountId);
      orderPlaced(order, emitted(ctx, rejectedFact(order, 'no_liquidity')), ctx.now);
      return { order };
    }
    order.reserveCents = worst;
  }

  const funding = liabilityWithOrder(account, account.exposures.get(market.id), order, market.maxPriceCents);
  if (compare(account.cash, funding.total) < 0) {
    orderRejected(state, order.id, accountId);
    orderPlaced(order, emitted(ctx, rejectedFact(order, 'insufficient_funds')), ctx.now);
    return { order };
  }

  orderLive(state, market, order);
  countLive(state, accountId, 1);
  const marketExposure = exposureOf(account, market, ctx.now);
  applyFunding(account, marketExposure, order, funding); // = reserve + refreshLiability: the same computation was just made
  ctx.balanceChanged(account);
  if (order.expiration === 'good_till_time') addTimer(state, order);

  if (market.status === 'pre_open') {
    orderPlaced(order, emitted(ctx, acceptedFact(order, 'accepted', null)), ctx.now);
  } else if (started && market.inPlayDelaySec > 0) {
    orderPlaced(
      order,
      emitted(ctx, acceptedFact(order, 'delayed', ctx.now + market.inPlayDelaySec * MICROS_PER_SECOND)),
      ctx.now,
    );
    addTimer(state, order);
  } else {
    orderPlaced(order, emitted(ctx, acceptedFact(order, 'open', null)), ctx.now);
    execute(ctx, market, order);
  }
  return { order };
}

/** States `fact` and hands it back (for the evolve that applies it). */
function emitted<T extends EngineEvent>(ctx: StepContext, fact: T): T {
  ctx.emit(fact);
  return fact;
}

// The placement facts: the order's terms after the fact's own fields, in the order the journal's
// key lists give (factEncoding.ts), built in one object literal each.

type AcceptedFact = Extract<EngineEvent, { type: 'OrderAccepted' }>;
type RejectedFact = Extract<EngineEvent, { type: 'OrderRejected' }>;

function acceptedFact(order: OrderState, status: AcceptedFact['status'], delayedUntil: number | null): AcceptedFact {
  return {
    type: 'OrderAccepted',
    status,
    delayed_until: delayedUntil,
    order_id: order.id,
    account_id: order.accountId,
    market_id: order.marketId,
    action: order.action,
    order_type: order.orderType,
    price: order.priceCents === null ? null : formatCents(order.priceCents),
    quantity: formatNanos(order.quantityNanos),
    expiration: order.expiration,
    expiration_time: order.expirationTime,
    expires_at: order.expiresAt,
    placed_pre_start: order.placedPreStart,
    client_order_id: order.clientOrderId,
    device_id: order.deviceId,
    ip_address: order.ipAddress,
    cancel_on_disconnect: order.cancelOnDisconnect,
  };
}

function rejectedFact(order: OrderState, reason: RejectedFact['reason']): RejectedFact {
  return {
    type: 'OrderRejected',
    reason,
    order_id: order.id,
    account_id: order.accountId,
    market_id: order.marketId,
    action: order.action,
    order_type: order.orderType,
    price: order.priceCents === null ? null : formatCents(order.priceCents),
    quantity: formatNanos(order.quantityNanos),
    expiration: order.expiration,
    expiration_time: order.expirationTime,
    expires_at: order.expiresAt,
    placed_pre_start: order.placedPreStart,
    client_order_id: order.clientOrderId,
    device_id: order.deviceId,
    ip_address: order.ipAddress,
    cancel_on_disconnect: order.cancelOnDisconnect,
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
  const result = matchIncoming(
    market.book,
    {
      id: order.id,
      ownerId: order.accountId,
      side: order.action,
      limitCents: order.reserveCents,
      quantityNanos: order.quantityNanos - order.filledNanos,
      rests: order.orderType === 'limit',
    },
    policy,
  );
  if (order.filledNanos === order.quantityNanos) {
    assert(order.status === 'filled', 'an order filled whole was stated filled');
    finish(ctx, market, order);
  } else if (result.rested) {
    assert(order.status === 'open', 'a resting order is open');
  } else {
    cancelLive(
      ctx,
      order,
      result.stopped
        ? CancellationReasons.insufficientFunds
        : order.orderType === 'market'
          ? CancellationReasons.marketOrderRemainder
          : CancellationReasons.user,
    );
  }
  ctx.orderChanged(order);
}

/** The engine's side of matching one incoming order: fees, funds and the fills of each trade. */
class FundsPolicy implements MatchPolicy {
  private readonly taker: AccountState;
  private makerFee: Fee | null = null;
  private takerFee: Fee | null = null;

  constructor(
    private readonly ctx: StepContext,
    private readonly market: MarketState,
    private readonly order: OrderState,
  ) {
    this.taker = present(ctx.state.accounts.get(order.accountId), "a live order's account is open");
  }

  beforeTrade(resting: RestingOrder, nanos: number): TradeVerdict {
    const { ctx, market } = this;
    const makerOrder = present(ctx.state.orders.get(resting.id), 'a resting order is live');
    const maker = present(ctx.state.accounts.get(resting.ownerId), "a resting order's account is open");
    const makerFee = tradeFee(maker.rates.maker, nanos, resting.priceCents, market.maxPriceCents);
    const takerFee = tradeFee(this.taker.rates.taker, nanos, resting.priceCents, market.maxPriceCents);
    if (!canPayFee(maker, makerOrder, nanos, makerFee.rounded, market.maxPriceCents)) return 'cancel_resting';
    if (!canPayFee(this.taker, this.order, nanos, takerFee.rounded, market.maxPriceCents)) return 'stop';
    this.makerFee = makerFee;
    this.takerFee = takerFee;
    return 'trade';
  }

  onTrade(resting: RestingOrder, nanos: number, priceCents: number): void {
    assert(this.takerFee !== null && this.makerFee !== null, 'a trade follows its beforeTrade verdict');
    const maker = present(this.ctx.state.orders.get(resting.id), 'a resting order is live');
    trade(this.ctx, this.market, this.order, maker, nanos, priceCents, this.takerFee, this.makerFee);
  }

  onCancelled(resting: RestingOrder, selfTrade: boolean): void {
    const order = present(this.ctx.state.orders.get(resting.id), 'a resting order is live');
    cancelLive(this.ctx, order, selfTrade ? CancellationReasons.selfTrade : CancellationReasons.insufficientFunds);
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
  ctx: StepContext,
  market: MarketState,
  taker: OrderState,
  maker: OrderState,
  nanos: number,
  priceCents: number,
  takerFee: Fee,
  makerFee: Fee,
): void {
  const tradeId = ctx.nextId('trade');
  const makerFillId = ctx.nextId('fill');
  const takerFillId = ctx.nextId('fill');
  const event = ctx.state.sportEvents.get(market.eventId);
  const makerPoints = pointsForContracts(
    nanos,
    riskCentsOf(maker.action, priceCents, market.maxPriceCents),
    market.pointsCost,
  );
  const takerPoints = pointsForContracts(
    nanos,
    riskCentsOf(taker.action, priceCents, market.maxPriceCents),
    market.pointsCost,
  );
  const makerRemaining = maker.quantityNanos - maker.filledNanos - nanos;
  const takerRemaining = taker.quantityNanos - taker.filledNanos - nanos;
  assert(makerRemaining >= 0 && takerRemaining >= 0, 'a trade fills no order beyond its quantity');
  const makerClosing = closingOf(ctx, market, maker, nanos);
  const takerClosing = closingOf(ctx, market, taker, nanos);
  const fact: TradedFact = {
    type: 'Traded',
    trade_id: tradeId,
    market_id: market.id,
    price: formatCents(priceCents),
    quantity: formatNanos(nanos),
    taker_side: taker.action,
    pre_start: !event || event.startedAt === null,
    maker_order_id: maker.id,
    maker_account_id: maker.accountId,
    maker_fill_id: makerFillId,
    maker_closing: formatNanos(makerClosing),
    maker_fee: toFixedPlaces(makerFee.unrounded, FEE_DECIMAL_PLACES),
    maker_points: makerPoints,
    maker_remaining: formatNanos(makerRemaining),
    maker_status: statusAfterFill(makerRemaining),
    taker_order_id: taker.id,
    taker_account_id: taker.accountId,
    taker_fill_id: takerFillId,
    taker_closing: formatNanos(takerClosing),
    taker_fee: toFixedPlaces(takerFee.unrounded, FEE_DECIMAL_PLACES),
    taker_points: takerPoints,
    taker_remaining: formatNanos(takerRemaining),
    taker_status: statusAfterFill(takerRemaining),
  };
  ctx.emit(fact);
  applyFill(ctx, market, fact, true, maker, nanos, priceCents, makerClosing, makerRemaining, makerFee);
  applyFill(ctx, market, fact, false, taker, nanos, priceCents, takerClosing, takerRemaining, takerFee);
  if (maker.status === 'filled') finish(ctx, market, maker);
  marketTraded(market, priceCents);
  ctx.marketChanged(market);
}

type TradedFact = Extract<EngineEvent, { type: 'Traded' }>;

/** Contracts of a fill of `nanos` of `order` that close the account's opposite position (first in, first out). */
function closingOf(ctx: StepContext, market: MarketState, order: OrderState, nanos: number): number {
  const position = exposureIn(ctx, order.accountId, market.id).positionNanos;
  const opposite = order.action === 'buy' ? position < 0 : position > 0;
  return opposite ? Math.min(nanos, Math.abs(position)) : 0;
}

/** The exposure of a live order's account in its market (made when the order was funded). */
function exposureIn(ctx: StepContext, accountId: string, marketId: string): Exposure {
  const account = present(ctx.state.accounts.get(accountId), "a live order's account is open");
  return present(account.exposures.get(marketId), "a live order's account has an exposure in its market");
}

/**
 * One side of a trade, as its Traded fact states it (`maker` says which): the order, the lots it
 * closes (LotClosed facts, PnL realised by a trade_pnl transfer), its fee, the fill it opens, the
 * position and the account, each record changed by its evolve (domain/evolve/); the reservation,
 * lots and liability (the engine's own books) follow.
 */
function applyFill(
  ctx: StepContext,
  market: MarketState,
  fact: TradedFact,
  maker: boolean,
  order: OrderState,
  nanos: number,
  priceCents: number,
  closingNanos: number,
  remainingNanos: number,
  fee: Fee,
): void {
  const state = ctx.state;
  const account = present(state.accounts.get(order.accountId), "a live order's account is open");
  const exposure = exposureIn(ctx, order.accountId, market.id);
  const maxPriceCents = market.maxPriceCents;
  reserve(account, exposure, order, nanos, -1, maxPriceCents);
  ctx.orderChanged(order);
  orderTraded(order, nanos, priceCents, remainingNanos, statusAfterFill(remainingNanos));

  const realized = closeLots(ctx, exposure, order.action, closingNanos, priceCents);
  const openingNanos = nanos - closingNanos;
  lotOpened(exposure, maker ? fact.maker_fill_id : fact.taker_fill_id, openingNanos, priceCents);
  positionTraded(exposure, order.action, nanos, openingNanos, priceCents);
  const eventId = market.eventId;
  if (!isZero(realized)) transfer(ctx, account, realized, pool(market.id), 'trade_pnl', null);
  const fillId = maker ? fact.maker_fill_id : fact.taker_fill_id;
  const feePaid = negated(fee.rounded);
  const feeEntryId = ctx.nextId('ledger');
  transfer(ctx, account, feePaid, FEES, 'fee', {
    id: feeEntryId,
    accountId: account.id,
    type: 'fee',
    amount: feePaid,
    eventId,
    marketId: market.id,
    feeSource: 'trade',
    tradeId: fillId,
  });
  const riskCents = riskCentsOf(order.action, priceCents, maxPriceCents);
  accountTraded(account, nanos, riskCents);
  if (account.tradeCount === 1 && state.referrals.byReferee.size > 0) creditReferral(ctx, account);
  exposureTraded(exposure, nanos, riskCents, maker ? fact.maker_points : fact.taker_points);
  refreshLiability(account, exposure, maxPriceCents);
  ctx.positionChanged(exposure);
  ctx.balanceChanged(account);

  const fill = fillOfTrade(
    fact,
    maker,
    order,
    eventId,
    maxPriceCents,
    priceCents,
    nanos,
    closingNanos,
    fee.unrounded,
    fee.rounded,
    feeEntryId,
    ctx.now,
    ctx.seq,
  );
  state.fills.set(fillId, fill);
  market.fillIds.add(fillId);
}

/**
 * Closes `closingNanos` of the account's opposite lots first-in first-out at `priceCents`, each
 * piece stated as a LotClosed fact and applied to its fill and the position; the PnL realised.
 */
function closeLots(
  ctx: StepContext,
  exposure: Exposure,
  action: 'buy' | 'sell',
  closingNanos: number,
  priceCents: number,
): Decimal {
  let realized = ZERO;
  let toClose = closingNanos;
  while (toClose > 0) {
    const lot = present(exposure.lots[0], 'a position has an open lot for each contract it closes');
    const take = Math.min(lot.nanos, toClose);
    const pnl =
      action === 'buy'
        ? contractsTimesCents(take, lot.priceCents - priceCents) // short closed by a buy
        : contractsTimesCents(take, priceCents - lot.priceCents); // long closed by a sell
    realized = plus(realized, pnl);
    positionLotClosed(exposure, take, lot.priceCents);
    const lotFill = present(ctx.state.fills.get(lot.fillId), "an open lot's fill is not settled");
    ctx.emit({ type: 'LotClosed', fill_id: lot.fillId, quantity: formatNanos(take), pnl: money(pnl) });
    fillLotClosed(lotFill, take, pnl, ctx.now);
    oldestLotClosed(exposure, take);
    toClose -= take;
    ctx.fillChanged(lotFill);
  }
  return realized;
}

/** Takes an order out of the live set (it reached a terminal status). */
function finish(ctx: StepContext, market: MarketState, order: OrderState): void {
  orderFinished(ctx.state, market, order);
  countLive(ctx.state, order.accountId, -1);
  ctx.orderChanged(order);
}

/** Cancels a live order: off the book, reservation released, `cancelled` or `partially_cancelled`. */
export function cancelLive(ctx: StepContext, order: OrderState, reason: CancellationReason): void {
  const state = ctx.state;
  const market = present(state.markets.get(order.marketId), "a live order's market is listed");
  market.book.cancel(order.id);
  const account = present(state.accounts.get(order.accountId), "a live order's account is open");
  const exposure = exposureIn(ctx, order.accountId, market.id);
  reserve(account, exposure, order, order.quantityNanos - order.filledNanos, -1, market.maxPriceCents);
  refreshLiability(account, exposure, market.maxPriceCents);
  ctx.balanceChanged(account);
  const status = cancelledStatus(order.filledNanos);
  ctx.emit({ type: 'OrderCancelled', order_id: order.id, reason, status });
  ctx.orderChanged(order);
  orderCancelled(order, status, reason);
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
export function liveOrderIdsOf(
  ctx: StepContext,
  accountId: string,
  marketId: string | null,
  cancelOnDisconnectOnly: boolean,
): string[] {
  const account = ctx.state.accounts.get(accountId);
  if (!account) return [];
  const marketIds = marketId === null ? [...account.exposures.keys()].sort() : [marketId];
  const ids: string[] = [];
  for (const id of marketIds) {
    const market = ctx.state.markets.get(id);
    if (!market) continue;
    for (const orderId of market.liveOrderIds) {
      const order = ctx.state.orders.get(orderId);
      if (order && order.accountId === accountId && (!cancelOnDisconnectOnly || order.cancelOnDisconnect))
        ids.push(orderId);
    }
  }
  return ids;
}

/** An order waiting for the open, or a delayed order whose delay has passed, goes to the book (or fills). */
export function release(ctx: StepContext, market: MarketState, order: OrderState): void {
  orderReleasedFromTimers(ctx.state, order);
  ctx.emit({ type: 'OrderReleased', order_id: order.id });
  ctx.orderChanged(order);
  orderReleased(order, ctx.now);
  execute(ctx, market, order);
}
