// How facts change the engine's own books: what the engine keeps beside the records (the live
// and finished orders, the timed orders, the unsettled and settled fills of each market, the
// ledger's accounts other than member cash, referrals, the group fee percents, each position's
// open lots, amount risked and pending points). Each is an index
// of what the facts already say, so each changes here by a small function of the fact; the
// engine calls these as it states each fact, and the fold of its whole state
// (domain/evolve/state.ts) calls them on the journal's facts: one rule for both. Deterministic,
// no I/O, never throwing (whether a change is allowed was decided before the fact was stated).

import { minus, plus, plusContractsTimesCents, ZERO, type Decimal } from '../money/decimal.ts';
import type { EngineState, Exposure, LedgerBooks, MarketState, OrderState, ReferralBooks } from '../engine/state.ts';

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
