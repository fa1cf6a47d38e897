// Trade fees and loyalty tiers. The fee of a fill is
//   unrounded_trade_fee = rate x contracts x min(price, max_price - price)   (nine places, half up)
//   trade_fee           = unrounded_trade_fee rounded UP to the cent
// so both sides pay on the smaller of the two risks, and a fee never exceeds rate x risk.
// The rate depends on the account's schedule and whether the fill provided or took liquidity.

import {
  CENTS_PER_DOLLAR,
  compare,
  contractsTimesCents,
  NANOS_PER_CONTRACT,
  numberToDecimal,
  percentToRate,
  times,
  wholeQuotient,
  type Decimal,
} from '../money/decimal.ts';
import type { FeeSchedule } from '../views.ts';

export interface LoyaltyTier {
  tier: string;
  minPoints: number;
  feePercent: number;
}

/** The tier every account starts at (and the one an unknown tier name stands for). */
const FIRST_TIER: LoyaltyTier = { tier: 'rookie', minPoints: 0, feePercent: 2 };

/** Tiers by credited points, lowest first; every account starts at `rookie`. */
export const LOYALTY_TIERS: readonly LoyaltyTier[] = [
  FIRST_TIER,
  { tier: 'pro', minPoints: 1_000, feePercent: 1.5 },
  { tier: 'elite', minPoints: 10_000, feePercent: 1 },
  { tier: 'legend', minPoints: 100_000, feePercent: 0.5 },
];

export const DEFAULT_BASE_FEE_PERCENT = 1;
export const ON_TRADE_BASE_FEE_PERCENT = 2;
export const DEFAULT_MAKER_FACTOR = 0.5;
export const DEFAULT_TAKER_FACTOR = 1;

export function tierFor(points: number): LoyaltyTier {
  let found = FIRST_TIER;
  for (const tier of LOYALTY_TIERS) if (points >= tier.minPoints) found = tier;
  return found;
}

export interface FeeRates {
  maker: Decimal;
  taker: Decimal;
  /** The larger, used for order reserves. */ max: Decimal;
}

export interface FeeTerms {
  fee_schedule: FeeSchedule;
  base_fee_percent: number | null;
  maker_factor: number | null;
  taker_factor: number | null;
  loyalty_tier: string;
}

const nonNegative = (value: number) => (Number.isFinite(value) && value > 0 ? value : 0);
const percent = (value: number) => percentToRate(nonNegative(value));

export function feeRates(terms: FeeTerms): FeeRates {
  let maker: Decimal;
  let taker: Decimal;
  if (terms.fee_schedule === 'fixed_percent') {
    maker = taker = percent(terms.base_fee_percent ?? DEFAULT_BASE_FEE_PERCENT);
  } else {
    const basePercent =
      terms.fee_schedule === 'on_trade'
        ? ON_TRADE_BASE_FEE_PERCENT
        : (LOYALTY_TIERS.find((t) => t.tier === terms.loyalty_tier) ?? FIRST_TIER).feePercent;
    const base = percent(basePercent);
    maker = times(base, numberToDecimal(nonNegative(terms.maker_factor ?? DEFAULT_MAKER_FACTOR)));
    taker = times(base, numberToDecimal(nonNegative(terms.taker_factor ?? DEFAULT_TAKER_FACTOR)));
  }
  return { maker, taker, max: compare(maker, taker) > 0 ? maker : taker };
}

/** Loyalty points for an amount risked: whole points, one per `points_cost` dollars; none when the cost is 0. */
export function pointsFor(amountRisked: Decimal, pointsCost: number): number {
  if (!(pointsCost > 0)) return 0;
  return wholeQuotient(amountRisked, pointsCost);
}

/** pointsFor(contractsTimesCents(nanos, cents), pointsCost), on integers when they fit. */
export function pointsForContracts(nanos: number, cents: number, pointsCost: number): number {
  if (
    nanos > 0 &&
    cents > 0 &&
    Number.isInteger(nanos) &&
    Number.isInteger(cents) &&
    pointsCost > 0 &&
    Number.isSafeInteger(pointsCost)
  ) {
    const whole = nanos % NANOS_PER_CONTRACT === 0;
    const numerator = (whole ? nanos / NANOS_PER_CONTRACT : nanos) * cents;
    const denominator = pointsCost * (whole ? CENTS_PER_DOLLAR : CENTS_PER_DOLLAR * NANOS_PER_CONTRACT);
    if (Number.isSafeInteger(numerator) && Number.isSafeInteger(denominator))
      return (numerator - (numerator % denominator)) / denominator;
  }
  return pointsFor(contractsTimesCents(nanos, cents), pointsCost);
}
