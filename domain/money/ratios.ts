// Market figures derived from prices: probability, 24-hour change, the midpoint of the book.

import { Big } from './big.ts';

const PROBABILITY_PLACES = 6;

/** price / max_price as a number from 0 to 1 (six places); null without a price or a max price. */
export function probabilityOf(price: string | null, maxPrice: string): number | null {
  if (price === null) return null;
  const max = new Big(maxPrice);
  if (max.eq(0)) return null;
  return Number(new Big(price).div(max).toFixed(PROBABILITY_PLACES));
}

/** Whole-percent change from `reference` to `last`, half away from zero; 0 when either is missing or the reference is 0. */
export function percentChange(last: string | null, reference: string | null): number {
  if (last === null || reference === null) return 0;
  const ref = new Big(reference);
  if (ref.eq(0)) return 0;
  // big.js roundHalfUp rounds magnitudes: half away from zero
  return Number(new Big(last).minus(ref).div(ref).times(100).round(0, Big.roundHalfUp).toFixed(0));
}

/** The midpoint of two prices, exact. */
export function midpoint(a: string, b: string): string {
  return new Big(a).plus(b).div(2).toFixed();
}
