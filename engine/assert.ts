// Assertions in the engine runtime: each states what must hold and why, and a failed one throws
// (the pipeline then stops or reloads from the journal) rather than let a wrong state be
// journaled or answered. They replace non-null `!`s that hid the same assumption without a word.

/** An engine invariant does not hold: a bug, never a caller's mistake. */
export class EngineAssertionError extends Error {
  constructor(reason: string) {
    super(`engine assertion failed: ${reason}`);
    this.name = 'EngineAssertionError';
  }
}

export function assert(condition: boolean, reason: string): asserts condition {
  if (!condition) throw new EngineAssertionError(reason);
}

/** `value`, which `reason` says cannot be missing here. */
export function present<T>(value: T | undefined, reason: string): T {
  if (value === undefined) throw new EngineAssertionError(reason);
  return value;
}
