// Settlement-side fees (docs/ENGINE.md, "Settlement-side fees"): a market's own
// `settlement_fee_percent`, charged at its result on each account's net winnings there; an event's
// `event_fee_percent` and a market group's `group_fee_percent` (markets sharing a `grouping_id`),
// charged when the last market of the event or group settles, on net winnings across it. Net
// winnings are what the account realised in those markets (closing trades and settlement) before
// fees; a fee on zero or less is a real 0.00 charge. A fee is shared out over the account's fills
// that won, in proportion to what each won; a refund names the fee it refunds (`fee_id`). No
// percent set (null) means no fee is assessed at all: journals from before these fees replay alike.
//
// A market resulted again (win and lose swapped) settles its lots once more: the settlement PnL
// moves by the difference, and the market's fee and those of its event and group (when already
// charged) are refunded and charged again on the new winnings.

import type { Refusal } from '../errors.ts';
import { settlementFeeOf, shareOut } from '../money/fees.ts';
import {
  contractsTimesCents,
  decimalText,
  formatNanos,
  isPositive,
  isZero,
  minus,
  money,
  negated,
  percentToRate,
  plus,
  ZERO,
  type Decimal,
} from '../money/decimal.ts';
import { marketFeePercentSet, sportEventFeePercentSet } from '../evolve/markets.ts';
import { present } from '../assert.ts';
import type { StepContext } from './context.ts';
import type { FeeScope, SettlementFeeSource } from './events.ts';
import type { EngineInput } from './inputs.ts';
import { FEES, pool, setPool, transfer } from './ledger.ts';
import type { AccountState, ChargedFee, EngineState, FillPnl, MarketState, SettledAccount } from './state.ts';
import {
  groupPercentSet,
  scopeAssessed,
  scopeCharged,
  scopeChargeDropped,
  settledAccountMoved,
  settledFillResettled,
} from '../evolve/books.ts';

/** The largest settlement-side percent (of net winnings). */
export const SETTLEMENT_FEE_PERCENT_MAX = 100;

type Result = Refusal | null;

function isSettled(market: MarketState): boolean {
  return market.status === 'resulted' || market.status === 'voided';
}

/** The markets a percent set on `scope` applies to, in listing order. */
function marketsOf(ctx: StepContext, scope: FeeScope, scopeId: string): MarketState[] {
  return marketsInScope(ctx.state, scope, scopeId);
}

/** marketsOf on a state (the fold of the engine's state keeps the scope fees' books by it too). */
export function marketsInScope(state: EngineState, scope: FeeScope, scopeId: string): MarketState[] {
  if (scope === 'market') {
    const market = state.markets.get(scopeId);
    return market ? [market] : [];
  }
  if (scope === 'event')
    return (state.sportEvents.get(scopeId)?.marketIds ?? []).map((id) =>
      present(state.markets.get(id), "an event's market is listed"),
    );
  const markets: MarketState[] = [];
  for (const market of state.markets.values()) if (market.groupingId === scopeId) markets.push(market);
  return markets;
}

export function setSettlementFee(ctx: StepContext, input: Extract<EngineInput, { kind: 'SetSettlementFee' }>): Result {
  const percent = input.percent;
  if (
    percent !== null &&
    !(typeof percent === 'number' && Number.isFinite(percent) && percent >= 0 && percent <= SETTLEMENT_FEE_PERCENT_MAX)
  ) {
    return { code: 'fee_percent_invalid', percent_max: SETTLEMENT_FEE_PERCENT_MAX };
  }
  const state = ctx.state;
  switch (input.scope) {
    case 'market':
      if (!state.markets.has(input.scope_id)) return { code: 'market_not_found' };
      break;
    case 'event': {
      const event = state.sportEvents.get(input.scope_id);
      if (!event) return { code: 'event_not_found' };
      sportEventFeePercentSet(event, percent);
      ctx.eventChanged(event);
      break;
    }
    case 'market_group':
      if (input.scope_id === '') return { code: 'grouping_id_empty' };
      // a group may be priced before its markets are listed: they take the percent when they are
      groupPercentSet(state, input.scope_id, percent);
      break;
    default: {
      const never: never = input.scope;
      return { code: 'invalid_input', message: `unknown fee scope ${String(never)}` };
    }
  }
  const markets = marketsOf(ctx, input.scope, input.scope_id);
  for (const market of markets) applyPercent(ctx, market, input.scope, percent);
  ctx.emit({
    type: 'SettlementFeeSet',
    scope: input.scope,
    scope_id: input.scope_id,
    percent,
    market_ids: markets.map((m) => m.id),
  });
  return null;
}

/** The market's copy of a percent changes; its open fills' potential fee with it. */
function applyPercent(ctx: StepContext, market: MarketState, scope: FeeScope, percent: number | null): void {
  marketFeePercentSet(market, scope, percent);
  ctx.marketChanged(market);
  for (const fillId of market.fillIds) {
    const fill = ctx.state.fills.get(fillId);
    if (fill && fill.status === 'open') ctx.fillChanged(fill);
  }
}

/** A market just listed takes its event's and its group's percents, each stated for it. */
export function inheritSettlementFees(ctx: StepContext, market: MarketState): void {
  const eventPercent = ctx.state.sportEvents.get(market.eventId)?.eventFeePercent ?? null;
  if (eventPercent !== null) inheritPercent(ctx, market, 'event', market.eventId, eventPercent);
  const groupPercent = ctx.state.settlementFees.groupPercents.get(market.groupingId);
  if (groupPercent !== undefined) inheritPercent(ctx, market, 'market_group', market.groupingId, groupPercent);
}

/** States the percent of `scope` for the listed market alone, and sets the market's copy of it. */
function inheritPercent(
  ctx: StepContext,
  market: MarketState,
  scope: FeeScope,
  scopeId: string,
  percent: number,
): void {
  ctx.emit({ type: 'SettlementFeeSet', scope, scope_id: scopeId, percent, market_ids: [market.id] });
  marketFeePercentSet(market, scope, percent);
}

// ── charging and refunding ────────────────────────────────────────────────────────────────────

interface FeeTarget {
  source: SettlementFeeSource;
  marketId: string | null;
  eventId: string | null;
  settlementId: string;
}

const flatShares = (shares: ChargedFee['shares'], sign: 1 | -1): string[] =>
  shares.flatMap((share) => [share.fillId, money(sign === 1 ? share.amount : negated(share.amount))]);

/** Charges `percent` of the net winnings (0.00 on none), shared out over the fills that won. */
function charge(
  ctx: StepContext,
  account: AccountState,
  target: FeeTarget,
  percent: number,
  netWinnings: Decimal,
  fills: readonly FillPnl[],
): ChargedFee {
  const fee = settlementFeeOf(percentToRate(percent), netWinnings).rounded;
  const winners = isZero(fee) ? [] : fills.filter((fill) => isPositive(fill.pnl));
  const amounts = shareOut(
    fee,
    winners.map((fill) => fill.pnl),
  );
  const charged: ChargedFee = {
    id: ctx.nextId('ledger'),
    amount: fee,
    shares: winners.map((fill, i) => ({
      fillId: fill.fillId,
      amount: present(amounts[i], 'shareOut gives one amount per weight'),
    })),
  };
  ctx.emit({
    type: 'SettlementFeeBooked',
    id: charged.id,
    account_id: account.id,
    source: target.source,
    market_id: target.marketId,
    event_id: target.eventId,
    settlement_id: target.settlementId,
    percent,
    net_winnings: money(netWinnings),
    fee_id: null,
    shares: flatShares(charged.shares, 1),
  });
  const paid = negated(fee);
  transfer(ctx, account, paid, FEES, 'fee', {
    id: charged.id,
    accountId: account.id,
    type: 'fee',
    amount: paid,
    eventId: target.eventId,
    marketId: target.marketId,
    feeSource: target.source,
    settlementId: target.settlementId,
  });
  return charged;
}

/** Gives a charged fee back (a fee of 0.00 has nothing to give back). */
function refund(ctx: StepContext, account: AccountState, target: FeeTarget, fee: ChargedFee): void {
  if (!isPositive(fee.amount)) return;
  const id = ctx.nextId('ledger');
  ctx.emit({
    type: 'SettlementFeeBooked',
    id,
    account_id: account.id,
    source: target.source,
    market_id: target.marketId,
    event_id: target.eventId,
    settlement_id: target.settlementId,
    percent: null,
    net_winnings: null,
    fee_id: fee.id,
    shares: flatShares(fee.shares, -1),
  });
  transfer(ctx, account, fee.amount, FEES, 'fee_refund', {
    id,
    accountId: account.id,
    type: 'fee_refund',
    amount: fee.amount,
    eventId: target.eventId,
    marketId: target.marketId,
    feeSource: target.source,
    settlementId: target.settlementId,
    feeId: fee.id,
  });
}

// ── at a result ───────────────────────────────────────────────────────────────────────────────

/**
 * After a market's result (`settled`: its accounts, null when it was voided): keeps what later
 * fees and a re-settlement need, charges the market's own fee, and charges its event's and its
 * group's when it was the last of them to settle.
 */
export function assessSettlementFees(
  ctx: StepContext,
  market: MarketState,
  settlementId: string,
  settled: Map<string, SettledAccount> | null,
): void {
  if (settled) {
    ctx.state.settlementFees.settled.set(market.id, settled);
    const percent = market.settlementFeePercent;
    if (percent !== null) {
      const target: FeeTarget = { source: 'settlement', marketId: market.id, eventId: market.eventId, settlementId };
      for (const [accountId, account] of settled)
        account.fee = charge(
          ctx,
          present(ctx.state.accounts.get(accountId), 'a settled account is open'),
          target,
          percent,
          account.netWinnings,
          account.fills,
        );
    }
  }
  assessScopes(ctx, market, settlementId, null);
}

/**
 * Charges the event and group fees of `market`'s event and group when every market of them is
 * settled: to every account that traded there (`accounts` null) or to those given, each fee
 * charged before refunded first.
 */
function assessScopes(
  ctx: StepContext,
  market: MarketState,
  settlementId: string,
  accounts: ReadonlySet<string> | null,
): void {
  const books = ctx.state.settlementFees;
  for (const scope of ['event', 'market_group'] as const) {
    const scopeId = scope === 'event' ? market.eventId : market.groupingId;
    const key = `${scope}:${scopeId}`;
    const percent =
      scope === 'event'
        ? (ctx.state.sportEvents.get(scopeId)?.eventFeePercent ?? null)
        : (books.groupPercents.get(scopeId) ?? null);
    const charges = books.scopeCharges.get(key);
    if (percent === null && !charges) continue;
    const markets = marketsOf(ctx, scope, scopeId);
    if (!markets.every(isSettled)) continue;
    const totals = new Map<string, { netWinnings: Decimal; fills: FillPnl[] }>();
    for (const each of markets) {
      for (const [accountId, settled] of books.settled.get(each.id) ?? []) {
        if (accounts && !accounts.has(accountId)) continue;
        let total = totals.get(accountId);
        if (!total) totals.set(accountId, (total = { netWinnings: ZERO, fills: [] }));
        total.netWinnings = plus(total.netWinnings, settled.netWinnings);
        total.fills.push(...settled.fills);
      }
    }
    const eventIds = new Set(markets.map((m) => m.eventId));
    const target: FeeTarget = {
      source: scope === 'event' ? 'event' : 'market_group',
      marketId: null,
      eventId: eventIds.size === 1 ? present([...eventIds][0], 'a set of one has a first') : null,
      settlementId,
    };
    for (const [accountId, total] of totals) {
      const account = present(ctx.state.accounts.get(accountId), 'a settled account is open');
      const previous = books.scopeCharges.get(key)?.get(accountId);
      if (previous) {
        refund(ctx, account, target, previous);
        scopeChargeDropped(books, key, accountId);
      }
      if (percent === null) continue;
      scopeCharged(books, key, accountId, charge(ctx, account, target, percent, total.netWinnings, total.fills));
    }
    scopeAssessed(books, key);
  }
}

// ── a result changed ──────────────────────────────────────────────────────────────────────────

/**
 * Whether a resulted market can take `win` now: every account it settled is on the books (a
 * market resulted before this engine kept them cannot be settled again).
 */
export function canResettle(ctx: StepContext, market: MarketState): boolean {
  return ctx.state.settlementFees.settled.has(market.id);
}

/** A resulted market settled again at the other result (docs/ENGINE.md, "Settlement-side fees"). */
export function resettle(ctx: StepContext, market: MarketState, win: boolean, settlementId: string): void {
  const state = ctx.state;
  const settled = present(
    state.settlementFees.settled.get(market.id),
    'a market settled again was settled before (canResettle)',
  );
  const max = market.maxPriceCents;
  const pnlOf = (long: boolean, priceCents: number, wins: boolean) =>
    wins ? (long ? max - priceCents : priceCents - max) : long ? -priceCents : priceCents;
  setPool(state, market.id, true);
  const moved = new Set<string>();
  const target: FeeTarget = { source: 'settlement', marketId: market.id, eventId: market.eventId, settlementId };
  for (const [accountId, books] of settled) {
    if (books.lots.length === 0) continue; // no position at the result: nothing of it changes
    moved.add(accountId);
    const account = present(state.accounts.get(accountId), 'a settled account is open');
    let settlementPnl = ZERO;
    for (const lot of books.lots) {
      const lotPnl = contractsTimesCents(lot.nanos, pnlOf(books.long, lot.priceCents, win));
      const change = minus(lotPnl, contractsTimesCents(lot.nanos, pnlOf(books.long, lot.priceCents, !win)));
      settlementPnl = plus(settlementPnl, lotPnl);
      settledFillResettled(books, lot.fillId, change);
      ctx.emit({ type: 'LotResettled', fill_id: lot.fillId, quantity: formatNanos(lot.nanos), pnl: money(change) });
    }
    const change = minus(settlementPnl, books.settlementPnl);
    transfer(ctx, account, change, pool(market.id), 'settlement', {
      id: ctx.nextId('ledger'),
      accountId,
      type: 'settlement',
      amount: change,
      eventId: market.eventId,
      marketId: market.id,
      settlementId,
    });
    settledAccountMoved(books, change); // its settlement is now `settlementPnl`
    if (books.fee) refund(ctx, account, target, books.fee);
    const percent = market.settlementFeePercent;
    books.fee = percent === null ? null : charge(ctx, account, target, percent, books.netWinnings, books.fills);
    ctx.balanceChanged(account);
  }
  const left = state.ledger.pools.get(market.id) ?? ZERO;
  if (!isZero(left)) throw new Error(`market ${market.id} settled again with a pool of ${decimalText(left)}`);
  setPool(state, market.id, false);
  assessScopes(ctx, market, settlementId, moved);
}
