// Funds: what orders and positions reserve, per account and market.
//
// Per contract at price p on a market with max_price M: a buy risks p, a sell risks M - p.
// For one account in one market, with the position's cash effect on each outcome
//   long n with open premium C:  win +(nM - C), lose -C
//   short n with open premium P: win -(nM - P), lose +P
// the worst case over both outcomes, if any subset of the live orders were to fill, is
//   liability = max(0, sellExposure - pnlWin, buyExposure - pnlLose) + fee reserves
// (on `win` only sells can hurt, on `lose` only buys), so orders that would close a position are
// netted against it. available_balance = account_balance - sum of market liabilities.

import { compare, contractsTimesCents, minus, negated, plus, times, ZERO, type Decimal } from '../money/decimal.ts';
import type { AccountState, Exposure, MarketState, OrderState } from './state.ts';

export function newExposure(accountId: string, marketId: string, now: number): Exposure {
  return {
    accountId, marketId,
    buyExposure: ZERO, sellExposure: ZERO, buyFeeReserve: ZERO, sellFeeReserve: ZERO,
    positionNanos: 0, lots: [], openPremium: ZERO, liability: ZERO,
    realizedPnl: ZERO, fees: ZERO, amountRisked: ZERO, pointsPending: 0, updatedAt: now,
  };
}

export function exposureOf(account: AccountState, market: MarketState, now: number): Exposure {
  let exposure = account.exposures.get(market.id);
  if (!exposure) {
    exposure = newExposure(account.id, market.id, now);
    account.exposures.set(market.id, exposure);
    market.accountIds.add(account.id);
  }
  return exposure;
}

export interface ExposureParts {
  buyExposure: Decimal;
  sellExposure: Decimal;
  buyFeeReserve: Decimal;
  sellFeeReserve: Decimal;
  positionNanos: number;
  openPremium: Decimal;
}

export function liabilityOf(parts: ExposureParts, maxPriceCents: number): Decimal {
  return marketLiability(
    parts.buyExposure, parts.sellExposure, parts.buyFeeReserve, parts.sellFeeReserve, parts.positionNanos, parts.openPremium, maxPriceCents,
  );
}

/**
 * max(0, sellExposure - pnlWin, buyExposure - pnlLose) + fee reserves, where the position's cash
 * effect on settlement is (payout = |n| x M)
 *   long:  win +(payout - C), lose -C   =>  sellExposure - payout + C,  buyExposure + C
 *   short: win -(payout - P), lose +P   =>  sellExposure + payout - P,  buyExposure - P
 */
function marketLiability(
  buyExposure: Decimal, sellExposure: Decimal, buyFeeReserve: Decimal, sellFeeReserve: Decimal,
  positionNanos: number, openPremium: Decimal, maxPriceCents: number,
): Decimal {
  let onWin = sellExposure;
  let onLose = buyExposure;
  if (positionNanos > 0) {
    onWin = plus(minus(sellExposure, contractsTimesCents(positionNanos, maxPriceCents)), openPremium);
    onLose = plus(buyExposure, openPremium);
  } else if (positionNanos < 0) {
    onWin = minus(plus(sellExposure, contractsTimesCents(-positionNanos, maxPriceCents)), openPremium);
    onLose = minus(buyExposure, openPremium);
  }
  let worst = ZERO;
  if (compare(onWin, worst) > 0) worst = onWin;
  if (compare(onLose, worst) > 0) worst = onLose;
  return plus(plus(worst, buyFeeReserve), sellFeeReserve);
}

/** Recomputes one market's liability and carries the difference into the account total. */
export function refreshLiability(account: AccountState, exposure: Exposure, maxPriceCents: number): void {
  const next = liabilityOf(exposure, maxPriceCents);
  account.liability = plus(minus(account.liability, exposure.liability), next);
  exposure.liability = next;
}

export function availableExact(account: AccountState): Decimal {
  return minus(account.cash, account.liability);
}

/** Per-contract fee basis bound for an order at its reserve price: trades at better prices never cost more. */
function feeBasisCents(action: 'buy' | 'sell', reserveCents: number, maxPriceCents: number): number {
  const risk = action === 'buy' ? reserveCents : maxPriceCents - reserveCents;
  return Math.min(risk, maxPriceCents / 2);
}

export interface Reservation { exposure: Decimal; feeReserve: Decimal }

/** What `nanos` of an order reserve: exposure and the potential trade fee at the account's highest rate. */
export function reservationOf(
  order: Pick<OrderState, 'action' | 'reserveCents'>, nanos: number, maxPriceCents: number, maxRate: Decimal,
): Reservation {
  const riskCents = order.action === 'buy' ? order.reserveCents : maxPriceCents - order.reserveCents;
  const exposure = contractsTimesCents(nanos, riskCents);
  const basis = feeBasisCents(order.action, order.reserveCents, maxPriceCents);
  const feeReserve = maxRate.s > 0 && maxRate.c[0] !== 0
    ? times(Number.isInteger(basis) ? contractsTimesCents(nanos, basis) : contractsTimesCents(nanos, basis * 2).div(2), maxRate)
    : ZERO;
  return { exposure, feeReserve };
}

/** Adds (sign 1) or removes (sign -1) the reservation of `nanos` of a live order. */
export function reserve(
  account: AccountState, exposure: Exposure, order: OrderState, nanos: number, sign: 1 | -1, maxPriceCents: number,
): void {
  if (nanos === 0) return;
  const { exposure: amount, feeReserve } = reservationOf(order, nanos, maxPriceCents, account.rates.max);
  const signedAmount = sign === 1 ? amount : negated(amount);
  const signedFee = sign === 1 ? feeReserve : negated(feeReserve);
  if (order.action === 'buy') {
    exposure.buyExposure = plus(exposure.buyExposure, signedAmount);
    exposure.buyFeeReserve = plus(exposure.buyFeeReserve, signedFee);
    account.buyOrderLiability = plus(plus(account.buyOrderLiability, signedAmount), signedFee);
  } else {
    exposure.sellExposure = plus(exposure.sellExposure, signedAmount);
    exposure.sellFeeReserve = plus(exposure.sellFeeReserve, signedFee);
    account.sellOrderLiability = plus(plus(account.sellOrderLiability, signedAmount), signedFee);
  }
}

/** An order's funding check: the liabilities with the order added, and what it reserves. */
export interface Funding {
  /** The account's total liability with the order. */
  total: Decimal;
  /** The market's liability with the order. */
  marketLiability: Decimal;
  reservation: Reservation;
  /** The exposure's totals on the order's side with the order. */
  sideExposure: Decimal;
  sideFeeReserve: Decimal;
}

/** The account's total liability if `order` (its full quantity) were added to `exposure`, and that reservation. */
export function liabilityWithOrder(
  account: AccountState, exposure: Exposure | undefined, order: OrderState, maxPriceCents: number,
): Funding {
  const reservation = reservationOf(order, order.quantityNanos, maxPriceCents, account.rates.max);
  let buyExposure = exposure ? exposure.buyExposure : ZERO;
  let sellExposure = exposure ? exposure.sellExposure : ZERO;
  let buyFeeReserve = exposure ? exposure.buyFeeReserve : ZERO;
  let sellFeeReserve = exposure ? exposure.sellFeeReserve : ZERO;
  let sideExposure: Decimal;
  let sideFeeReserve: Decimal;
  if (order.action === 'buy') {
    sideExposure = buyExposure = plus(buyExposure, reservation.exposure);
    sideFeeReserve = buyFeeReserve = plus(buyFeeReserve, reservation.feeReserve);
  } else {
    sideExposure = sellExposure = plus(sellExposure, reservation.exposure);
    sideFeeReserve = sellFeeReserve = plus(sellFeeReserve, reservation.feeReserve);
  }
  const market = marketLiability(
    buyExposure, sellExposure, buyFeeReserve, sellFeeReserve, exposure ? exposure.positionNanos : 0, exposure ? exposure.openPremium : ZERO, maxPriceCents,
  );
  const total = plus(minus(account.liability, exposure ? exposure.liability : ZERO), market);
  return { total, marketLiability: market, reservation, sideExposure, sideFeeReserve };
}

/** Books a funded order: its reservation on its side, and the liabilities `liabilityWithOrder` computed. */
export function applyFunding(account: AccountState, exposure: Exposure, order: OrderState, funding: Funding): void {
  const reserved = plus(funding.reservation.exposure, funding.reservation.feeReserve);
  if (order.action === 'buy') {
    exposure.buyExposure = funding.sideExposure;
    exposure.buyFeeReserve = funding.sideFeeReserve;
    account.buyOrderLiability = plus(account.buyOrderLiability, reserved);
  } else {
    exposure.sellExposure = funding.sideExposure;
    exposure.sellFeeReserve = funding.sideFeeReserve;
    account.sellOrderLiability = plus(account.sellOrderLiability, reserved);
  }
  account.liability = funding.total;
  exposure.liability = funding.marketLiability;
}
