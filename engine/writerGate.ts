// The writer's gate: with several nodes, the engine decides only while its node holds the writer
// lease. The sequencer asks before every slice it hands to the decider; while the lease may have
// ended (its renewal is late: a stalled event loop, a slow database) it hands out nothing and
// reports no input waiting, so the pipeline goes idle with the inputs still queued, undecided.
// The node then either renews the lease (nobody took it: `wake` resumes deciding) or learns that
// another node took it and halts the engine (every input waiting is refused as "engine stopped":
// REST 503 with Retry-After). What was decided before is journaled or fenced: a deposed writer's
// append fails on the journal stream's expected revision once another writer appended.

import type { Clock } from '../domain/clock.ts';
import { Sequencer, type Pending } from './sequencer.ts';

export const WRITER_LEASE_ENDED = 'the writer lease ended: another node is the writer';

export class GatedSequencer extends Sequencer {
  constructor(
    clock: Clock,
    onInput: () => void,
    inputsMax: number,
    private readonly mayDecide: () => boolean,
  ) {
    super(clock, onInput, inputsMax);
  }

  /** Inputs waiting to be decided now: none while the gate is shut (they stay queued). */
  override get length(): number {
    return this.stopped === undefined && !this.mayDecide() ? 0 : super.length;
  }

  override takeSlice(limit: number): Pending[] {
    if (this.stopped === undefined && !this.mayDecide()) return [];
    return super.takeSlice(limit);
  }
}
