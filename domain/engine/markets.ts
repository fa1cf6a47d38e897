// Sport events and markets: scheduling, event start, listing, status and trading changes
// (uncrossing accepted orders when a market opens), results (settlement, void) and timers.

import { dueOrderIds, settleWaiting } from './timers.ts';
import type { Refusal } from '../errors.ts';
import {
  centsToDecimal,
  contractsTimesCents,
  decimalText,
  formatNanos,
  isPositive,
  isZero,
  money,
  negated,
  parseMaxPriceCents,
  plus,
  ZERO,
  type Decimal,
} from '../money/decimal.ts';
import type { MarketStatus } from '../views.ts';
import { retier } from './accounts.ts';
import type { StepContext } from './context.ts';
import type { CancellationReason } from './events.ts';
import { refreshLiability } from './funds.ts';
import { applyMarketDetails, emitMarketUpdated, marketCatalogueKey, sameStrings } from './catalogue.ts';
import type { EngineInput } from './inputs.ts';
import { creditPoints, FEES, pool, setPool, transfer } from './ledger.ts';
import { CancellationReasons, cancelLive, release } from './orders.ts';
import { assessSettlementFees, canResettle, inheritSettlementFees, resettle } from './settlementFees.ts';
import type { AccountState, MarketState, SettledAccount, Exposure } from './state.ts';
import { present } from '../assert.ts';
import { fillLotSettled, fillResulted, fillVoided } from '../evolve/fills.ts';
import {
  marketArchived,
  marketSettled,
  marketStatusChanged,
  sportEventStarted,
  sportEventUpdated,
} from '../evolve/markets.ts';
import { positionClosedOut } from '../evolve/positions.ts';
import type { EngineEvent } from './events.ts';
import { marketBooksSettled, settledAccountsOf } from '../evolve/books.ts';
import { marketStateOf, sportEventStateOf } from '../evolve/engineRecords.ts';

type Result = Refusal | null;

const SETTABLE: readonly MarketStatus[] = ['scheduled', 'pre_open', 'open', 'closed', 'cancelled'];
const LISTABLE: readonly MarketStatus[] = ['scheduled', 'pre_open', 'open', 'closed'];
const CANCEL_REASON_ON: Partial<Record<MarketStatus, CancellationReason>> = {
  scheduled: CancellationReasons.marketSuspended,
  closed: CancellationReasons.marketClosed,
  cancelled: CancellationReasons.marketCancelled,
};

export function scheduleSportEvent(
  ctx: StepContext,
  input: Extract<EngineInput, { kind: 'ScheduleSportEvent' }>,
): Result {
  const fields = input.event;
  if (ctx.state.sportEvents.has(fields.event_id)) return { code: 'event_exists' };
  const scheduled: Extract<EngineEvent, { type: 'SportEventScheduled' }> = {
    type: 'SportEventScheduled',
    event_id: fields.event_id,
    title: fields.title,
    short_title: fields.short_title,
    event_type: fields.event_type,
    sport: fields.sport,
    competition: fields.competition,
    participants: [...fields.participants],
    start: fields.start,
  };
  const event = sportEventStateOf(scheduled);
  ctx.state.sportEvents.set(event.id, event);
  ctx.eventChanged(event);
  ctx.emit(scheduled);
  return null;
}

export function startSportEvent(ctx: StepContext, input: Extract<EngineInput, { kind: 'StartSportEvent' }>): Result {
  const event = ctx.state.sportEvents.get(input.event_id);
  if (!event) return { code: 'event_not_found' };
  if (event.startedAt !== null) return { code: 'event_started' };
  ctx.emit({ type: 'SportEventStarted', event_id: event.id });
  sportEventStarted(event, ctx.now);
  ctx.eventChanged(event);
  for (const marketId of event.marketIds) {
    const market = present(ctx.state.markets.get(marketId), "an event's market is listed");
    for (const orderId of [...market.liveOrderIds]) {
      const order = present(ctx.state.orders.get(orderId), "a market's live order is live");
      if (order.expiration === 'good_till_start') cancelLive(ctx, order, CancellationReasons.eventStarted);
    }
  }
  return null;
}

export function listMarket(ctx: StepContext, input: Extract<EngineInput, { kind: 'ListMarket' }>): Result {
  const fields = input.market;
  if (ctx.state.markets.has(fields.market_id)) return { code: 'market_exists' };
  const event = ctx.state.sportEvents.get(fields.event_id);
  if (!event) return { code: 'event_not_found' };
  const maxPrice = parseMaxPriceCents(fields.max_price);
  if (!maxPrice.ok) return maxPrice.error;
  if (!LISTABLE.includes(fields.status)) return { code: 'market_status_not_listable' };
  if (fields.symbol !== null && symbolInUse(ctx, fields.symbol)) return { code: 'symbol_taken', symbol: fields.symbol };
  const listed: Extract<EngineEvent, { type: 'MarketListed' }> = {
    type: 'MarketListed',
    market_id: fields.market_id,
    event_id: fields.event_id,
    title: fields.title,
    short_title: fields.short_title,
    question: fields.question,
    rules: fields.rules,
    symbol: fields.symbol,
    grouping_id: fields.grouping_id,
    grouping_name: fields.grouping_name,
    featured: fields.featured,
    status: fields.status,
    trading: fields.trading,
    max_price: money(centsToDecimal(maxPrice.value)),
    in_play_delay_sec: Math.max(0, Math.floor(fields.in_play_delay_sec)),
    points_cost: Math.max(0, fields.points_cost),
  };
  const market = marketStateOf(listed, maxPrice.value, ctx.now, ctx.seq);
  ctx.state.markets.set(market.id, market);
  setPool(ctx.state, market.id, true);
  event.marketIds.push(market.id);
  ctx.changedMarkets.add(market);
  ctx.emit(listed);
  if (input.details) {
    const draft = { ...market };
    if (applyMarketDetails(draft, input.details)) emitMarketUpdated(ctx, market, draft);
  }
  inheritSettlementFees(ctx, market);
  return null;
}

export function updateSportEvent(ctx: StepContext, input: Extract<EngineInput, { kind: 'UpdateSportEvent' }>): Result {
  const event = ctx.state.sportEvents.get(input.event_id);
  if (!event) return { code: 'event_not_found' };
  const c = input.changes;
  const next = {
    title: c.title ?? event.title,
    shortTitle: c.short_title !== undefined ? c.short_title : event.shortTitle,
    eventType: c.event_type !== undefined ? c.event_type : event.eventType,
    sport: c.sport !== undefined ? c.sport : event.sport,
    competition: c.competition !== undefined ? c.competition : event.competition,
    participants: c.participants !== undefined ? [...c.participants] : event.participants,
    start: c.start ?? event.start,
  };
  if (
    next.title === event.title &&
    next.shortTitle === event.shortTitle &&
    next.eventType === event.eventType &&
    next.sport === event.sport &&
    next.competition === event.competition &&
    sameStrings(next.participants, event.participants) &&
    next.start === event.start
  )
    return null;
  const fact: Extract<EngineEvent, { type: 'SportEventUpdated' }> = {
    type: 'SportEventUpdated',
    event_id: event.id,
    title: next.title,
    short_title: next.shortTitle,
    event_type: next.eventType,
    sport: next.sport,
    competition: next.competition,
    participants: [...next.participants],
    start: next.start,
  };
  ctx.emit(fact);
  sportEventUpdated(event, fact);
  ctx.eventChanged(event);
  return null;
}

/**
 * PATCH of a market: its catalogue fields, then its status or trading (the rules of
 * ChangeMarketStatus), then archiving. Everything is checked before anything changes.
 */
export function updateMarket(ctx: StepContext, input: Extract<EngineInput, { kind: 'UpdateMarket' }>): Result {
  const market = ctx.state.markets.get(input.market_id);
  if (!market) return { code: 'market_not_found' };
  const c = input.changes;
  if (c.event_id !== undefined && c.event_id !== market.eventId)
    return { code: 'market_field_fixed', field: 'event_id' };
  if (c.grouping_id !== undefined && c.grouping_id !== market.groupingId)
    return { code: 'market_field_fixed', field: 'grouping_id' };
  if (c.max_price !== undefined) {
    const maxPrice = parseMaxPriceCents(c.max_price);
    if (!maxPrice.ok || maxPrice.value !== market.maxPriceCents)
      return { code: 'market_field_fixed', field: 'max_price' };
  }
  if (c.symbol !== undefined && c.symbol !== null && c.symbol !== market.symbol && symbolInUse(ctx, c.symbol))
    return { code: 'symbol_taken', symbol: c.symbol };
  if (input.archived === false && market.archivedAt !== null) return { code: 'market_archived' };
  const statusChange = input.status !== undefined || input.trading !== undefined;
  if (statusChange) {
    const problem = statusChangeProblem(market, input.status);
    if (problem) return problem;
  }

  // the changes on a draft: the market itself changes by the MarketUpdated fact they make
  const draft = { ...market };
  if (c.title !== undefined) draft.title = c.title;
  if (c.short_title !== undefined) draft.shortTitle = c.short_title;
  if (c.question !== undefined) draft.question = c.question;
  if (c.rules !== undefined) draft.rules = c.rules;
  if (c.symbol !== undefined) draft.symbol = c.symbol;
  if (c.grouping_name !== undefined) draft.groupingName = c.grouping_name;
  if (c.featured !== undefined) draft.featured = c.featured;
  if (c.in_play_delay_sec !== undefined) draft.inPlayDelaySec = Math.max(0, Math.floor(c.in_play_delay_sec));
  if (c.points_cost !== undefined) draft.pointsCost = Math.max(0, c.points_cost);
  applyMarketDetails(draft, c);
  if (marketCatalogueKey(draft) !== marketCatalogueKey(market)) emitMarketUpdated(ctx, market, draft);
  if (statusChange) applyStatusChange(ctx, market, input.status, input.trading);
  if (input.archived === true && market.archivedAt === null) {
    ctx.emit({ type: 'MarketArchived', market_id: market.id });
    marketArchived(market, ctx.now);
    ctx.marketChanged(market);
  }
  return null;
}

/** A market's `symbol` is unique (docs/OPERATOR.md) (markets are few: a scan). */
function symbolInUse(ctx: StepContext, symbol: string): boolean {
  for (const market of ctx.state.markets.values()) if (market.symbol === symbol) return true;
  return false;
}

function isSettled(market: MarketState): boolean {
  return market.status === 'resulted' || market.status === 'voided';
}

export function changeMarketStatus(
  ctx: StepContext,
  input: Extract<EngineInput, { kind: 'ChangeMarketStatus' }>,
): Result {
  const market = ctx.state.markets.get(input.market_id);
  if (!market) return { code: 'market_not_found' };
  const problem = statusChangeProblem(market, input.status);
  if (problem) return problem;
  applyStatusChange(ctx, market, input.status, input.trading);
  return null;
}

/** Why a status or trading change of the market is refused, or null. */
function statusChangeProblem(market: MarketState, status: MarketStatus | undefined): Result {
  if (isSettled(market)) return { code: 'market_settled' };
  if (status !== undefined && !SETTABLE.includes(status)) return { code: 'market_status_not_settable' };
  if (market.status === 'cancelled' && status !== undefined && status !== 'cancelled')
    return { code: 'market_cancelled' };
  return null;
}

function applyStatusChange(
  ctx: StepContext,
  market: MarketState,
  newStatus: MarketStatus | undefined,
  newTrading: boolean | undefined,
): void {
  const status = newStatus ?? market.status;
  const trading = newTrading ?? market.trading;
  if (status === market.status && trading === market.trading) return;
  ctx.emit({ type: 'MarketStatusChanged', market_id: market.id, status, trading });
  marketStatusChanged(market, status, trading);
  ctx.marketChanged(market);
  const reason = CANCEL_REASON_ON[status];
  if (reason) {
    cancelAllLive(ctx, market, reason);
  } else if (status === 'open' && trading) {
    openForTrading(ctx, market);
  }
}

function cancelAllLive(ctx: StepContext, market: MarketState, reason: CancellationReason): void {
  for (const orderId of [...market.liveOrderIds])
    cancelLive(ctx, present(ctx.state.orders.get(orderId), "a market's live order is live"), reason);
}

/** On an open, trading market: accepted orders uncross in arrival order; due delayed orders go in. */
function openForTrading(ctx: StepContext, market: MarketState): void {
  for (const orderId of [...market.liveOrderIds]) {
    const order = ctx.state.orders.get(orderId);
    if (!order) continue; // cancelled by self-trade prevention or funds while uncrossing
    const due = order.status === 'delayed' && order.delayedUntil !== null && order.delayedUntil <= ctx.now;
    if (order.status === 'accepted' || due) release(ctx, market, order);
  }
}

export function resultMarket(ctx: StepContext, input: Extract<EngineInput, { kind: 'ResultMarket' }>): Result {
  const state = ctx.state;
  const market = state.markets.get(input.market_id);
  if (!market) return { code: 'market_not_found' };
  if (market.status === 'resulted' && input.result !== market.result) return resultAgain(ctx, market, input.result);
  if (isSettled(market)) return { code: 'market_settled' };
  const voided = input.result === 'void';
  cancelAllLive(ctx, market, voided ? CancellationReasons.marketVoided : CancellationReasons.marketResulted);
  const settlementId = ctx.nextId('settlement');
  let settled: Map<string, SettledAccount> | null = null;
  if (voided) voidPositions(ctx, market, settlementId);
  else settled = settlePositions(ctx, market, input.result === 'win', settlementId);
  marketSettled(market, input.result, ctx.now);
  assessSettlementFees(ctx, market, settlementId, settled);
  marketBooksSettled(state, market);
  const poolBalance = state.ledger.pools.get(market.id) ?? ZERO;
  if (!isZero(poolBalance)) throw new Error(`market ${market.id} settled with a pool of ${decimalText(poolBalance)}`);
  setPool(state, market.id, false);
  ctx.marketChanged(market);
  ctx.emit({ type: 'MarketSettled', market_id: market.id, result: input.result, settlement_id: settlementId });
  return null;
}

/** A resulted market's result corrected (win and lose swapped): settled again, fees with it. */
function resultAgain(ctx: StepContext, market: MarketState, result: 'win' | 'lose' | 'void'): Result {
  if (result === 'void') return { code: 'resulted_market_not_voidable' };
  if (!canResettle(ctx, market)) return { code: 'market_not_resettlable' };
  const settlementId = ctx.nextId('settlement');
  marketSettled(market, result, ctx.now);
  resettle(ctx, market, result === 'win', settlementId);
  ctx.marketChanged(market);
  ctx.emit({ type: 'MarketSettled', market_id: market.id, result, settlement_id: settlementId });
  return null;
}

/** Moves `amount` between the market's pool and the account, as its settlement ledger entry. */
function settlementTransfer(
  ctx: StepContext,
  account: AccountState,
  market: MarketState,
  amount: Decimal,
  settlementId: string,
): void {
  transfer(ctx, account, amount, pool(market.id), 'settlement', {
    id: ctx.nextId('ledger'),
    accountId: account.id,
    type: 'settlement',
    amount,
    eventId: market.eventId,
    marketId: market.id,
    settlementId,
  });
}

/**
 * win: every long contract is paid max_price; lose: nothing. Points are credited (rollup). Returns
 * what each account that traded in the market took from it (for fees and a later re-settlement).
 */
function settlePositions(
  ctx: StepContext,
  market: MarketState,
  win: boolean,
  settlementId: string,
): Map<string, SettledAccount> {
  const state = ctx.state;
  const max = market.maxPriceCents;
  const settlementPnls = new Map<string, Decimal>();
  for (const accountId of market.accountIds) {
    const account = present(state.accounts.get(accountId), 'an account with an exposure is open');
    const exposure = present(account.exposures.get(market.id), 'an account of a market has an exposure there');
    const hadPosition = exposure.lots.length > 0;
    const pnl = lotsSettled(ctx, exposure, max, win);
    settlementPnls.set(accountId, pnl);
    positionClosedOut(exposure);
    if (hadPosition) {
      settlementTransfer(ctx, account, market, pnl, settlementId);
      ctx.positionChanged(exposure);
    }
    if (exposure.pointsPending > 0) {
      creditPoints(ctx, account, {
        id: ctx.nextId('ledger'),
        accountId,
        type: 'rollup',
        amount: exposure.amountRisked,
        points: exposure.pointsPending,
        eventId: market.eventId,
        marketId: market.id,
        settlementId,
      });
      exposure.pointsPending = 0;
      retier(ctx, account);
    }
    refreshLiability(account, exposure, max);
    ctx.balanceChanged(account);
  }
  // what each account took from the market, its lots at the result among it; then the lots end
  const settled = settledAccountsOf(state, market, settlementPnls);
  for (const accountId of market.accountIds)
    present(
      state.accounts.get(accountId)?.exposures.get(market.id),
      'an account of a market has an exposure there',
    ).lots = [];
  for (const fillId of market.fillIds) {
    const fill = present(state.fills.get(fillId), "a market's fill is unsettled until its result");
    if (fill.status === 'open' || fill.expiredNanos > 0) ctx.fillChanged(fill);
    fillResulted(fill, ctx.now);
  }
  return settled;
}

/** Each lot of `exposure` settled at the result (a LotSettled fact, its fill); answers their PnL. */
function lotsSettled(ctx: StepContext, exposure: Exposure, max: number, win: boolean): Decimal {
  const long = exposure.positionNanos > 0;
  let pnl = ZERO;
  for (const lot of exposure.lots) {
    const perContractCents = win
      ? long
        ? max - lot.priceCents
        : lot.priceCents - max
      : long
        ? -lot.priceCents
        : lot.priceCents;
    const lotPnl = contractsTimesCents(lot.nanos, perContractCents);
    pnl = plus(pnl, lotPnl);
    const fill = present(ctx.state.fills.get(lot.fillId), "an open lot's fill is not settled");
    ctx.emit({ type: 'LotSettled', fill_id: lot.fillId, quantity: formatNanos(lot.nanos), pnl: money(lotPnl) });
    fillLotSettled(fill, lot.nanos, lotPnl, ctx.now);
  }
  return pnl;
}

/** void: realised PnL in the market is reversed and every trade fee refunded; fills are cancelled. */
function voidPositions(ctx: StepContext, market: MarketState, settlementId: string): void {
  const state = ctx.state;
  for (const fillId of market.fillIds) {
    const fill = present(state.fills.get(fillId), "a market's fill is unsettled until its result");
    const account = present(state.accounts.get(fill.accountId), "a fill's account is open");
    present(account.exposures.get(market.id), 'an account of a market has an exposure there');
    if (isPositive(fill.tradeFee)) {
      transfer(ctx, account, fill.tradeFee, FEES, 'fee_refund', {
        id: ctx.nextId('ledger'),
        accountId: account.id,
        type: 'fee_refund',
        amount: fill.tradeFee,
        eventId: market.eventId,
        marketId: market.id,
        feeSource: 'trade',
        tradeId: fill.id,
        settlementId,
        feeId: fill.feeEntryId ?? null,
      });
    }
    // everything unwinds at zero PnL: what closing trades realised on this fill is reversed below
    ctx.emit({ type: 'FillVoided', fill_id: fill.id });
    fillVoided(fill);
    ctx.fillChanged(fill);
  }
  for (const accountId of market.accountIds) {
    const account = present(state.accounts.get(accountId), 'an account with an exposure is open');
    const exposure = present(account.exposures.get(market.id), 'an account of a market has an exposure there');
    const traded = isPositive(exposure.amountRisked);
    // only fills realise PnL: an account that never traded here has nothing to reverse
    const reversal = negated(exposure.realizedPnl);
    if (traded) {
      settlementTransfer(ctx, account, market, reversal, settlementId);
      ctx.positionChanged(exposure);
    }
    exposure.lots = [];
    positionClosedOut(exposure);
    exposure.pointsPending = 0;
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
      const market = present(state.markets.get(order.marketId), "a live order's market is listed");
      if (market.status === 'open' && market.trading) release(ctx, market, order);
    }
  }
  settleWaiting(state, candidates);
}
