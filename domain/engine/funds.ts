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

import { Big, ZERO, type Decimal } from '../money/decimal.ts';
import { contractsTimesCents } from './amounts.ts';
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

/** Cash effect of settling the current position on `win` and on `lose`. */
export function positionPnl(positionNanos: number, openPremium: Decimal, maxPriceCents: number): { win: Decimal; lose: Decimal } {
  if (positionNanos === 0) return { win: ZERO, lose: ZERO };
  const payout = contractsTimesCents(Math.abs(positionNanos), maxPriceCents);
  if (positionNanos > 0) return { win: payout.minus(openPremium), lose: openPremium.times(-1) };
  return { win: openPremium.minus(payout), lose: openPremium };
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
  const pnl = positionPnl(parts.positionNanos, parts.openPremium, maxPriceCents);
  let worst = ZERO;
  const onWin = parts.sellExposure.minus(pnl.win);
  const onLose = parts.buyExposure.minus(pnl.lose);
  if (onWin.gt(worst)) worst = onWin;
  if (onLose.gt(worst)) worst = onLose;
  return worst.plus(parts.buyFeeReserve).plus(parts.sellFeeReserve);
}

/** Recomputes one market's liability and carries the difference into the account total. */
export function refreshLiability(account: AccountState, exposure: Exposure, maxPriceCents: number): void {
  const next = liabilityOf(exposure, maxPriceCents);
  account.liability = account.liability.minus(exposure.liability).plus(next);
  exposure.liability = next;
}

export function availableExact(account: AccountState): Decimal {
  return account.cash.minus(account.liability);
}

/** Per-contract fee basis bound for an order at its reserve price: trades at better prices never cost more. */
function feeBasisCents(action: 'buy' | 'sell', reserveCents: number, maxPriceCents: number): number {
  const risk = action === 'buy' ? reserveCents : maxPriceCents - reserveCents;
  return Math.min(risk, maxPriceCents / 2);
}

/** What `nanos` of an order reserve: exposure and the potential trade fee at the account's highest rate. */
export function reservationOf(
  order: Pick<OrderState, 'action' | 'reserveCents'>, nanos: number, maxPriceCents: number, maxRate: Decimal,
): { exposure: Decimal; feeReserve: Decimal } {
  const riskCents = order.action === 'buy' ? order.reserveCents : maxPriceCents - order.reserveCents;
  const exposure = contractsTimesCents(nanos, riskCents);
  const basis = feeBasisCents(order.action, order.reserveCents, maxPriceCents);
  const feeReserve = maxRate.s > 0 && maxRate.c[0] !== 0
    ? (Number.isInteger(basis) ? contractsTimesCents(nanos, basis) : contractsTimesCents(nanos, basis * 2).div(2)).times(maxRate)
    : ZERO;
  return { exposure, feeReserve };
}

/** Adds (sign 1) or removes (sign -1) the reservation of `nanos` of a live order. */
export function reserve(
  account: AccountState, exposure: Exposure, order: OrderState, nanos: number, sign: 1 | -1, maxPriceCents: number,
  computed?: { exposure: Decimal; feeReserve: Decimal },
): void {
  if (nanos === 0) return;
  const { exposure: amount, feeReserve } = computed ?? reservationOf(order, nanos, maxPriceCents, account.rates.max);
  const signedAmount = sign === 1 ? amount : amount.times(-1);
  const signedFee = sign === 1 ? feeReserve : feeReserve.times(-1);
  if (order.action === 'buy') {
    exposure.buyExposure = exposure.buyExposure.plus(signedAmount);
    exposure.buyFeeReserve = exposure.buyFeeReserve.plus(signedFee);
    account.buyOrderLiability = account.buyOrderLiability.plus(signedAmount).plus(signedFee);
  } else {
    exposure.sellExposure = exposure.sellExposure.plus(signedAmount);
    exposure.sellFeeReserve = exposure.sellFeeReserve.plus(signedFee);
    account.sellOrderLiability = account.sellOrderLiability.plus(signedAmount).plus(signedFee);
  }
}

/** The account's total liability if `order` (its full quantity) were added to `exposure`, and that reservation. */
export function liabilityWithOrder(
  account: AccountState, exposure: Exposure | undefined, order: OrderState, maxPriceCents: number,
): { total: Decimal; marketLiability: Decimal; reservation: { exposure: Decimal; feeReserve: Decimal } } {
  const reservation = reservationOf(order, order.quantityNanos, maxPriceCents, account.rates.max);
  const { exposure: amount, feeReserve } = reservation;
  const parts: ExposureParts = exposure ? { ...exposure } : {
    buyExposure: ZERO, sellExposure: ZERO, buyFeeReserve: ZERO, sellFeeReserve: ZERO, positionNanos: 0, openPremium: ZERO,
  };
  if (order.action === 'buy') {
    parts.buyExposure = parts.buyExposure.plus(amount);
    parts.buyFeeReserve = parts.buyFeeReserve.plus(feeReserve);
  } else {
    parts.sellExposure = parts.sellExposure.plus(amount);
    parts.sellFeeReserve = parts.sellFeeReserve.plus(feeReserve);
  }
  const before = exposure?.liability ?? ZERO;
  const marketLiability = liabilityOf(parts, maxPriceCents);
  return { total: account.liability.minus(before).plus(marketLiability), marketLiability, reservation };
}

export const HALF = new Big('0.5');
