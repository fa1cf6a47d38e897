// What every command answers: its value, or the typed refusal saying why nothing was done
// (domain/errors.ts; each transport maps it to its wire form). A broken invariant is not a
// refusal: it is thrown.

import { DomainError, type Refusal } from '../domain/errors.ts';

export type CommandResult<T> = { ok: true; value: T } | { ok: false; refusal: Refusal };

export const accepted = <T>(value: T): CommandResult<T> => ({ ok: true, value });
export const refused = (refusal: Refusal): { ok: false; refusal: Refusal } => ({ ok: false, refusal });

/** For callers with nobody to answer (the demo seeder, the CLI's wiring, a transport that throws): a refusal is thrown. */
export function valueOrThrow<T>(result: CommandResult<T>): T {
  if (!result.ok) throw new DomainError(result.refusal);
  return result.value;
}
