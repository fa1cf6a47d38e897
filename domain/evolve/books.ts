// How facts change the engine's own books: what the engine keeps beside the records (the live
// and finished orders, the timed orders, the unsettled and settled fills of each market, the
// ledger's accounts other than member cash, referrals, the group fee percents, each position's
// open lots, amount risked and pending points, the settlement-fee books of resulted markets).
// Each is an index of what the facts already say, so each changes here by a small function of
// the fact; the engine calls these as it states each fact, and the fold of its whole state
// (domain/evolve/state.ts) calls them on the journal's facts: one rule for both. Deterministic,
// no I/O, never throwing (whether a change is allowed was decided before the fact was stated).

import { isPositive, minus, plus, plusContractsTimesCents, ZERO, type Decimal } from '../money/decimal.ts';
import type {
  ChargedFee,
  EngineState,
  Exposure,
  LedgerBooks,
  MarketState,
  OrderState,
  ReferralBooks,
  SettledAccount,
  SettlementFeeBooks,
} from '../engine/state.ts';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** OrderAccepted: the order is live (in the state's live orders and its market's, in arrival order). */
export function orderLive(state: EngineState, market: MarketState, order: OrderState): void {
  state.orders.set(order.id, order);
  market.liveOrderIds.add(order.id);
}

/** OrderRejected: the order never went live; its id stays taken (duplicate ids, "can no longer be cancelled"). */
export function orderRejected(state: EngineState, orderId: string, accountId: string): void {
  state.finishedOrders.set(orderId, accountId);
}

/** OrderCancelled, or Traded leaving the order filled: it leaves the live orders and the timers. */
export function orderFinished(state: EngineState, market: MarketState, order: OrderState): void {
  state.orders.delete(order.id);
  market.liveOrderIds.delete(order.id);
  state.timedOrderIds.delete(order.id);
  state.finishedOrders.set(order.id, order.accountId);
}

/** OrderReleased: a delayed order's delay is over; it stays timed only for its good-till-time expiry. */
export function orderReleasedFromTimers(state: EngineState, order: OrderState): void {
  if (order.expiration !== 'good_till_time') state.timedOrderIds.delete(order.id);
}

/**
 * MarketSettled (the first result or the void): the market's fills move to the settled fills,
 * and the accounts' exposures there end (the facts before closed their positions and released
 * their orders).
 */
export function marketBooksSettled(state: EngineState, market: MarketState): void {
  for (const fillId of market.fillIds) {
    state.fills.delete(fillId);
    state.settledFills.set(fillId, market.id);
  }
  market.fillIds.clear();
  for (const accountId of market.accountIds) state.accounts.get(accountId)?.exposures.delete(market.id);
  market.accountIds.clear();
}

/** The ledger account other than member cash a Transferred fact names: the outside world, fee revenue or a market's pool. */
export type BooksAccount = 'outside' | 'fees' | 'pool';

/**
 * One side of a Transferred fact on the engine's other ledger accounts: `amount` (signed) added
 * to the outside world, the fee revenue, or the pool of `marketId` (opened at zero when closed).
 */
export function ledgerPosted(ledger: LedgerBooks, to: BooksAccount, marketId: string | null, amount: Decimal): void {
  const books = ledger as Mutable<LedgerBooks>;
  if (to === 'outside') books.outside = plus(books.outside, amount);
  else if (to === 'fees') books.feeRevenue = plus(books.feeRevenue, amount);
  else if (marketId !== null) {
    const pools = books.pools as Map<string, Decimal>;
    pools.set(marketId, plus(pools.get(marketId) ?? ZERO, amount));
  }
}

/** MarketListed (`open`), MarketSettled: a market's settlement pool opens at zero or closes (it is zero when its market settles). What it held. */
export function poolSet(ledger: LedgerBooks, marketId: string, open: boolean): Decimal | undefined {
  const pools = ledger.pools as Map<string, Decimal>;
  const held = pools.get(marketId);
  if (open) pools.set(marketId, ZERO);
  else pools.delete(marketId);
  return held;
}

/** ReferralRecorded. */
export function referralRecorded(books: ReferralBooks, referrerId: string, refereeId: string, nowUs: number): void {
  books.byReferee.set(refereeId, { referrerId, createdAt: nowUs, credited: false });
}

/** ReferralCredited: the referee's referral is credited (once). */
export function referralCredited(books: ReferralBooks, refereeId: string): void {
  const referral = books.byReferee.get(refereeId);
  if (referral) referral.credited = true;
}

/** ReferralPointsSet. */
export function referralPointsSet(books: ReferralBooks, points: number): void {
  books.points = points;
}

/** SettlementFeeSet on a market group: its percent (null: none), kept for markets listed into it later. */
export function groupPercentSet(state: EngineState, groupingId: string, percent: number | null): void {
  if (percent === null) state.settlementFees.groupPercents.delete(groupingId);
  else state.settlementFees.groupPercents.set(groupingId, percent);
}

/** Traded: the opening part of one side's fill (`nanos` > 0) is the newest lot of the account's position there. */
export function lotOpened(exposure: Exposure, fillId: string, nanos: number, priceCents: number): void {
  if (nanos > 0) exposure.lots.push({ fillId, nanos, priceCents });
}

/** LotClosed: `nanos` of the position's oldest lot closed (first in, first out): the lot shrinks, or ends. */
export function oldestLotClosed(exposure: Exposure, nanos: number): void {
  const lot = exposure.lots[0];
  if (lot === undefined) return;
  lot.nanos -= nanos;
  if (lot.nanos === 0) exposure.lots.shift();
}

/** Traded: what one side risked (`nanos` contracts at `riskCents` each) and the points it earns, pending the result. */
export function exposureTraded(exposure: Exposure, nanos: number, riskCents: number, points: number): void {
  exposure.amountRisked = plusContractsTimesCents(exposure.amountRisked, nanos, riskCents);
  exposure.pointsPending += points;
}

/** FillAmended: the fill's amount risked and points, before and after. */
export function exposureAmended(
  exposure: Exposure,
  riskedBefore: Decimal,
  risked: Decimal,
  pointsBefore: number,
  points: number,
): void {
  exposure.amountRisked = plus(minus(exposure.amountRisked, riskedBefore), risked);
  exposure.pointsPending += points - pointsBefore;
}

/**
 * A market resulted win or lose, once its positions are settled (LotSettled, the Transferred
 * facts of kind settlement, `settlementPnls` by account): what each account that traded there
 * took from it, kept for its fees and a corrected result. Long or short and the lots are the
 * position's at the result (its open lots, not yet cleared); net winnings what it realised there.
 */
export function settledAccountsOf(
  state: EngineState,
  market: MarketState,
  settlementPnls: ReadonlyMap<string, Decimal>,
): Map<string, SettledAccount> {
  const settled = new Map<string, SettledAccount>();
  for (const accountId of market.accountIds) {
    const exposure = state.accounts.get(accountId)?.exposures.get(market.id);
    if (!exposure || !isPositive(exposure.amountRisked)) continue;
    const lots = exposure.lots.map((lot) => ({ fillId: lot.fillId, nanos: lot.nanos, priceCents: lot.priceCents }));
    const first = lots[0];
    settled.set(accountId, {
      long: first !== undefined && state.fills.get(first.fillId)?.action === 'buy',
      lots,
      settlementPnl: settlementPnls.get(accountId) ?? ZERO,
      netWinnings: exposure.realizedPnl,
      fills: [],
      fee: null,
    });
  }
  for (const fillId of market.fillIds) {
    const fill = state.fills.get(fillId);
    if (fill) settled.get(fill.accountId)?.fills.push({ fillId, pnl: plus(fill.closedPnl, fill.expiredPnl) });
  }
  return settled;
}

/** LotResettled: the settled fill realises `pnl` more. */
export function settledFillResettled(books: SettledAccount, fillId: string, pnl: Decimal): void {
  const fill = books.fills.find((f) => f.fillId === fillId);
  if (fill) fill.pnl = plus(fill.pnl, pnl);
}

/** A corrected result's settlement transfer: the account's settlement and net winnings move by `change`. */
export function settledAccountMoved(books: SettledAccount, change: Decimal): void {
  books.settlementPnl = plus(books.settlementPnl, change);
  books.netWinnings = plus(books.netWinnings, change);
}

/** An event's or group's fee given back (or, at 0.00, dropped): the account's charge leaves its scope's books. */
export function scopeChargeDropped(books: SettlementFeeBooks, key: string, accountId: string): void {
  books.scopeCharges.get(key)?.delete(accountId);
}

/** An event's or group's fee charged: kept by scope and account, for its refund. */
export function scopeCharged(books: SettlementFeeBooks, key: string, accountId: string, charged: ChargedFee): void {
  let charges = books.scopeCharges.get(key);
  if (!charges) books.scopeCharges.set(key, (charges = new Map()));
  charges.set(accountId, charged);
}

/** A scope assessed: its books end when no charge is left in them. */
export function scopeAssessed(books: SettlementFeeBooks, key: string): void {
  if (books.scopeCharges.get(key)?.size === 0) books.scopeCharges.delete(key);
}
