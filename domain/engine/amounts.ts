// The engine's hot-path amount: dollars of `nanos` contracts at `cents` per contract. Equal to
// money/decimal.ts `contractsTimesCents` (same big.js value: sign, exponent, digits), built from
// the exact integer product when it fits a double instead of parsing and multiplying big.js
// values; other cases go through the general function.

import { Big, contractsTimesCents as generalContractsTimesCents, QUANTITY_DECIMAL_PLACES, type Decimal } from '../money/decimal.ts';

/** The exponent shift of nano-contracts times cents: 10^-9 x 10^-2. */
const SCALE_PLACES = QUANTITY_DECIMAL_PLACES + 2;

export function contractsTimesCents(nanos: number, cents: number): Decimal {
  const product = nanos * cents;
  if (product === 0 || !Number.isSafeInteger(product) || !Number.isInteger(nanos) || !Number.isInteger(cents)) {
    return generalContractsTimesCents(nanos, cents);
  }
  const digits = String(product < 0 ? -product : product);
  let end = digits.length;
  while (digits.charCodeAt(end - 1) === 48) end--;
  const coefficient = new Array<number>(end);
  for (let i = 0; i < end; i++) coefficient[i] = digits.charCodeAt(i) - 48;
  // Fields in the order big.js's constructor creates them (one object shape for every value).
  const value = Object.create(Big.prototype) as Decimal & { constructor: unknown };
  value.s = product < 0 ? -1 : 1;
  value.e = digits.length - 1 - SCALE_PLACES;
  value.c = coefficient;
  value.constructor = Big;
  return value;
}
