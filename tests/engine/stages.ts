// Shared pieces of the engine stages' unit tests: a waiting input with its answer observable.

import type { EngineInput } from '../../domain/engine/inputs.ts';
import type { EngineReply } from '../../engine/gateway.ts';
import type { Pending } from '../../engine/sequencer.ts';

export interface Observed extends Pending {
  /** What the caller got: its reply, or the error it was refused with; undefined while waiting. */
  outcome: { reply?: EngineReply; error?: unknown } | undefined;
}

export function pending(input: EngineInput, nowUs: number): Observed {
  const observed: Observed = {
    input,
    nowUs,
    outcome: undefined,
    resolve(reply) {
      observed.outcome = { reply };
    },
    reject(error) {
      observed.outcome = { error };
    },
  };
  return observed;
}
