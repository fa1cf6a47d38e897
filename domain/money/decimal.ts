// The one module that owns decimal rules: parsing prices and quantities, money rounding, and the
// conversion between decimal strings and the scaled integers the matcher uses (price in whole
// cents, quantity in nano-contracts). Decimals are big.js values made and read only here (and in
// the other files of domain/money): everything else calls the named functions, so rounding modes
// and directions are set in one place.

import { Big, type Decimal } from './big.ts';
import type { Refusal } from '../errors.ts';

export type { Decimal };

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

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: Refusal };
const fail = <T>(error: Refusal): Parsed<T> => ({ ok: false, error });
const QUANTITY_TOO_LARGE: Refusal = { code: 'quantity_too_large', quantity_max: MAX_ORDER_QUANTITY_CONTRACTS };
const MAX_PRICE_INVALID: Refusal = {
  code: 'max_price_invalid',
  max_price_max: MAX_MARKET_PRICE_CENTS / CENTS_PER_DOLLAR,
};

export function isDecimalText(text: unknown): text is string {
  return (
    typeof text === 'string' && text.length > 0 && text.length <= DECIMAL_TEXT_LENGTH_MAX && DECIMAL_PATTERN.test(text)
  );
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
 * The common case of the parsers below, without regular expressions: `text` is "D" or "D.F", D of
 * 1 to `wholeDigits` digits, F of at least one digit with at most `places` before its trailing
 * zeros. Returns the value as an integer count of 10^-places, or -1 for any other text (the
 * caller then takes its general path).
 */
function scanPlain(text: unknown, wholeDigits: number, places: number): number {
  if (typeof text !== 'string') return -1;
  const length = text.length;
  if (length === 0 || length > DECIMAL_TEXT_LENGTH_MAX) return -1;
  let whole = 0;
  let i = 0;
  for (; i < length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) break;
    whole = whole * 10 + digit;
  }
  if (i === 0 || i > wholeDigits) return -1;
  let fraction = 0;
  let scale = POW10[places]!;
  if (i < length) {
    if (text.charCodeAt(i) !== 46 || i + 1 === length) return -1; // "."
    let end = length; // drop trailing zeros of the fraction
    while (text.charCodeAt(end - 1) === 48) end--;
    for (let j = i + 1; j < length; j++) {
      const digit = text.charCodeAt(j) - 48;
      if (digit < 0 || digit > 9) return -1;
    }
    if (end - i - 1 > places) return -1;
    for (let j = i + 1; j < end; j++) {
      scale /= 10;
      fraction += (text.charCodeAt(j) - 48) * scale;
    }
  }
  return whole * POW10[places]! + fraction;
}

/**
 * An order price: a decimal string, a whole number of cents, > 0; with `maxPriceCents`, strictly
 * below it (that last rule is a 422 refusal, the others are 400s).
 */
export function parsePriceCents(text: unknown, maxPriceCents?: number): Parsed<number> {
  let cents = scanPlain(text, 12, 2);
  if (cents < 0) {
    if (!isDecimalText(text)) return fail({ code: 'price_malformed' });
    if (significantDecimals(text) > 2) return fail({ code: 'price_sub_cent' });
    cents = wholeCents(text); // exact: at most two decimals
  }
  if (cents <= 0) return fail({ code: 'price_not_positive' });
  if (maxPriceCents !== undefined && cents >= maxPriceCents) {
    return fail({ code: 'price_at_or_above_max', max_price: formatCents(maxPriceCents) });
  }
  if (cents >= MAX_MARKET_PRICE_CENTS)
    return fail({ code: 'price_at_or_above_max', max_price: formatCents(MAX_MARKET_PRICE_CENTS) });
  return { ok: true, value: cents };
}

/** A market's max_price: whole cents, 0 < M <= 1000.00. */
export function parseMaxPriceCents(text: unknown): Parsed<number> {
  if (!isDecimalText(text) || significantDecimals(text) > 2) return fail(MAX_PRICE_INVALID);
  const cents = wholeCents(text);
  if (cents <= 0 || cents > MAX_MARKET_PRICE_CENTS) return fail(MAX_PRICE_INVALID);
  return { ok: true, value: cents };
}

/**
 * An order quantity in nano-contracts: > 0 after rounding to nine places, rounding half up
 * (0.0000000005 becomes 0.000000001; 0.0000000004 rounds to 0 and is refused as not positive).
 */
export function parseQuantityNanos(text: unknown): Parsed<number> {
  const scanned = scanPlain(text, 7, QUANTITY_DECIMAL_PLACES);
  if (scanned >= 0) {
    if (scanned === 0) return fail({ code: 'quantity_not_positive' });
    if (scanned > MAX_ORDER_QUANTITY_NANOS) return fail(QUANTITY_TOO_LARGE);
    return { ok: true, value: scanned };
  }
  if (!isDecimalText(text)) return fail({ code: 'quantity_malformed' });
  const plain = PLAIN_DECIMAL.exec(text);
  if (plain && plain[1]!.length <= 7 && (plain[2] ?? '').length <= QUANTITY_DECIMAL_PLACES) {
    // Fast path: nothing to round, the value fits a double exactly.
    const nanos = Number(plain[1]) * NANOS_PER_CONTRACT + Number((plain[2] ?? '').padEnd(QUANTITY_DECIMAL_PLACES, '0'));
    if (nanos <= 0) return fail({ code: 'quantity_not_positive' });
    if (nanos > MAX_ORDER_QUANTITY_NANOS) return fail(QUANTITY_TOO_LARGE);
    return { ok: true, value: nanos };
  }
  const rounded = new Big(text).round(QUANTITY_DECIMAL_PLACES, Big.roundHalfUp);
  if (rounded.lte(0)) return fail({ code: 'quantity_not_positive' });
  if (rounded.gt(MAX_ORDER_QUANTITY_CONTRACTS)) return fail(QUANTITY_TOO_LARGE);
  return { ok: true, value: Number(rounded.times(NANOS_PER_CONTRACT).toFixed(0)) };
}

/** Order bodies also take "1." and ".5", as the order schema has always allowed. */
const ORDER_DECIMAL_PATTERN = /^(?:\d+(?:\.\d*)?|\.\d+)$/;
const isOrderDecimalText = (text: unknown): text is string =>
  typeof text === 'string' && text.length <= DECIMAL_TEXT_LENGTH_MAX && ORDER_DECIMAL_PATTERN.test(text);

/**
 * An order body's price as the engine takes it: a decimal string, > 0, a whole number of cents
 * ("0.4200" is "0.42"; "0.001" is refused), written with two places. The max_price rule is the
 * engine's, which knows the market.
 */
export function parseOrderPrice(text: unknown): Parsed<string> {
  if (!isOrderDecimalText(text)) return fail({ code: 'price_malformed' });
  const price = new Big(text);
  if (price.lte(0)) return fail({ code: 'price_not_positive' });
  if (!price.round(2, Big.roundDown).eq(price)) return fail({ code: 'price_sub_cent' });
  return { ok: true, value: price.toFixed(2) };
}

/** An order body's quantity: more than nine places rounded half up, > 0, trailing zeros dropped. */
export function parseOrderQuantity(text: unknown): Parsed<string> {
  if (!isOrderDecimalText(text)) return fail({ code: 'quantity_malformed' });
  const quantity = new Big(text).round(QUANTITY_DECIMAL_PLACES, Big.roundHalfUp);
  if (quantity.lte(0)) return fail({ code: 'quantity_not_positive' });
  return { ok: true, value: quantity.toFixed() };
}

/** A quantity this service wrote (at most nine decimals, any size) as nano-contracts. */
export function nanosOf(text: string): number {
  const scanned = scanPlain(text, 7, QUANTITY_DECIMAL_PLACES);
  if (scanned >= 0) return scanned;
  return Number(new Big(text).times(NANOS_PER_CONTRACT).toFixed(0));
}

/** A price this service wrote (whole cents) as cents. */
export function centsOf(text: string): number {
  const scanned = scanPlain(text, 12, 2);
  if (scanned >= 0) return scanned;
  return Number(new Big(text).times(CENTS_PER_DOLLAR).toFixed(0));
}

/** A money amount in whole cents (deposits, withdrawals): > 0 unless `signed` (then != 0). */
export function parseMoneyAmount(text: unknown, signed = false): Parsed<Decimal> {
  if (!isDecimalText(text)) return fail({ code: 'amount_malformed' });
  if (significantDecimals(text) > 2) return fail({ code: 'amount_sub_cent' });
  const amount = new Big(text);
  if (signed ? amount.eq(0) : amount.lte(0)) {
    return fail(signed ? { code: 'amount_zero' } : { code: 'amount_not_positive' });
  }
  return { ok: true, value: amount };
}

// --- arithmetic ----------------------------------------------------------------------------------
//
// Exact sums, differences, products and comparisons of decimals, equal in value to big.js's. The
// engine's amounts are short (a coefficient of at most 15 digits is an exact integer in a double),
// so these read both coefficients as integers, line up their exponents and compute in doubles
// while every intermediate stays a safe integer; anything larger goes to big.js. Unlike big.js
// they do not copy their arguments: a result may be one of them (x + 0 is x), which is safe as
// decimals are never changed in place. Zero comes out as +0 (big.js sometimes keeps a -0, which
// compares, rounds and prints the same).

/** Largest coefficient length read as an integer: 10^15 - 1 < 2^53. */
const MAX_FAST_DIGITS = 15;
const POW10: readonly number[] = Array.from({ length: MAX_FAST_DIGITS + 1 }, (_, i) => 10 ** i);

/** The coefficient as an integer (callers check its length). */
function coefficientOf(c: number[]): number {
  let integer = 0;
  for (let i = 0; i < c.length; i++) integer = integer * 10 + c[i]!;
  return integer;
}

// --- decimals made from safe integers ------------------------------------------------------------
//
// A value computed here on integers (sums, products, fees, liabilities) is a big.js value whose
// digits are made only if big.js reads them: it carries its coefficient as an integer `k` (no
// trailing zeros) and the exponent `x` of its last digit, so the functions of this module read it
// without walking digits, and making one allocates one small object (not an object, a digit array
// and a string). big.js reads `c` through an accessor that builds the digits once. Its value, its
// text and everything big.js does with it are those of the big.js value with the same digits; like
// every decimal it is never changed in place (the accessor has no setter: a write would throw).

class ScaledDecimal {
  d: number[] | null = null;
  constructor(
    public s: number,
    public e: number,
    public k: number,
    public x: number,
  ) {}
}
Object.setPrototypeOf(ScaledDecimal.prototype, Big.prototype);
Object.defineProperty(ScaledDecimal.prototype, 'constructor', { value: Big, writable: true, configurable: true });
Object.defineProperty(ScaledDecimal.prototype, 'c', {
  configurable: true,
  get(this: ScaledDecimal): number[] {
    return this.d ?? (this.d = digitsOf(this.k, this.e - this.x + 1));
  },
});

type Scaled = Decimal & ScaledDecimal;

function isScaled(x: Decimal): x is Scaled {
  return typeof (x as Partial<ScaledDecimal>).k === 'number';
}

/** The `length` digits of the positive safe integer `k`. */
function digitsOf(k: number, length: number): number[] {
  const digits = new Array<number>(length);
  let rest = k;
  for (let i = length - 1; i > 0; i--) {
    const quotient = Math.floor(rest / 10);
    digits[i] = rest - quotient * 10;
    rest = quotient;
  }
  digits[0] = rest;
  return digits;
}

/** x === 0 (a scaled value never is). */
function zero(x: Decimal): boolean {
  return !isScaled(x) && x.c[0] === 0;
}

/** How many digits the coefficient has. */
function digitCount(x: Decimal): number {
  return isScaled(x) ? x.e - x.x + 1 : x.c.length;
}

/** The coefficient as an integer (callers check digitCount). */
function coefficientValue(x: Decimal): number {
  return isScaled(x) ? x.k : coefficientOf(x.c);
}

/** The exponent of the last digit of a non-zero x. */
function lastDigitExponent(x: Decimal): number {
  return isScaled(x) ? x.x : x.e - x.c.length + 1;
}

export function plus(x: Decimal, y: Decimal): Decimal {
  return sum(x, y, y.s);
}

export function minus(x: Decimal, y: Decimal): Decimal {
  return sum(x, y, -y.s);
}

/** x + y with y's sign taken as `ySign`. */
function sum(x: Decimal, y: Decimal, ySign: number): Decimal {
  if (zero(y)) return x;
  if (zero(x)) return ySign === y.s ? y : negated(y);
  if (digitCount(x) <= MAX_FAST_DIGITS && digitCount(y) <= MAX_FAST_DIGITS) {
    let xInteger = coefficientValue(x);
    let yInteger = coefficientValue(y);
    const xLast = lastDigitExponent(x);
    const yLast = lastDigitExponent(y);
    const shift = xLast - yLast;
    if (shift > 0 && shift <= MAX_FAST_DIGITS) xInteger *= POW10[shift]!;
    else if (shift < 0 && shift >= -MAX_FAST_DIGITS) yInteger *= POW10[-shift]!;
    if (
      shift <= MAX_FAST_DIGITS &&
      shift >= -MAX_FAST_DIGITS &&
      xInteger <= Number.MAX_SAFE_INTEGER &&
      yInteger <= Number.MAX_SAFE_INTEGER
    ) {
      const total = x.s * xInteger + ySign * yInteger;
      if (total === 0) return ZERO;
      if (Number.isSafeInteger(total)) return fromSafeInteger(total, -(shift > 0 ? yLast : xLast));
    }
  }
  return ySign === y.s ? x.plus(y) : x.minus(y);
}

export function times(x: Decimal, y: Decimal): Decimal {
  if (digitCount(x) <= MAX_FAST_DIGITS && digitCount(y) <= MAX_FAST_DIGITS) {
    if (zero(x) || zero(y)) return ZERO;
    const product = coefficientValue(x) * coefficientValue(y);
    if (Number.isSafeInteger(product)) {
      const last = lastDigitExponent(x) + lastDigitExponent(y);
      return fromSafeInteger(x.s * y.s * product, -last);
    }
  }
  return x.times(y);
}

/** -x. */
export function negated(x: Decimal): Decimal {
  if (isScaled(x)) return new ScaledDecimal(-x.s, x.e, x.k, x.x) as Scaled;
  if (x.c[0] === 0) return ZERO;
  const value = Object.create(Big.prototype) as Decimal & { constructor: unknown };
  value.s = -x.s;
  value.e = x.e;
  value.c = x.c.slice();
  value.constructor = Big;
  return value;
}

/** -1, 0 or 1 as x is below, equal to or above y (big.js's cmp, without copying y). */
export function compare(x: Decimal, y: Decimal): number {
  const xZero = zero(x);
  if (xZero || zero(y)) return xZero ? (zero(y) ? 0 : -y.s) : x.s;
  const sign = x.s;
  if (sign !== y.s) return sign;
  if (x.e !== y.e) return x.e > y.e ? sign : -sign;
  if (isScaled(x) && isScaled(y)) {
    // the same first digit position: the values aligned at the finer last digit compare as the digits do
    const shift = x.x - y.x;
    const xInteger = shift > 0 ? x.k * POW10[shift]! : x.k;
    const yInteger = shift < 0 ? y.k * POW10[-shift]! : y.k;
    if (Number.isSafeInteger(xInteger) && Number.isSafeInteger(yInteger))
      return xInteger === yInteger ? 0 : xInteger > yInteger ? sign : -sign;
  }
  const xc = x.c;
  const yc = y.c;
  const length = xc.length < yc.length ? xc.length : yc.length;
  for (let i = 0; i < length; i++) if (xc[i] !== yc[i]) return xc[i]! > yc[i]! ? sign : -sign;
  return xc.length === yc.length ? 0 : xc.length > yc.length ? sign : -sign;
}

/** x < 0. */
export function isNegative(x: Decimal): boolean {
  return x.s < 0 && !zero(x);
}

/** x === 0. */
export function isZero(x: Decimal): boolean {
  return zero(x);
}

/** x > 0. */
export function isPositive(x: Decimal): boolean {
  return x.s > 0 && !zero(x);
}

/** |x|. */
export function abs(x: Decimal): Decimal {
  return isNegative(x) ? negated(x) : x;
}

/** Whether `value` is a decimal (for serialisers that meet values of any kind). */
export function isDecimal(value: unknown): value is Decimal {
  return value instanceof Big;
}

/** A decimal text this service wrote itself (a stored amount, a journaled value): the exact value. */
export function decimalOf(text: string): Decimal {
  return new Big(text);
}

/** An exact integer (a count) as a decimal. */
export function integerDecimal(integer: number): Decimal {
  return new Big(integer);
}

/** The exact value as plain text, no exponent, no trailing zeros ("1.5", "-0.000000001", "0"). */
export function decimalText(x: Decimal): string {
  return x.toFixed();
}

/** -1, 0 or 1 as decimal text `a` is below, equal to or above `b`. */
export function compareTexts(a: string, b: string): number {
  return compare(decimalOf(a), decimalOf(b));
}

/** x / y rounded half up to `places` decimals (y not zero). */
export function quotient(x: Decimal, y: Decimal, places: number): Decimal {
  return x.div(y).round(places, Big.roundHalfUp);
}

/** The whole part of x, towards zero (2.9 -> 2, -2.9 -> -2). */
export function wholePart(x: Decimal): Decimal {
  return x.round(0, Big.roundDown);
}

/** A percent setting as a rate (1.5 -> 0.015), exact. */
export function percentToRate(percent: number): Decimal {
  return numberToDecimal(percent).div(100);
}

// --- exact fixed point ---------------------------------------------------------------------------
//
// For a formula over several decimals: each is read as a safe integer at one common exponent
// (that of the finest last digit among them), the formula runs on doubles, and only its results
// become decimals or texts. A value that does not fit reads as NaN, which makes every result it
// touches NaN; callers check results with Number.isSafeInteger and otherwise compute with decimals.

/** The exponent of x's last digit (x = integer x 10^exponent); 0 for zero. */
export function lastExponent(x: Decimal): number {
  if (isScaled(x)) return x.x;
  return x.c[0] === 0 ? 0 : x.e - x.c.length + 1;
}

/** x as an integer count of 10^exponent (exponent at most lastExponent(x)); NaN when not a safe integer. */
export function integerAt(x: Decimal, exponent: number): number {
  if (zero(x)) return 0;
  const shift = lastDigitExponent(x) - exponent;
  if (digitCount(x) > MAX_FAST_DIGITS || shift < 0 || shift > MAX_FAST_DIGITS) return Number.NaN;
  const integer = coefficientValue(x) * POW10[shift]!;
  return integer <= Number.MAX_SAFE_INTEGER ? x.s * integer : Number.NaN;
}

/** integer x 10^exponent as a decimal (a safe integer). */
export function fromInteger(integer: number, exponent: number): Decimal {
  return integer === 0 ? ZERO : fromSafeInteger(integer, -exponent);
}

/**
 * money(ceilCent(v)) (`up`) or money(floorCent(v)) for v = integer x 10^exponent; null when
 * `integer` is not a safe integer or the cents do not fit one (the caller then rounds the decimal).
 */
export function roundedMoney(integer: number, exponent: number, up: boolean): string | null {
  if (!Number.isSafeInteger(integer)) return null;
  let cents: number;
  if (exponent >= -2) {
    cents = integer * POW10[exponent + 2]!;
    if (exponent + 2 > MAX_FAST_DIGITS || !Number.isSafeInteger(cents)) return null;
  } else {
    if (-2 - exponent > MAX_FAST_DIGITS) return null;
    const divisor = POW10[-2 - exponent]!;
    const remainder = integer % divisor; // the sign of `integer`
    cents = (integer - remainder) / divisor; // towards zero
    if (up && remainder > 0) cents += 1;
    else if (!up && remainder < 0) cents -= 1;
  }
  return formatCents(cents === 0 ? 0 : cents);
}

// --- rounding ---------------------------------------------------------------------------------

// A value that already has no more places than asked is returned as it is (decimals are never
// changed in place, so sharing one is safe); big.js would return an equal copy.

/** Towards +infinity, to the cent (liabilities: "rounded up to the cent in both signs"). */
export function ceilCent(value: Decimal): Decimal {
  if (placesOf(value) <= 2) return value;
  return value.round(2, value.s < 0 ? Big.roundDown : Big.roundUp);
}

/** Towards -infinity, to the cent (available balance). */
export function floorCent(value: Decimal): Decimal {
  if (placesOf(value) <= 2) return value;
  return value.round(2, value.s < 0 ? Big.roundUp : Big.roundDown);
}

/** Half up at nine places (unrounded fees, quantities). */
export function round9(value: Decimal): Decimal {
  if (placesOf(value) <= FEE_DECIMAL_PLACES) return value;
  return value.round(FEE_DECIMAL_PLACES, Big.roundHalfUp);
}

/** Digits after the point (0 for whole numbers); big.js keeps no trailing zeros in `c`. */
function placesOf(value: Decimal): number {
  return isScaled(value) ? -value.x : value.c.length - 1 - value.e;
}

/** money(ceilCent(value)): up to the cent, towards +infinity, without big.js when the value fits. */
export function moneyRoundedUp(value: Decimal): string {
  const exponent = lastExponent(value);
  return (exponent < -2 ? roundedMoney(integerAt(value, exponent), exponent, true) : null) ?? money(ceilCent(value));
}

/** money(floorCent(a - b)), never below 0.00 (what an available balance shows). */
export function moneyDifferenceDownAtLeastZero(a: Decimal, b: Decimal): string {
  const exponent = Math.min(lastExponent(a), lastExponent(b));
  const difference = integerAt(a, exponent) - integerAt(b, exponent);
  const fast = Number.isSafeInteger(difference) ? roundedMoney(difference > 0 ? difference : 0, exponent, false) : null;
  if (fast !== null) return fast;
  const down = floorCent(minus(a, b));
  return money(isNegative(down) ? ZERO : down);
}

/** money(ceilCent(a - b - c)). */
export function moneyDifferenceUp(a: Decimal, b: Decimal, c: Decimal): string {
  const exponent = Math.min(lastExponent(a), lastExponent(b), lastExponent(c));
  const difference = integerAt(a, exponent) - integerAt(b, exponent) - integerAt(c, exponent);
  return (
    (Number.isSafeInteger(difference) ? roundedMoney(difference, exponent, true) : null) ??
    moneyRoundedUp(minus(minus(a, b), c))
  );
}

// --- formatting --------------------------------------------------------------------------------

/** Money as the API shows it: at least two decimals, exact beyond ("4.00", "0.123456789"). */
export function money(value: Decimal): string {
  if (isScaled(value)) return (value.s < 0 ? '-' : '') + pointed(String(value.k), value.e); // a safe integer: String() writes its exact digits
  if (value.c[0] === 0) return '0.00';
  // Same text as `value.toFixed()` padded to two places, built without big.js's string steps: up
  // to 15 digits, the coefficient is an exact integer in a double and String() writes its digits.
  const c = value.c;
  const length = c.length;
  let digits: string;
  if (length <= 15) {
    let integer = 0;
    for (let i = 0; i < length; i++) integer = integer * 10 + c[i]!;
    digits = String(integer);
  } else {
    digits = c.join('');
  }
  return signOf(value) + pointed(digits, value.e);
}

/** The sign prefix of a value's text: none for zero (big.js prints -0 as "0"). */
function signOf(value: Decimal): string {
  return value.s < 0 && !zero(value) ? '-' : '';
}

/** `digits` (no leading or trailing zeros) times 10^(exponent - digits + 1), with at least two decimals. */
function pointed(digits: string, exponent: number): string {
  const places = digits.length - 1 - exponent;
  if (places <= 0) return `${places < 0 ? digits + '0'.repeat(-places) : digits}.00`;
  const text =
    exponent >= 0
      ? `${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`
      : `0.${exponent < -1 ? '0'.repeat(-exponent - 1) : ''}${digits}`;
  return places === 1 ? `${text}0` : text;
}

/** money(contractsTimesCents(nanos, cents)), without building the decimal when the product is exact in a double. */
export function contractsTimesCentsMoney(nanos: number, cents: number): string {
  const product = nanos * cents;
  if (!Number.isSafeInteger(product) || !Number.isInteger(nanos) || !Number.isInteger(cents)) {
    return money(contractsTimesCents(nanos, cents));
  }
  if (product === 0) return '0.00';
  let digits = String(product < 0 ? -product : product);
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  const exponent = digits.length - 1 - CONTRACTS_TIMES_CENTS_PLACES;
  if (end < digits.length) digits = digits.slice(0, end);
  return (product < 0 ? '-' : '') + pointed(digits, exponent);
}

/** Whole cents as a price string: 42 -> "0.42". */
export function formatCents(cents: number): string {
  if (cents >= 0 && cents < CACHED_CENT_TEXTS && Number.isInteger(cents)) {
    return CENT_TEXTS[cents] ?? (CENT_TEXTS[cents] = centsText(cents));
  }
  return centsText(cents);
}

/** Texts of the prices a market can have (0 to MAX_MARKET_PRICE_CENTS cents), made on first use. */
const CACHED_CENT_TEXTS = MAX_MARKET_PRICE_CENTS + 1;
const CENT_TEXTS: (string | undefined)[] = new Array<string | undefined>(CACHED_CENT_TEXTS);

function centsText(cents: number): string {
  if (Number.isSafeInteger(cents)) {
    const negative = cents < 0;
    const abs = negative ? -cents : cents;
    const fraction = abs % 100;
    return `${negative ? '-' : ''}${(abs - fraction) / 100}${fraction < 10 ? '.0' : '.'}${fraction}`;
  }
  const negative = cents < 0;
  const digits = String(Math.abs(cents)).padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** Nano-contracts as a quantity string: 1_500_000_000 -> "1.5". */
export function formatNanos(nanos: number): string {
  if (nanos % NANOS_PER_CONTRACT === 0) return String(nanos / NANOS_PER_CONTRACT); // whole contracts (and 0)
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

/**
 * x x multiplier / divisor, rounded half up to `places` decimals (multiplier and divisor
 * positive integers). When everything fits safe integers the exact quotient is rounded once;
 * big.js divides to its 40 places and then rounds, which gives the same result (a quotient of
 * integers below 2^53 cannot come within 10^-40 of a rounding tie without being on it).
 */
export function timesRatio(x: Decimal, multiplier: number, divisor: number, places: number): Decimal {
  const quotient = ratioInteger(x, multiplier, divisor, places);
  if (quotient === quotient) return quotient === 0 ? ZERO : fromSafeInteger(quotient, places); // not NaN
  return x.times(multiplier).div(divisor).round(places, Big.roundHalfUp);
}

/** timesRatio(x, multiplier, divisor, places) as an integer count of 10^-places; NaN when it does not fit. */
function ratioInteger(x: Decimal, multiplier: number, divisor: number, places: number): number {
  if (
    digitCount(x) <= MAX_FAST_DIGITS &&
    places <= MAX_FAST_DIGITS &&
    multiplier > 0 &&
    divisor > 0 &&
    Number.isSafeInteger(multiplier) &&
    Number.isSafeInteger(divisor)
  ) {
    if (zero(x)) return 0;
    const common = gcd(multiplier, divisor);
    const shift = lastDigitExponent(x) + places; // scale of the coefficient's last digit, in units of 10^-places
    if (shift >= -MAX_FAST_DIGITS && shift <= MAX_FAST_DIGITS) {
      const numerator = coefficientValue(x) * (multiplier / common) * (shift >= 0 ? POW10[shift]! : 1);
      const denominator = (divisor / common) * (shift < 0 ? POW10[-shift]! : 1);
      if (Number.isSafeInteger(numerator) && Number.isSafeInteger(denominator)) {
        const remainder = numerator % denominator;
        const quotient = (numerator - remainder) / denominator + (remainder * 2 >= denominator ? 1 : 0);
        return quotient === 0 ? 0 : x.s * quotient;
      }
    }
  }
  return Number.NaN;
}

/** Price per contract of `total` dollars over `nanos` nano-contracts, half up at `places`. */
export function perContract(total: Decimal, nanos: number, places: number): Decimal {
  return timesRatio(total, NANOS_PER_CONTRACT, nanos, places);
}

/** money(perContract(total, nanos, places)), without building the decimal when it fits a safe integer. */
export function perContractMoney(total: Decimal, nanos: number, places: number): string {
  const quotient = ratioInteger(total, NANOS_PER_CONTRACT, nanos, places);
  if (quotient === quotient) return integerMoney(quotient, -places);
  return money(perContract(total, nanos, places));
}

/** money(fromInteger(integer, exponent)) for a safe integer. */
function integerMoney(integer: number, exponent: number): string {
  if (integer === 0) return '0.00';
  let digits = String(integer < 0 ? -integer : integer);
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  const first = digits.length - 1 + exponent; // exponent of the first digit
  if (end < digits.length) digits = digits.slice(0, end);
  return (integer < 0 ? '-' : '') + pointed(digits, first);
}

/** value.toFixed(places) (big.js's text, half up), without big.js when value has at most `places` decimals. */
export function toFixedPlaces(value: Decimal, places: number): string {
  if (
    !zero(value) &&
    digitCount(value) <= MAX_FAST_DIGITS &&
    places <= MAX_FAST_DIGITS &&
    -lastDigitExponent(value) <= places
  ) {
    const integer = integerAt(value, -places);
    if (integer === integer) {
      const digits = String(integer < 0 ? -integer : integer);
      const padded = digits.length <= places ? '0'.repeat(places + 1 - digits.length) + digits : digits;
      const point = padded.length - places;
      return `${integer < 0 ? '-' : ''}${padded.slice(0, point)}${places > 0 ? '.' : ''}${padded.slice(point)}`;
    }
  }
  return value.toFixed(places);
}

/** x / divisor rounded towards zero, as a number (a positive divisor). */
export function wholeQuotient(x: Decimal, divisor: number): number {
  if (digitCount(x) <= MAX_FAST_DIGITS && x.s > 0 && divisor > 0 && Number.isSafeInteger(divisor)) {
    if (zero(x)) return 0;
    const last = lastDigitExponent(x);
    if (last >= -MAX_FAST_DIGITS && last <= MAX_FAST_DIGITS) {
      const numerator = coefficientValue(x) * (last > 0 ? POW10[last]! : 1);
      const denominator = divisor * (last < 0 ? POW10[-last]! : 1);
      if (Number.isSafeInteger(numerator) && Number.isSafeInteger(denominator)) {
        return (numerator - (numerator % denominator)) / denominator;
      }
    }
  }
  return Number(x.div(divisor).round(0, Big.roundDown).toFixed(0));
}

/** Greatest common divisor of two positive safe integers. */
function gcd(a: number, b: number): number {
  while (b !== 0) {
    const r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/** A JSON number setting (fee percent, factor) as an exact decimal of its shortest text form. */
export function numberToDecimal(value: number): Decimal {
  return new Big(String(value));
}

/** The exponent shift of nano-contracts times cents: 10^-9 x 10^-2. */
const CONTRACTS_TIMES_CENTS_PLACES = QUANTITY_DECIMAL_PLACES + 2;

/**
 * Dollars of `nanos` contracts at `cents` per contract, exact. When the integer product fits a
 * double exactly (always for order sizes and prices within their limits), the value is built from
 * its digits; otherwise big.js multiplies.
 */
export function contractsTimesCents(nanos: number, cents: number): Decimal {
  const product = nanos * cents;
  if (product !== 0 && Number.isSafeInteger(product) && Number.isInteger(nanos) && Number.isInteger(cents)) {
    return fromSafeInteger(product, CONTRACTS_TIMES_CENTS_PLACES);
  }
  const general = new Big(nanos).times(cents); // a fresh value: rescaled in place
  if (general.c.length === 1 && general.c[0] === 0) return general;
  general.e -= CONTRACTS_TIMES_CENTS_PLACES;
  return general;
}

/** Bound on each of two integers whose sum must be exact: |a|, |b| <= 2^52 keep |a + b| <= 2^53. */
const HALF_SAFE = 2 ** 52;

/** x + contractsTimesCents(nanos, cents), exact; built once when both read as safe integers of one power of ten. */
export function plusContractsTimesCents(x: Decimal, nanos: number, cents: number): Decimal {
  if (nanos === 0 || cents === 0) return x;
  const total = sumWithProduct(x, 1, nanos, cents);
  if (total === total) return fromInteger(total, sumExponent); // not NaN
  return plus(x, contractsTimesCents(nanos, cents));
}

/** money(contractsTimesCents(nanos, cents) - x), without building decimals when the values fit. */
export function contractsTimesCentsLessMoney(nanos: number, cents: number, x: Decimal): string {
  const total = sumWithProduct(x, -1, nanos, cents);
  if (total === total) return integerMoney(total, sumExponent);
  return money(minus(contractsTimesCents(nanos, cents), x));
}

/** The exponent of sumWithProduct's result. */
let sumExponent = 0;

/**
 * sign x x + nanos x cents x 10^-11 as an integer count of 10^sumExponent; NaN when a term is not
 * a safe integer within HALF_SAFE (the sum is then not computed on integers).
 */
function sumWithProduct(x: Decimal, sign: 1 | -1, nanos: number, cents: number): number {
  if (!Number.isInteger(nanos) || !Number.isInteger(cents)) return Number.NaN;
  const whole = nanos % NANOS_PER_CONTRACT === 0;
  const product = (whole ? nanos / NANOS_PER_CONTRACT : nanos) * cents;
  const productExponent = (whole ? 0 : -QUANTITY_DECIMAL_PLACES) - 2;
  if (!Number.isSafeInteger(product)) return Number.NaN;
  const xLast = lastExponent(x);
  const exponent = xLast < productExponent ? xLast : productExponent;
  const shift = productExponent - exponent;
  if (shift > MAX_FAST_DIGITS) return Number.NaN;
  const scaledProduct = product * POW10[shift]!;
  const xInteger = integerAt(x, exponent);
  if (!(scaledProduct <= HALF_SAFE && scaledProduct >= -HALF_SAFE && xInteger <= HALF_SAFE && xInteger >= -HALF_SAFE))
    return Number.NaN;
  sumExponent = exponent;
  const total = sign * xInteger + scaledProduct;
  return total === 0 ? 0 : total;
}

/**
 * integer x 10^-places for a safe integer: a scaled decimal (above) of the value big.js would
 * build, its coefficient without trailing zeros.
 */
function fromSafeInteger(integer: number, places: number): Decimal {
  if (integer === 0) return ZERO;
  let k = integer < 0 ? -integer : integer;
  let last = -places;
  while (k % 10 === 0) {
    k /= 10;
    last++;
  }
  let length = 1;
  for (let bound = 10; bound <= k; bound *= 10) length++;
  return new ScaledDecimal(integer < 0 ? -1 : 1, last + length - 1, k, last) as Scaled;
}
