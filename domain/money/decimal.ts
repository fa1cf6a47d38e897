// The one module that owns decimal rules: parsing prices and quantities, money rounding, and the
// conversion between decimal strings and the scaled integers the matcher uses (price in whole
// cents, quantity in nano-contracts). Everything money-related outside the matcher's hot loop is
// big.js through the constructor exported here, so rounding modes are set in one place.

import BigJs from 'big.js';
import type { Big as BigValue } from 'big.js';
import { InvalidInput, Refused, type DomainError } from '../errors.ts';

/** Private big.js constructor: 40 places for the rare division, half-up by default. */
export const Big = BigJs();
Big.DP = 40;
Big.RM = Big.roundHalfUp;
Big.NE = -50;
Big.PE = 50;
export type Decimal = BigValue;

export const ZERO: Decimal = new Big(0);
export const CENTS_PER_DOLLAR = 100;
export const NANOS_PER_CONTRACT = 1_000_000_000;
export const QUANTITY_DECIMAL_PLACES = 9;
export const FEE_DECIMAL_PLACES = 9;
/** Largest order size, in contracts: keeps nano-contract counts exact in a double (< 2^53). */
export const MAX_ORDER_QUANTITY_CONTRACTS = 1_000_000;
export const MAX_ORDER_QUANTITY_NANOS = MAX_ORDER_QUANTITY_CONTRACTS * NANOS_PER_CONTRACT;
/** Largest market max_price, in cents: bounds the per-market price ladder (100,000 levels). */
export const MAX_MARKET_PRICE_CENTS = 100_000;
const DECIMAL_TEXT_LENGTH_MAX = 40;
const DECIMAL_PATTERN = /^-?\d+(?:\.\d+)?$/; // digits on both sides of a point: "0.40", not ".40" or "1."

/** Error texts the API shows; REST validation and the engine share them. */
export const DecimalErrors = {
  priceMalformed: 'price must be a decimal string',
  priceSubCent: 'price must be a whole number of cents (at most two decimal places)',
  priceNotPositive: 'price must be greater than 0',
  priceAtOrAboveMax: (maxPrice: string) => `price must be less than the market's max_price (${maxPrice})`,
  quantityMalformed: 'quantity must be a decimal string',
  quantityNotPositive: 'quantity must be greater than 0',
  quantityTooLarge: `quantity must not exceed ${MAX_ORDER_QUANTITY_CONTRACTS}`,
  amountMalformed: 'amount must be a decimal string',
  amountSubCent: 'amount must be a whole number of cents (at most two decimal places)',
  amountNotPositive: 'amount must be greater than 0',
  amountZero: 'amount must not be 0',
  maxPriceInvalid: `max_price must be a whole number of cents greater than 0 and at most ${MAX_MARKET_PRICE_CENTS / CENTS_PER_DOLLAR}`,
} as const;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: DomainError };
const fail = <T>(error: DomainError): Parsed<T> => ({ ok: false, error });

export function isDecimalText(text: unknown): text is string {
  return typeof text === 'string' && text.length > 0 && text.length <= DECIMAL_TEXT_LENGTH_MAX && DECIMAL_PATTERN.test(text);
}

/** Digits after the point once trailing zeros are dropped ("0.4200" has 2). */
function significantDecimals(text: string): number {
  const point = text.indexOf('.');
  if (point < 0) return 0;
  let end = text.length;
  while (end > point + 1 && text.charCodeAt(end - 1) === 48) end--;
  return end - point - 1;
}

const PLAIN_DECIMAL = /^(\d{1,12})(?:\.(\d*))?$/;

/** A decimal text with at most two significant decimals, as whole cents (may be <= 0). */
function wholeCents(text: string): number {
  const plain = PLAIN_DECIMAL.exec(text);
  if (plain) return Number(plain[1]) * CENTS_PER_DOLLAR + Number((plain[2] ?? '').slice(0, 2).padEnd(2, '0'));
  return Number(new Big(text).times(CENTS_PER_DOLLAR).toFixed(0));
}

/**
 * An order price: a decimal string, a whole number of cents, > 0; with `maxPriceCents`, strictly
 * below it (that last rule is a 422 refusal, the others are 400s).
 */
export function parsePriceCents(text: unknown, maxPriceCents?: number): Parsed<number> {
  if (!isDecimalText(text)) return fail(new InvalidInput(DecimalErrors.priceMalformed));
  if (significantDecimals(text) > 2) return fail(new InvalidInput(DecimalErrors.priceSubCent));
  if (new Big(text).lte(0)) return fail(new InvalidInput(DecimalErrors.priceNotPositive));
  const cents = wholeCents(text);
  if (maxPriceCents !== undefined && cents >= maxPriceCents) {
    return fail(new Refused(DecimalErrors.priceAtOrAboveMax(formatCents(maxPriceCents))));
  }
  if (cents >= MAX_MARKET_PRICE_CENTS) return fail(new Refused(DecimalErrors.priceAtOrAboveMax(formatCents(MAX_MARKET_PRICE_CENTS))));
  return { ok: true, value: cents };
}

/** A market's max_price: whole cents, 0 < M <= 1000.00. */
export function parseMaxPriceCents(text: unknown): Parsed<number> {
  if (!isDecimalText(text) || significantDecimals(text) > 2) return fail(new InvalidInput(DecimalErrors.maxPriceInvalid));
  const cents = wholeCents(text);
  if (cents <= 0 || cents > MAX_MARKET_PRICE_CENTS) return fail(new InvalidInput(DecimalErrors.maxPriceInvalid));
  return { ok: true, value: cents };
}

/**
 * An order quantity in nano-contracts: > 0 after rounding to nine places, rounding half up
 * (0.0000000005 becomes 0.000000001; 0.0000000004 rounds to 0 and is refused as not positive).
 */
export function parseQuantityNanos(text: unknown): Parsed<number> {
  if (!isDecimalText(text)) return fail(new InvalidInput(DecimalErrors.quantityMalformed));
  const plain = PLAIN_DECIMAL.exec(text);
  if (plain && plain[1]!.length <= 7 && (plain[2] ?? '').length <= QUANTITY_DECIMAL_PLACES) {
    // Fast path: nothing to round, the value fits a double exactly.
    const nanos = Number(plain[1]) * NANOS_PER_CONTRACT + Number((plain[2] ?? '').padEnd(QUANTITY_DECIMAL_PLACES, '0'));
    if (nanos <= 0) return fail(new InvalidInput(DecimalErrors.quantityNotPositive));
    if (nanos > MAX_ORDER_QUANTITY_NANOS) return fail(new InvalidInput(DecimalErrors.quantityTooLarge));
    return { ok: true, value: nanos };
  }
  const rounded = new Big(text).round(QUANTITY_DECIMAL_PLACES, Big.roundHalfUp);
  if (rounded.lte(0)) return fail(new InvalidInput(DecimalErrors.quantityNotPositive));
  if (rounded.gt(MAX_ORDER_QUANTITY_CONTRACTS)) return fail(new InvalidInput(DecimalErrors.quantityTooLarge));
  return { ok: true, value: Number(rounded.times(NANOS_PER_CONTRACT).toFixed(0)) };
}

/** The quantity as the API echoes it: rounded to nine places, trailing zeros dropped. */
export function normalizeQuantity(text: string): string {
  return new Big(text).round(QUANTITY_DECIMAL_PLACES, Big.roundHalfUp).toString();
}

/** A money amount in whole cents (deposits, withdrawals): > 0 unless `signed` (then != 0). */
export function parseMoneyAmount(text: unknown, signed = false): Parsed<Decimal> {
  if (!isDecimalText(text)) return fail(new InvalidInput(DecimalErrors.amountMalformed));
  if (significantDecimals(text) > 2) return fail(new InvalidInput(DecimalErrors.amountSubCent));
  const amount = new Big(text);
  if (signed ? amount.eq(0) : amount.lte(0)) {
    return fail(new InvalidInput(signed ? DecimalErrors.amountZero : DecimalErrors.amountNotPositive));
  }
  return { ok: true, value: amount };
}

// --- rounding ---------------------------------------------------------------------------------

/** Towards +infinity, to the cent (liabilities: "rounded up to the cent in both signs"). */
export function ceilCent(value: Decimal): Decimal {
  return value.round(2, value.s < 0 ? Big.roundDown : Big.roundUp);
}

/** Towards -infinity, to the cent (available balance). */
export function floorCent(value: Decimal): Decimal {
  return value.round(2, value.s < 0 ? Big.roundUp : Big.roundDown);
}

/** Half up at nine places (unrounded fees, quantities). */
export function round9(value: Decimal): Decimal {
  return value.round(FEE_DECIMAL_PLACES, Big.roundHalfUp);
}

// --- formatting --------------------------------------------------------------------------------

/** Money as the API shows it: at least two decimals, exact beyond ("4.00", "0.123456789"). */
export function money(value: Decimal): string {
  const text = value.toFixed();
  const point = text.indexOf('.');
  if (point < 0) return `${text}.00`;
  if (text.length - point - 1 === 1) return `${text}0`;
  return text === '-0.00' ? '0.00' : text;
}

/** Whole cents as a price string: 42 -> "0.42". */
export function formatCents(cents: number): string {
  const negative = cents < 0;
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Nano-contracts as a quantity string: 1_500_000_000 -> "1.5". */
export function formatNanos(nanos: number): string {
  const negative = nanos < 0;
  const digits = String(Math.abs(nanos)).padStart(10, '0');
  const whole = digits.slice(0, -9);
  let fraction = digits.slice(-9);
  let end = fraction.length;
  while (end > 0 && fraction.charCodeAt(end - 1) === 48) end--;
  fraction = fraction.slice(0, end);
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

export function centsToDecimal(cents: number): Decimal {
  return new Big(formatCents(cents));
}

export function nanosToDecimal(nanos: number): Decimal {
  return new Big(formatNanos(nanos));
}

/** A JSON number setting (fee percent, factor) as an exact decimal of its shortest text form. */
export function numberToDecimal(value: number): Decimal {
  return new Big(String(value));
}

/** An exact integer scaled down by `places` decimal places (1234, 3 -> 1.234), without division. */
export function scaled(integer: number | Decimal, places: number): Decimal {
  const value = new Big(integer);
  if (value.c.length === 1 && value.c[0] === 0) return value;
  value.e -= places;
  return value;
}

/** Dollars of `nanos` contracts at `cents` per contract, exact. */
export function contractsTimesCents(nanos: number, cents: number): Decimal {
  const product = new Big(nanos).times(cents); // a fresh value: rescaled in place
  if (product.c.length === 1 && product.c[0] === 0) return product;
  product.e -= QUANTITY_DECIMAL_PLACES + 2;
  return product;
}
