// What every command answers: its value, or the typed refusal saying why nothing was done
// (domain/errors.ts; each transport maps it to its wire form). A broken invariant is not a
// refusal: it is thrown. A command whose refusals are its own (the login steps' and sign-up's,
// beside their commands) names them as `R`. A refusal may carry when to answer and when to come
// back: `delayMs` (hold the answer that long: a wrong password's slow-down) and `retryAfterMs`
// (the caller may try again after that long: a limit; REST and the login pages send it as
// Retry-After).

import { DomainError, type Refusal } from '../domain/errors.ts';

export interface Refused<R = Refusal> {
  ok: false;
  refusal: R;
  /** Hold the answer this long before giving it. */
  delayMs?: number;
  /** The caller may try again after this long. */
  retryAfterMs?: number;
}

export type CommandResult<T, R = Refusal> = { ok: true; value: T } | Refused<R>;

export const accepted = <T>(value: T): { ok: true; value: T } => ({ ok: true, value });
export function refused<R = Refusal>(refusal: R, timing: { delayMs?: number; retryAfterMs?: number } = {}): Refused<R> {
  return { ok: false, refusal, ...timing };
}

/** For callers with nobody to answer (the demo seeder, the CLI's wiring, a transport that throws): a refusal is thrown. */
export function valueOrThrow<T>(result: CommandResult<T>): T {
  if (!result.ok) throw new DomainError(result.refusal);
  return result.value;
}

/** Runs a check that throws its refusal (input validation: `InvalidInput`) and answers it as a result. */
export function judged<T>(check: () => T): CommandResult<T> {
  try {
    return accepted(check());
  } catch (err) {
    if (err instanceof DomainError) return refused(err.refusal);
    throw err;
  }
}
