// Money and quantities travel as decimal strings, in and out, never as JS numbers. A program
// that prefers a decimal library passes an adapter (e.g. big.js: `{ parse: (s) => new Big(s),
// format: (d) => d.toString() }`): inputs then take its values, and `client.decimal(text)` reads
// an answer's string into one.

export interface DecimalAdapter<D> {
  parse(text: string): D;
  format(value: D): string;
}

/** A decimal input: a string such as "0.55", or a value of the adapter's library. */
export type DecimalInput<D> = string | D;

export function formatDecimal<D>(
  value: DecimalInput<D> | null | undefined,
  field: string,
  adapter: DecimalAdapter<D> | undefined,
): string | null | undefined {
  if (value === null || value === undefined) return value as null | undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint')
    throw new TypeError(`${field} must be a decimal string (e.g. "0.55"), never a JS number`);
  if (!adapter)
    throw new TypeError(`${field} must be a decimal string; pass a decimal adapter to the client to give other values`);
  return adapter.format(value);
}
