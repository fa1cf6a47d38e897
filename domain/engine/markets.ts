// Sport events and markets: scheduling, event start, listing, status and trading changes
// (uncrossing accepted orders when a market opens), results (settlement, void) and timers.

import { dueOrderIds, settleWaiting } from './timers.ts';
import { FastOrderBook } from '../book/fast.ts';
import type { ErrorInfo } from '../errors.ts';
import { centsToDecimal, contractsTimesCents, decimalText, isPositive, isZero, minus, negated, parseMaxPriceCents, plus, ZERO } from '../money/decimal.ts';
import type { MarketStatus } from '../views.ts';
import { retier } from './accounts.ts';
import type { StepContext } from './context.ts';
import { refreshLiability } from './funds.ts';
import type { EngineInput } from './inputs.ts';
import { FEES, pool, recordEntry, transfer } from './ledger.ts';
import { CancellationReasons, cancelLive, execute, release } from './orders.ts';
import { marketView, sportEventView } from './snapshots.ts';
import type { MarketState } from './state.ts';

export const MarketErrors = {
  eventNotFound: 'Event not found',
  eventExists: 'Event already exists',
  eventStarted: 'Event has already started',
  marketNotFound: 'Market not found',
  marketExists: 'Market already exists',
  marketSettled: 'Market is already settled',
  marketCancelled: 'Market is cancelled; only a result can follow',
  statusNotSettable: 'status must be one of scheduled, pre_open, open, closed, cancelled',
  listingStatus: 'status must be one of scheduled, pre_open, open, closed',
  symbolTaken: (symbol: string) => `symbol ${symbol} is already used by another market`,
} as const;

type Result = ErrorInfo | null;
const refused = (message: string): ErrorInfo => ({ code: 'refused', message });
/** The input's subject (or the event a market is listed on) does not exist (the operator API answers 404). */
const notFound = (message: string): ErrorInfo => ({ code: 'not_found', message });
const invalid = (message: string): ErrorInfo => ({ code: 'invalid', message });

const SETTABLE: readonly MarketStatus[] = ['scheduled', 'pre_open', 'open', 'closed', 'cancelled'];
const LISTABLE: readonly MarketStatus[] = ['scheduled', 'pre_open', 'open', 'closed'];
const CANCEL_REASON_ON: Partial<Record<MarketStatus, string>> = {
  scheduled: CancellationReasons.marketSuspended,
  closed: CancellationReasons.marketClosed,
  cancelled: CancellationReasons.marketCancelled,
};

export function scheduleSportEvent(ctx: StepContext, input: Extract<EngineInput, { kind: 'ScheduleSportEvent' }>): Result {
  const fields = input.event;
  if (ctx.state.events.has(fields.event_id)) return refused(MarketErrors.eventExists);
  const event = {
    id: fields.event_id, title: fields.title, shortTitle: fields.short_title, eventType: fields.event_type,
    sport: fields.sport, competition: fields.competition, participants: [...fields.participants],
    start: fields.start, startedAt: null, marketIds: [],
  };
  ctx.state.events.set(event.id, event);
  ctx.lifecycle.push({ type: 'SportEventScheduled', event: sportEventView(event) });
  return null;
}

export function startSportEvent(ctx: StepContext, input: Extract<EngineInput, { kind: 'StartSportEvent' }>): Result {
  const event = ctx.state.events.get(input.event_id);
  if (!event) return notFound(MarketErrors.eventNotFound);
  if (event.startedAt !== null) return refused(MarketErrors.eventStarted);
  event.startedAt = ctx.now;
  ctx.lifecycle.push({ type: 'SportEventStarted', event: sportEventView(event) });
  for (const marketId of event.marketIds) {
    const market = ctx.state.markets.get(marketId)!;
    for (const orderId of [...market.liveOrderIds]) {
      const order = ctx.state.orders.get(orderId)!;
      if (order.expiration === 'good_till_start') cancelLive(ctx, order, CancellationReasons.eventStarted);
    }
  }
  return null;
}

export function listMarket(ctx: StepContext, input: Extract<EngineInput, { kind: 'ListMarket' }>): Result {
  const fields = input.market;
  if (ctx.state.markets.has(fields.market_id)) return refused(MarketErrors.marketExists);
  const event = ctx.state.events.get(fields.event_id);
  if (!event) return notFound(MarketErrors.eventNotFound);
  const maxPrice = parseMaxPriceCents(fields.max_price);
  if (!maxPrice.ok) return invalid(maxPrice.error.message);
  if (!LISTABLE.includes(fields.status)) return invalid(MarketErrors.listingStatus);
  if (fields.symbol !== null && symbolInUse(ctx, fields.symbol)) return refused(MarketErrors.symbolTaken(fields.symbol));
  const market: MarketState = {
    id: fields.market_id, eventId: fields.event_id, title: fields.title, shortTitle: fields.short_title,
    question: fields.question, rules: fields.rules, symbol: fields.symbol, groupingId: fields.grouping_id,
    groupingName: fields.grouping_name, featured: fields.featured, status: fields.status, trading: fields.trading,
    maxPriceCents: maxPrice.value, maxPrice: centsToDecimal(maxPrice.value),
    inPlayDelaySec: Math.max(0, Math.floor(fields.in_play_delay_sec)), pointsCost: Math.max(0, fields.points_cost),
    result: null, settledAt: null, lastTradedCents: null, createdAt: ctx.now, updatedAt: ctx.now, seq: ctx.seq,
    book: new FastOrderBook(maxPrice.value), liveOrderIds: new Set(), accountIds: new Set(), fillIds: new Set(),
  };
  ctx.state.markets.set(market.id, market);
  ctx.state.ledger.pools.set(market.id, ZERO);
  event.marketIds.push(market.id);
  ctx.lifecycle.push({ type: 'MarketListed', market: marketView(market) });
  return null;
}

/** SPEC: a market's `symbol` is unique (markets are few: a scan). */
function symbolInUse(ctx: StepContext, symbol: string): boolean {
  for (const market of ctx.state.markets.values()) if (market.symbol === symbol) return true;
  return false;
}

function isSettled(market: MarketState): boolean {
  return market.status === 'resulted' || market.status === 'voided';
}

export function changeMarketStatus(ctx: StepContext, input: Extract<EngineInput, { kind: 'ChangeMarketStatus' }>): Result {
  const market = ctx.state.markets.get(input.market_id);
  if (!market) return notFound(MarketErrors.marketNotFound);
  if (isSettled(market)) return refused(MarketErrors.marketSettled);
  if (input.status !== undefined && !SETTABLE.includes(input.status)) return invalid(MarketErrors.statusNotSettable);
  if (market.status === 'cancelled' && input.status !== undefined && input.status !== 'cancelled') return refused(MarketErrors.marketCancelled);
  const status = input.status ?? market.status;
  const trading = input.trading ?? market.trading;
  if (status === market.status && trading === market.trading) return null;
  market.status = status;
  market.trading = trading;
  ctx.marketChanged(market);
  const reason = CANCEL_REASON_ON[status];
  if (reason) {
    cancelAllLive(ctx, market, reason);
  } else if (status === 'open' && trading) {
    openForTrading(ctx, market);
  }
  return null;
}

function cancelAllLive(ctx: StepContext, market: MarketState, reason: string): void {
  for (const orderId of [...market.liveOrderIds]) cancelLive(ctx, ctx.state.orders.get(orderId)!, reason);
}

/** On an open, trading market: accepted orders uncross in arrival order; due delayed orders go in. */
function openForTrading(ctx: StepContext, market: MarketState): void {
  for (const orderId of [...market.liveOrderIds]) {
    const order = ctx.state.orders.get(orderId);
    if (!order) continue; // cancelled by self-trade prevention or funds while uncrossing
    if (order.status === 'accepted') {
      order.status = 'open';
      execute(ctx, market, order);
    } else if (order.status === 'delayed' && order.delayedUntil !== null && order.delayedUntil <= ctx.now) {
      release(ctx, market, order);
    }
  }
}

export function resultMarket(ctx: StepContext, input: Extract<EngineInput, { kind: 'ResultMarket' }>): Result {
  const state = ctx.state;
  const market = state.markets.get(input.market_id);
  if (!market) return notFound(MarketErrors.marketNotFound);
  if (isSettled(market)) return refused(MarketErrors.marketSettled);
  const voided = input.result === 'void';
  cancelAllLive(ctx, market, voided ? CancellationReasons.marketVoided : CancellationReasons.marketResulted);
  const settlementId = ctx.nextId('settlement');
  if (voided) voidPositions(ctx, market, settlementId);
  else settlePositions(ctx, market, input.result === 'win', settlementId);
  for (const fillId of market.fillIds) {
    state.fills.delete(fillId);
    state.settledFills.set(fillId, market.id);
  }
  market.fillIds.clear();
  for (const accountId of market.accountIds) state.accounts.get(accountId)!.exposures.delete(market.id);
  market.accountIds.clear();
  const poolBalance = state.ledger.pools.get(market.id) ?? ZERO;
  if (!isZero(poolBalance)) throw new Error(`market ${market.id} settled with a pool of ${decimalText(poolBalance)}`);
  state.ledger.pools.delete(market.id);
  market.status = voided ? 'voided' : 'resulted';
  market.result = input.result;
  market.settledAt = ctx.now;
  ctx.marketChanged(market);
  ctx.settled.push({ type: 'MarketSettled', market_id: market.id, result: input.result, settled_at: ctx.now, settlement_id: settlementId });
  return null;
}

/** win: every long contract is paid max_price; lose: nothing. Points are credited (rollup). */
function settlePositions(ctx: StepContext, market: MarketState, win: boolean, settlementId: string): void {
  const state = ctx.state;
  const max = market.maxPriceCents;
  for (const accountId of market.accountIds) {
    const account = state.accounts.get(accountId)!;
    const exposure = account.exposures.get(market.id)!;
    const long = exposure.positionNanos > 0;
    let pnl = ZERO;
    const hadPosition = exposure.lots.length > 0;
    for (const lot of exposure.lots) {
      const perContractCents = win ? (long ? max - lot.priceCents : lot.priceCents - max) : (long ? -lot.priceCents : lot.priceCents);
      const lotPnl = contractsTimesCents(lot.nanos, perContractCents);
      pnl = plus(pnl, lotPnl);
      const fill = state.fills.get(lot.fillId)!;
      fill.expiredNanos += lot.nanos;
      fill.expiredPnl = plus(fill.expiredPnl, lotPnl);
      fill.settlementsCount += 1;
    }
    exposure.lots = [];
    exposure.positionNanos = 0;
    exposure.openPremium = ZERO;
    if (hadPosition) {
      transfer(ctx, account, pnl, pool(market.id));
      exposure.realizedPnl = plus(exposure.realizedPnl, pnl);
      account.totals.settlementPnl = plus(account.totals.settlementPnl, pnl);
      recordEntry(ctx, {
        id: ctx.nextId('ledger'), accountId, type: 'settlement', amount: pnl, eventId: market.eventId, marketId: market.id, settlementId,
      });
      ctx.positionChanged(exposure);
    }
    if (exposure.pointsPending > 0) {
      account.points += exposure.pointsPending;
      recordEntry(ctx, {
        id: ctx.nextId('ledger'), accountId, type: 'rollup', amount: exposure.amountRisked, points: exposure.pointsPending,
        eventId: market.eventId, marketId: market.id, settlementId,
      });
      exposure.pointsPending = 0;
      retier(ctx, account);
    }
    refreshLiability(account, exposure, max);
    ctx.balanceChanged(account);
  }
  for (const fillId of market.fillIds) {
    const fill = state.fills.get(fillId)!;
    if (fill.status === 'open') {
      fill.status = 'settled';
      fill.settledAt = ctx.now;
      ctx.fillChanged(fill);
    } else if (fill.expiredNanos > 0) {
      ctx.fillChanged(fill);
    }
  }
}

/** void: realised PnL in the market is reversed and every trade fee refunded; fills are cancelled. */
function voidPositions(ctx: StepContext, market: MarketState, settlementId: string): void {
  const state = ctx.state;
  for (const fillId of market.fillIds) {
    const fill = state.fills.get(fillId)!;
    const account = state.accounts.get(fill.accountId)!;
    const exposure = account.exposures.get(market.id)!;
    if (isPositive(fill.tradeFee)) {
      transfer(ctx, account, fill.tradeFee, FEES);
      fill.feeRefunded = fill.tradeFee;
      account.totals.fees = minus(account.totals.fees, fill.tradeFee);
      exposure.fees = minus(exposure.fees, fill.tradeFee);
      recordEntry(ctx, {
        id: ctx.nextId('ledger'), accountId: account.id, type: 'fee_refund', amount: fill.tradeFee,
        eventId: market.eventId, marketId: market.id, feeSource: 'trade', tradeId: fill.id, settlementId,
      });
    }
    // everything unwinds at zero PnL: what closing trades realised on this fill is reversed below
    fill.closedPnl = ZERO;
    fill.expiredPnl = ZERO;
    fill.status = 'cancelled';
    fill.settledAt = null;
    ctx.fillChanged(fill);
  }
  for (const accountId of market.accountIds) {
    const account = state.accounts.get(accountId)!;
    const exposure = account.exposures.get(market.id)!;
    const traded = isPositive(exposure.amountRisked);
    const reversal = negated(exposure.realizedPnl);
    transfer(ctx, account, reversal, pool(market.id));
    account.totals.settlementPnl = plus(account.totals.settlementPnl, reversal);
    exposure.realizedPnl = ZERO;
    exposure.lots = [];
    exposure.positionNanos = 0;
    exposure.openPremium = ZERO;
    exposure.pointsPending = 0;
    if (traded) {
      recordEntry(ctx, {
        id: ctx.nextId('ledger'), accountId, type: 'settlement', amount: reversal, eventId: market.eventId, marketId: market.id, settlementId,
      });
      ctx.positionChanged(exposure);
    }
    refreshLiability(account, exposure, market.maxPriceCents);
    ctx.balanceChanged(account);
  }
}

/** Timers: good_till_time expiry and the end of in-play delays. */
export function tick(ctx: StepContext): void {
  const state = ctx.state;
  if (state.timedOrderIds.size === 0) return;
  const candidates = dueOrderIds(state, ctx.now);
  for (const orderId of candidates) {
    const order = state.orders.get(orderId);
    if (!order) continue;
    if (order.expiration === 'good_till_time' && order.expirationTime !== null && order.expirationTime <= ctx.now) {
      cancelLive(ctx, order, CancellationReasons.expired);
    } else if (order.status === 'delayed' && order.delayedUntil !== null && order.delayedUntil <= ctx.now) {
      const market = state.markets.get(order.marketId)!;
      if (market.status === 'open' && market.trading) release(ctx, market, order);
    }
  }
  settleWaiting(state, candidates);
}
