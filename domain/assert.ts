// Assertions in the TigerBeetle manner: a condition the code relies on, stated where it relies on
// it, with the reason it must hold. A failed assertion is a bug (never a business refusal, which
// is a typed Refusal): it throws, and the engine stops rather than journal a state it cannot trust.

/** A broken invariant: the program, not its input, is wrong. */
export class AssertionFailed extends Error {
  constructor(reason: string) {
    super(`assertion failed: ${reason}`);
    this.name = 'AssertionFailed';
  }
}

/** Throws AssertionFailed with `reason` unless `condition` holds. */
export function assert(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new AssertionFailed(reason);
}

/** `value`, asserted not undefined (null is a value here), e.g. an index the code knows is in range. */
export function defined<T>(value: T | undefined, reason: string): T {
  if (value === undefined) throw new AssertionFailed(reason);
  return value;
}

/** `value`, asserted present (the reason says why it must be). */
export function present<T>(value: T | undefined | null, reason: string): T {
  if (value === undefined || value === null) throw new AssertionFailed(reason);
  return value;
}
