// The rounding of a trade fee (docs/ENGINE.md, "Fees"): rate x contracts x a per-contract basis
// in cents, kept at nine places half up (`unrounded_trade_fee`), charged rounded up to the cent
// (`trade_fee`). Computed on exact integers when they fit a double, else with decimals.

import {
  ceilCent,
  contractsTimesCents,
  FEE_DECIMAL_PLACES,
  fromInteger,
  integerAt,
  isPositive,
  lastExponent,
  minus,
  NANOS_PER_CONTRACT,
  plus,
  QUANTITY_DECIMAL_PLACES,
  quotient,
  round9,
  times,
  ZERO,
  type Decimal,
} from './decimal.ts';

export interface Fee {
  unrounded: Decimal;
  rounded: Decimal;
}

/** Largest power of ten a fee is divided by on integers (10^15 and below are exact doubles). */
const MAX_ROUNDING_SHIFT = 15;

/** rate x `nanos` contracts x `basisCents`: nine places half up, and that rounded up to the cent. */
export function feeOf(rate: Decimal, nanos: number, basisCents: number): Fee {
  if (isPositive(rate) && basisCents > 0 && Number.isInteger(basisCents) && Number.isInteger(nanos) && nanos > 0) {
    // On integers: rate x quantity x basis at the exponent of their last digits, rounded as below.
    const whole = nanos % NANOS_PER_CONTRACT === 0;
    const rateExponent = lastExponent(rate);
    let fee = (whole ? nanos / NANOS_PER_CONTRACT : nanos) * basisCents * integerAt(rate, rateExponent);
    let exponent = (whole ? 0 : -QUANTITY_DECIMAL_PLACES) - 2 + rateExponent;
    if (Number.isSafeInteger(fee) && exponent >= -FEE_DECIMAL_PLACES - MAX_ROUNDING_SHIFT) {
      if (exponent < -FEE_DECIMAL_PLACES) {
        // half up at nine places
        const divisor = 10 ** (-FEE_DECIMAL_PLACES - exponent);
        const remainder = fee % divisor;
        fee = (fee - remainder) / divisor + (remainder * 2 >= divisor ? 1 : 0);
        exponent = -FEE_DECIMAL_PLACES;
      }
      const unrounded = fromInteger(fee, exponent);
      if (exponent >= -2) return { unrounded, rounded: unrounded };
      const divisor = 10 ** (-2 - exponent); // up to the cent
      const remainder = fee % divisor;
      return { unrounded, rounded: fromInteger((fee - remainder) / divisor + (remainder > 0 ? 1 : 0), -2) };
    }
  }
  const unrounded = round9(times(contractsTimesCents(nanos, basisCents), rate));
  return { unrounded, rounded: ceilCent(unrounded) };
}

/**
 * A settlement-side fee (docs/ENGINE.md, "Settlement-side fees"): rate x net winnings, nine places
 * half up, charged rounded up to the cent; nothing on zero or negative winnings.
 */
export function settlementFeeOf(rate: Decimal, netWinnings: Decimal): Fee {
  if (!isPositive(netWinnings) || !isPositive(rate)) return { unrounded: ZERO, rounded: ZERO };
  const unrounded = round9(times(netWinnings, rate));
  return { unrounded, rounded: ceilCent(unrounded) };
}

/**
 * `total` shared out in proportion to `weights` (all > 0): each part nine places half up, the
 * last part what is left, so the parts add up to `total` exactly.
 */
export function shareOut(total: Decimal, weights: readonly Decimal[]): Decimal[] {
  if (weights.length === 0) return [];
  let weightSum = ZERO;
  for (const weight of weights) weightSum = plus(weightSum, weight);
  const parts: Decimal[] = [];
  let given = ZERO;
  for (let i = 0; i < weights.length - 1; i++) {
    const part = quotient(times(total, weights[i]!), weightSum, FEE_DECIMAL_PLACES);
    parts.push(part);
    given = plus(given, part);
  }
  parts.push(minus(total, given));
  return parts;
}

/** What a settlement-side rate would charge on `toWin` if it were all won: nine places half up, up to the cent. */
export function potentialFeeOf(rate: Decimal, toWin: Decimal): Decimal {
  if (!isPositive(rate) || !isPositive(toWin)) return ZERO;
  return ceilCent(round9(times(toWin, rate)));
}
