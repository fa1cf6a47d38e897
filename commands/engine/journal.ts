// The engine's journal format: stream `engine`, one `EngineStep` record per processed input.
// Projectors and the replay verifier read engine outcomes only through these helpers.
//
// Record versions: v1 (no `v` field) holds the events as the engine emitted them; v2 (`v: 2`,
// written since) holds them in the compact encoding of encoding.ts (views as arrays of values).
// `engineEventsOf` returns the same events for both.

import type { EngineEvent } from '../../domain/engine/events.ts';
import type { EngineInput } from '../../domain/engine/inputs.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { decodeEvents, encodeEvents, JOURNAL_VERSION, type EncodedEngineEvent } from './encoding.ts';

export const ENGINE_STREAM = 'engine';
export const ENGINE_STEP_TYPE = 'EngineStep';

/** Payload of one journal record: the sequenced input and everything it caused. */
export type EngineStepData = EngineStepDataV1 | EngineStepDataV2;

/** Version 1: the events as emitted. Still read; no longer written. */
export interface EngineStepDataV1 {
  v?: undefined;
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EngineEvent[];
}

/** Version 2: the events in the compact encoding (read them with `engineEventsOf`). */
export interface EngineStepDataV2 {
  v: typeof JOURNAL_VERSION;
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EncodedEngineEvent[];
}

export function isEngineStep(record: RecordedEvent): record is RecordedEvent<EngineStepData> {
  return record.type === ENGINE_STEP_TYPE;
}

/** The record payload the engine writes for one step (current version). */
export function engineStepData(seq: number, nowUs: number, input: EngineInput, events: readonly EngineEvent[]): EngineStepDataV2 {
  return { v: JOURNAL_VERSION, seq, now_us: nowUs, input, events: encodeEvents(events) };
}

/** The events of a step payload, whatever its version. */
export function stepEvents(data: EngineStepData): EngineEvent[] {
  if (data.v === undefined) return data.events;
  if (data.v === JOURNAL_VERSION) return decodeEvents(data.events);
  throw new Error(`engine journal: record version ${String((data as { v: unknown }).v)} is not known to this build`);
}

/** The engine outcome events inside a record; empty for any record that is not an engine step. */
export function engineEventsOf(record: RecordedEvent): EngineEvent[] {
  return isEngineStep(record) ? stepEvents(record.data) : [];
}
