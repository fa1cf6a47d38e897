// A record stored as its values in the order of a key list (the journal's compact forms), and back.

/** `record`'s values in `keys`' order, from index `offset` of a new array (the slots before it left for the caller). */
export function valuesInKeyOrder(record: Record<string, unknown>, keys: readonly string[], offset: 0 | 1): unknown[] {
  const values = new Array<unknown>(keys.length + offset);
  let at = offset;
  for (const key of keys) values[at++] = record[key];
  return values;
}

/** Sets each of `keys` on `target` from `values`, read from index `offset` on (valuesInKeyOrder's inverse). */
export function assignInKeyOrder(
  target: Record<string, unknown>,
  keys: readonly string[],
  values: ArrayLike<unknown>,
  offset: 0 | 1,
): void {
  let at = offset;
  for (const key of keys) target[key] = values[at++];
}
