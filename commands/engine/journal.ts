// The engine's journal format: stream `engine`, one `EngineStep` record per processed input.
// Projectors and the replay verifier read engine outcomes only through these helpers.

import type { EngineEvent } from '../../domain/engine/events.ts';
import type { EngineInput } from '../../domain/engine/inputs.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';

export const ENGINE_STREAM = 'engine';
export const ENGINE_STEP_TYPE = 'EngineStep';

/** Payload of one journal record: the sequenced input and everything it caused. */
export interface EngineStepData {
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EngineEvent[];
}

export function isEngineStep(record: RecordedEvent): record is RecordedEvent<EngineStepData> {
  return record.type === ENGINE_STEP_TYPE;
}

/** The engine outcome events inside a record; empty for any record that is not an engine step. */
export function engineEventsOf(record: RecordedEvent): EngineEvent[] {
  return isEngineStep(record) ? record.data.events : [];
}
