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

import {
  compare,
  isNegative,
  isPositive,
  contractsTimesCents,
  moneyDifferenceDownAtLeastZero,
  moneyDifferenceUp,
  moneyRoundedUp,
  fromInteger,
  integerAt,
  lastExponent,
  minus,
  NANOS_PER_CONTRACT,
  negated,
  plus,
  QUANTITY_DECIMAL_PLACES,
  times,
  ZERO,
  type Decimal,
} from '../money/decimal.ts';
import type { FundsFigures } from '../readModel/records.ts';
import type { AccountState, EngineState, Exposure, MarketState, OrderState } from './state.ts';
import { riskCentsOf } from '../evolve/risk.ts';
import { ratesOf } from '../evolve/engineRecords.ts';
import { present } from '../assert.ts';

export function newExposure(accountId: string, marketId: string, now: number): Exposure {
  return {
    accountId,
    marketId,
    buyExposure: ZERO,
    sellExposure: ZERO,
    buyFeeReserve: ZERO,
    sellFeeReserve: ZERO,
    positionNanos: 0,
    lots: [],
    openPremium: ZERO,
    liability: ZERO,
    realizedPnl: ZERO,
    fees: ZERO,
    amountRisked: ZERO,
    pointsPending: 0,
    updatedAt: now,
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
    parts.buyExposure,
    parts.sellExposure,
    parts.buyFeeReserve,
    parts.sellFeeReserve,
    parts.positionNanos,
    parts.openPremium,
    maxPriceCents,
  );
}

/**
 * max(0, sellExposure - pnlWin, buyExposure - pnlLose) + fee reserves, where the position's cash
 * effect on settlement is (payout = |n| x M)
 *   long:  win +(payout - C), lose -C   =>  sellExposure - payout + C,  buyExposure + C
 *   short: win -(payout - P), lose +P   =>  sellExposure + payout - P,  buyExposure - P
 */
function marketLiability(
  buyExposure: Decimal,
  sellExposure: Decimal,
  buyFeeReserve: Decimal,
  sellFeeReserve: Decimal,
  positionNanos: number,
  openPremium: Decimal,
  maxPriceCents: number,
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
  if (refreshOnIntegers(account, exposure, maxPriceCents)) return;
  const next = liabilityOf(exposure, maxPriceCents);
  account.liability = plus(minus(account.liability, exposure.liability), next);
  exposure.liability = next;
}

/** refreshLiability on exact integers (as fundingOnIntegers); false when an amount does not fit. */
function refreshOnIntegers(account: AccountState, exposure: Exposure, maxPriceCents: number): boolean {
  const positionNanos = exposure.positionNanos;
  const positionWhole = positionNanos % NANOS_PER_CONTRACT === 0;
  const position = positionWhole ? Math.abs(positionNanos) / NANOS_PER_CONTRACT : Math.abs(positionNanos);
  const positionExponent = positionWhole ? 0 : -QUANTITY_DECIMAL_PLACES;
  const e = Math.min(
    positionExponent - 2,
    lastExponent(account.liability),
    lastExponent(exposure.liability),
    lastExponent(exposure.buyExposure),
    lastExponent(exposure.sellExposure),
    lastExponent(exposure.buyFeeReserve),
    lastExponent(exposure.sellFeeReserve),
    lastExponent(exposure.openPremium),
  );
  const payout = scaledProduct(position * maxPriceCents, positionExponent - 2 - e);
  const accountLiability = integerAt(account.liability, e);
  const before = integerAt(exposure.liability, e);
  const buy = integerAt(exposure.buyExposure, e);
  const sell = integerAt(exposure.sellExposure, e);
  const buyFee = integerAt(exposure.buyFeeReserve, e);
  const sellFee = integerAt(exposure.sellFeeReserve, e);
  const premium = integerAt(exposure.openPremium, e);
  if (!(
    fits(payout) &&
    fits(accountLiability) &&
    fits(before) &&
    fits(buy) &&
    fits(sell) &&
    fits(buyFee) &&
    fits(sellFee) &&
    fits(premium)
  )) {
    return false;
  }
  const market = liabilityOnIntegers(buy, sell, buyFee, sellFee, positionNanos, payout, premium);
  if (market !== before) {
    account.liability = fromInteger(accountLiability - before + market, e);
    exposure.liability = fromInteger(market, e);
  }
  return true;
}

/** marketLiability on integers of one power of ten (`payout` = |position| x max price). */
function liabilityOnIntegers(
  buy: number,
  sell: number,
  buyFee: number,
  sellFee: number,
  positionNanos: number,
  payout: number,
  premium: number,
): number {
  let onWin = sell;
  let onLose = buy;
  if (positionNanos > 0) {
    onWin = sell - payout + premium;
    onLose = buy + premium;
  } else if (positionNanos < 0) {
    onWin = sell + payout - premium;
    onLose = buy - premium;
  }
  let worst = 0;
  if (onWin > worst) worst = onWin;
  if (onLose > worst) worst = onLose;
  return worst + buyFee + sellFee;
}

export function availableExact(account: AccountState): Decimal {
  return minus(account.cash, account.liability);
}

/** Per-contract fee basis bound for an order at its reserve price: trades at better prices never cost more. */
function feeBasisCents(action: 'buy' | 'sell', reserveCents: number, maxPriceCents: number): number {
  const risk = riskCentsOf(action, reserveCents, maxPriceCents);
  return Math.min(risk, maxPriceCents / 2);
}

export interface Reservation {
  exposure: Decimal;
  feeReserve: Decimal;
}

/** What `nanos` of an order reserve: exposure and the potential trade fee at the account's highest rate. */
export function reservationOf(
  order: Pick<OrderState, 'action' | 'reserveCents'>,
  nanos: number,
  maxPriceCents: number,
  maxRate: Decimal,
): Reservation {
  const riskCents = riskCentsOf(order.action, order.reserveCents, maxPriceCents);
  const exposure = contractsTimesCents(nanos, riskCents);
  const basis = feeBasisCents(order.action, order.reserveCents, maxPriceCents);
  const feeReserve = isPositive(maxRate)
    ? times(contractsTimesCents(nanos, basis), maxRate) // basis may be half a cent (max_price / 2): exact all the same
    : ZERO;
  return { exposure, feeReserve };
}

// The reservation of `nanos` of an order as exact integer products, read by readReservation into
// these module variables (no object per call): exposure = amountProduct x 10^amountExponent, fee
// reserve = feeProduct x 10^feeExponent (0 when the rate is 0).
let amountProduct = 0;
let amountExponent = 0;
let feeProduct = 0;
let feeExponent = 0;

/** Reads reservationOf(order, nanos, ...) as integer products; false when one is not a safe integer. */
function readReservation(
  order: Pick<OrderState, 'action' | 'reserveCents'>,
  nanos: number,
  maxPriceCents: number,
  rate: Decimal,
): boolean {
  const basisCents = feeBasisCents(order.action, order.reserveCents, maxPriceCents);
  if (!Number.isInteger(basisCents) || !Number.isInteger(nanos)) return false;
  const riskCents = riskCentsOf(order.action, order.reserveCents, maxPriceCents);
  const whole = nanos % NANOS_PER_CONTRACT === 0;
  const quantity = whole ? nanos / NANOS_PER_CONTRACT : nanos;
  const quantityExponent = whole ? 0 : -QUANTITY_DECIMAL_PLACES;
  amountProduct = quantity * riskCents;
  amountExponent = quantityExponent - 2;
  if (isPositive(rate)) {
    feeExponent = lastExponent(rate);
    feeProduct = quantity * basisCents * integerAt(rate, feeExponent);
    feeExponent += quantityExponent - 2;
  } else {
    feeProduct = 0;
    feeExponent = 0;
  }
  return Number.isSafeInteger(amountProduct) && Number.isSafeInteger(feeProduct);
}

/**
 * Whether the account can pay `fee` on a fill of `nanos` of `order`, with the fill's fee reserve
 * released: cash - liability - fee + released fee reserve >= 0.
 */
export function canPayFee(
  account: AccountState,
  order: OrderState,
  nanos: number,
  fee: Decimal,
  maxPriceCents: number,
): boolean {
  if (readReservation(order, nanos, maxPriceCents, account.rates.max)) {
    const e = Math.min(lastExponent(account.cash), lastExponent(account.liability), lastExponent(fee), feeExponent);
    const cash = integerAt(account.cash, e);
    const liability = integerAt(account.liability, e);
    const charged = integerAt(fee, e);
    const released = scaledProduct(feeProduct, feeExponent - e);
    if (fits(cash) && fits(liability) && fits(charged) && fits(released))
      return cash - liability - charged + released >= 0;
  }
  const released = reservationOf(order, nanos, maxPriceCents, account.rates.max).feeReserve;
  return !isNegative(plus(minus(availableExact(account), fee), released));
}

/** Adds (sign 1) or removes (sign -1) the reservation of `nanos` of a live order. */
export function reserve(
  account: AccountState,
  exposure: Exposure,
  order: OrderState,
  nanos: number,
  sign: 1 | -1,
  maxPriceCents: number,
): void {
  if (nanos === 0) return;
  if (readReservation(order, nanos, maxPriceCents, account.rates.max)) {
    const buy = order.action === 'buy';
    const side = buy ? exposure.buyExposure : exposure.sellExposure;
    const sideFee = buy ? exposure.buyFeeReserve : exposure.sellFeeReserve;
    const sideOrder = buy ? account.buyOrderLiability : account.sellOrderLiability;
    const e = Math.min(lastExponent(side), lastExponent(sideFee), lastExponent(sideOrder), amountExponent, feeExponent);
    const amount = scaledProduct(amountProduct, amountExponent - e);
    const fee = scaledProduct(feeProduct, feeExponent - e);
    const sideInteger = integerAt(side, e);
    const sideFeeInteger = integerAt(sideFee, e);
    const sideOrderInteger = integerAt(sideOrder, e);
    if (fits(amount) && fits(fee) && fits(sideInteger) && fits(sideFeeInteger) && fits(sideOrderInteger)) {
      const nextSide = fromInteger(sideInteger + sign * amount, e);
      const nextSideFee = fee === 0 ? sideFee : fromInteger(sideFeeInteger + sign * fee, e);
      const nextSideOrder = fromInteger(sideOrderInteger + sign * (amount + fee), e);
      if (buy) {
        exposure.buyExposure = nextSide;
        exposure.buyFeeReserve = nextSideFee;
        account.buyOrderLiability = nextSideOrder;
      } else {
        exposure.sellExposure = nextSide;
        exposure.sellFeeReserve = nextSideFee;
        account.sellOrderLiability = nextSideOrder;
      }
      return;
    }
  }
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

/** An order's funding check: the liabilities with the order added, and the totals it leaves. */
export interface Funding {
  /** The account's total liability with the order. */
  total: Decimal;
  /** The market's liability with the order. */
  marketLiability: Decimal;
  /** The exposure's totals on the order's side with the order. */
  sideExposure: Decimal;
  sideFeeReserve: Decimal;
  /** The account's order liability on the order's side with the order (buy or sell). */
  sideOrderLiability: Decimal;
}

/** The account's total liability if `order` (its full quantity) were added to `exposure`, and the totals it leaves. */
export function liabilityWithOrder(
  account: AccountState,
  exposure: Exposure | undefined,
  order: OrderState,
  maxPriceCents: number,
): Funding {
  return (
    fundingOnIntegers(account, exposure, order, maxPriceCents) ??
    fundingOnDecimals(account, exposure, order, maxPriceCents)
  );
}

function fundingOnDecimals(
  account: AccountState,
  exposure: Exposure | undefined,
  order: OrderState,
  maxPriceCents: number,
): Funding {
  const reservation = reservationOf(order, order.quantityNanos, maxPriceCents, account.rates.max);
  let buyExposure = exposure ? exposure.buyExposure : ZERO;
  let sellExposure = exposure ? exposure.sellExposure : ZERO;
  let buyFeeReserve = exposure ? exposure.buyFeeReserve : ZERO;
  let sellFeeReserve = exposure ? exposure.sellFeeReserve : ZERO;
  let sideExposure: Decimal;
  let sideFeeReserve: Decimal;
  const sideOrderLiability = plus(
    plus(order.action === 'buy' ? account.buyOrderLiability : account.sellOrderLiability, reservation.exposure),
    reservation.feeReserve,
  );
  if (order.action === 'buy') {
    sideExposure = buyExposure = plus(buyExposure, reservation.exposure);
    sideFeeReserve = buyFeeReserve = plus(buyFeeReserve, reservation.feeReserve);
  } else {
    sideExposure = sellExposure = plus(sellExposure, reservation.exposure);
    sideFeeReserve = sellFeeReserve = plus(sellFeeReserve, reservation.feeReserve);
  }
  const market = marketLiability(
    buyExposure,
    sellExposure,
    buyFeeReserve,
    sellFeeReserve,
    exposure ? exposure.positionNanos : 0,
    exposure ? exposure.openPremium : ZERO,
    maxPriceCents,
  );
  const total = plus(minus(account.liability, exposure ? exposure.liability : ZERO), market);
  return { total, marketLiability: market, sideExposure, sideFeeReserve, sideOrderLiability };
}

/** The finest decimal place of the account's and the exposure's amounts that fundingOnIntegers reads (a power of ten). */
function amountsExponent(account: AccountState, exposure: Exposure | undefined): number {
  const ofAccount = Math.min(
    lastExponent(account.liability),
    lastExponent(account.buyOrderLiability),
    lastExponent(account.sellOrderLiability),
  );
  if (!exposure) return Math.min(ofAccount, 0);
  return Math.min(
    ofAccount,
    lastExponent(exposure.buyExposure),
    lastExponent(exposure.sellExposure),
    lastExponent(exposure.buyFeeReserve),
    lastExponent(exposure.sellFeeReserve),
    lastExponent(exposure.openPremium),
    lastExponent(exposure.liability),
  );
}

/**
 * fundingOnDecimals on exact integers (money/decimal.ts, "exact fixed point"): the same formulas,
 * with every amount read as a count of one common power of ten and only the five results built
 * as decimals. null when an amount does not fit (then the decimals compute it).
 */
function fundingOnIntegers(
  account: AccountState,
  exposure: Exposure | undefined,
  order: OrderState,
  maxPriceCents: number,
): Funding | null {
  const basisCents = feeBasisCents(order.action, order.reserveCents, maxPriceCents);
  if (!Number.isInteger(basisCents)) return null;
  const rate = account.rates.max;
  const charged = isPositive(rate);
  const rateExponent = charged ? lastExponent(rate) : 0;
  const rateInteger = charged ? integerAt(rate, rateExponent) : 0;
  const riskCents = riskCentsOf(order.action, order.reserveCents, maxPriceCents);
  // Quantities in whole contracts when they are whole (short integers), else in nano-contracts.
  const quantityWhole = order.quantityNanos % NANOS_PER_CONTRACT === 0;
  const quantity = quantityWhole ? order.quantityNanos / NANOS_PER_CONTRACT : order.quantityNanos;
  const quantityExponent = quantityWhole ? 0 : -QUANTITY_DECIMAL_PLACES;
  const positionNanos = exposure ? exposure.positionNanos : 0;
  const positionWhole = positionNanos % NANOS_PER_CONTRACT === 0;
  const position = positionWhole ? Math.abs(positionNanos) / NANOS_PER_CONTRACT : Math.abs(positionNanos);
  const positionExponent = positionWhole ? 0 : -QUANTITY_DECIMAL_PLACES;

  const e = Math.min(
    quantityExponent - 2 + rateExponent,
    quantityExponent - 2,
    positionExponent - 2,
    amountsExponent(account, exposure),
  );
  const amount = scaledProduct(quantity * riskCents, quantityExponent - 2 - e);
  const fee = charged ? scaledProduct(quantity * basisCents * rateInteger, quantityExponent - 2 + rateExponent - e) : 0;
  const payout = scaledProduct(position * maxPriceCents, positionExponent - 2 - e);
  const accountLiability = integerAt(account.liability, e);
  const sideOrder = integerAt(order.action === 'buy' ? account.buyOrderLiability : account.sellOrderLiability, e);
  let buy = exposure ? integerAt(exposure.buyExposure, e) : 0;
  let sell = exposure ? integerAt(exposure.sellExposure, e) : 0;
  let buyFee = exposure ? integerAt(exposure.buyFeeReserve, e) : 0;
  let sellFee = exposure ? integerAt(exposure.sellFeeReserve, e) : 0;
  const premium = exposure ? integerAt(exposure.openPremium, e) : 0;
  const before = exposure ? integerAt(exposure.liability, e) : 0;
  // Every input within 2^49 keeps each sum below of at most 16 terms exact.
  if (!(
    fits(amount) &&
    fits(fee) &&
    fits(payout) &&
    fits(accountLiability) &&
    fits(sideOrder) &&
    fits(buy) &&
    fits(sell) &&
    fits(buyFee) &&
    fits(sellFee) &&
    fits(premium) &&
    fits(before)
  ))
    return null;

  if (order.action === 'buy') {
    buy += amount;
    buyFee += fee;
  } else {
    sell += amount;
    sellFee += fee;
  }
  const market = liabilityOnIntegers(buy, sell, buyFee, sellFee, positionNanos, payout, premium);
  return {
    total: fromInteger(accountLiability - before + market, e),
    marketLiability: fromInteger(market, e),
    sideExposure: fromInteger(order.action === 'buy' ? buy : sell, e),
    sideFeeReserve: fromInteger(order.action === 'buy' ? buyFee : sellFee, e),
    sideOrderLiability: fromInteger(sideOrder + amount + fee, e),
  };
}

const FIXED_POINT_BOUND = 2 ** 49;
const MAX_SHIFT = 15;

function fits(integer: number): boolean {
  return integer <= FIXED_POINT_BOUND && integer >= -FIXED_POINT_BOUND; // false for NaN
}

/** A non-negative integer product times 10^shift (shift >= 0); NaN when not exact. */
function scaledProduct(product: number, shift: number): number {
  if (!Number.isSafeInteger(product) || shift > MAX_SHIFT) return Number.NaN;
  return product * 10 ** shift; // exact: 10^shift is, and a product beyond 2^49 is refused by fits()
}

/** Books a funded order: its reservation on its side, and the liabilities `liabilityWithOrder` computed. */
export function applyFunding(account: AccountState, exposure: Exposure, order: OrderState, funding: Funding): void {
  if (order.action === 'buy') {
    exposure.buyExposure = funding.sideExposure;
    exposure.buyFeeReserve = funding.sideFeeReserve;
    account.buyOrderLiability = funding.sideOrderLiability;
  } else {
    exposure.sellExposure = funding.sideExposure;
    exposure.sellFeeReserve = funding.sideFeeReserve;
    account.sellOrderLiability = funding.sideOrderLiability;
  }
  account.liability = funding.total;
  exposure.liability = funding.marketLiability;
}

/** What an account's balance shows of its funds, kept per account and made again only when an amount is another decimal. */
interface FiguresOf {
  cash: Decimal;
  liability: Decimal;
  buy: Decimal;
  sell: Decimal;
  figures: FundsFigures;
}
const figuresCache = new WeakMap<AccountState, FiguresOf>();

/**
 * The account's reservations as its balance shows them (buy orders, sell orders and positions
 * up to the cent) and what is left available (down to the cent, never below zero). Decimals are
 * never changed in place, so the same objects mean the same figures.
 */
export function fundsFiguresOf(account: AccountState): FundsFigures {
  const { cash, liability, buyOrderLiability: buy, sellOrderLiability: sell } = account;
  const cached = figuresCache.get(account);
  if (cached && cached.cash === cash && cached.liability === liability && cached.buy === buy && cached.sell === sell)
    return cached.figures;
  const figures: FundsFigures = {
    buyOrders: cached && cached.buy === buy ? cached.figures.buyOrders : moneyRoundedUp(buy),
    sellOrders: cached && cached.sell === sell ? cached.figures.sellOrders : moneyRoundedUp(sell),
    positions:
      cached && cached.liability === liability && cached.buy === buy && cached.sell === sell
        ? cached.figures.positions
        : moneyDifferenceUp(liability, buy, sell),
    available:
      cached && cached.cash === cash && cached.liability === liability
        ? cached.figures.available
        : moneyDifferenceDownAtLeastZero(cash, liability),
  };
  figuresCache.set(account, { cash, liability, buy, sell, figures });
  return figures;
}

/**
 * The account's reservations made again at the rates of its schedule and tier (AccountUpdated
 * changing its fees, LoyaltyTierChanged on a loyalty schedule): every live order of it reserved
 * anew, every market's liability refreshed. The engine cancels orders after it if the cash no
 * longer covers them (their OrderCancelled facts release them).
 */
export function reservedAtRates(state: EngineState, account: AccountState): void {
  account.rates = ratesOf(account);
  account.buyOrderLiability = ZERO;
  account.sellOrderLiability = ZERO;
  for (const exposure of account.exposures.values()) {
    exposure.buyExposure = exposure.sellExposure = exposure.buyFeeReserve = exposure.sellFeeReserve = ZERO;
  }
  for (const order of state.orders.values()) {
    if (order.accountId !== account.id) continue;
    const market = present(state.markets.get(order.marketId), "a live order's market is listed");
    const exposure = present(
      account.exposures.get(order.marketId),
      "a live order's account has an exposure in its market",
    );
    reserve(account, exposure, order, order.quantityNanos - order.filledNanos, 1, market.maxPriceCents);
  }
  for (const exposure of account.exposures.values()) {
    refreshLiability(
      account,
      exposure,
      present(state.markets.get(exposure.marketId), "an exposure's market is listed").maxPriceCents,
    );
  }
}
