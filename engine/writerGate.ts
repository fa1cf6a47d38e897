// The writer's gate: with several nodes, the engine decides only while its node holds the writer
// lease. The sequencer asks before every slice it hands to the decider; past the lease's end it
// stops (every input waiting is refused as "engine stopped": REST 503 with Retry-After) before
// anything more is decided. What was decided before is journaled or fenced: a deposed writer's
// append fails on the journal stream's expected revision once another writer appended.

import type { Clock } from '../domain/clock.ts';
import { EngineStoppedError } from './gateway.ts';
import { Sequencer, type Pending } from './sequencer.ts';

export const WRITER_LEASE_ENDED = 'the writer lease ended: another node may be the writer';

export class GatedSequencer extends Sequencer {
  constructor(
    clock: Clock,
    onInput: () => void,
    inputsMax: number,
    private readonly mayDecide: () => boolean,
  ) {
    super(clock, onInput, inputsMax);
  }

  override takeSlice(limit: number): Pending[] {
    if (this.stopped === undefined && !this.mayDecide()) this.halt(new EngineStoppedError(WRITER_LEASE_ENDED));
    if (this.stopped !== undefined) return [];
    return super.takeSlice(limit);
  }
}
