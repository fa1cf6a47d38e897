// The engine's journal format: stream `engine`. Projectors, recovery and the replay verifier read
// engine outcomes only through these helpers.
//
// Record kinds:
// - `EngineSteps` (written since record version 3): one record per group commit, holding every
//   step of that batch that produced events, in sequence order: `{v: 3, steps: [...]}`, each step
//   `{seq, now_us, input, events}` with its views (and order requests) delta-encoded against the previous view of their
//   kind in the same record (encoding.ts). One row per batch instead of one per input keeps the
//   journal's per-record cost (a row, an index entry, a JSON document) off the path of every
//   order, and the deltas roughly halve the bytes a step costs.
// - `EngineStep` (read, no longer written): one record per step; v1 (no `v`) holds the events as
//   emitted, v2 (`v: 2`) in the compact encoding.
// `journalStepsOf` and `engineEventsOf` return the same steps and events for every kind.

import type { EngineEvent } from '../events.ts';
import type { EngineInput } from '../inputs.ts';
import {
  decodeEvents, decodeEventsDelta, decodeInputDelta, encodeEvents, encodeEventsDelta, encodeInputDelta, JOURNAL_VERSION, newDeltaContext, type DeltaContext, type EncodedEngineEvent,
} from './encoding.ts';

export { newDeltaContext, type DeltaContext };

/** What the journal helpers read of a stored record (the event store's JournalRecord has these). */
export interface JournalRecord<Data = unknown> {
  stream: string;
  type: string;
  data: Data;
}

export const ENGINE_STREAM = 'engine';
/** One record per step (record versions 1 and 2); still read. */
export const ENGINE_STEP_TYPE = 'EngineStep';
/** One record per group-committed batch of steps (record version 3); what the engine writes. */
export const ENGINE_STEPS_TYPE = 'EngineSteps';
/** Every record type the engine has written: the subscription filter of engine projectors. */
export const ENGINE_RECORD_TYPES: readonly string[] = [ENGINE_STEP_TYPE, ENGINE_STEPS_TYPE];
export const ENGINE_BATCH_VERSION = 3;

/** Version 1 `EngineStep`: the events as emitted. */
export interface EngineStepDataV1 {
  v?: undefined;
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EngineEvent[];
}

/** Version 2 `EngineStep`: the events in the compact encoding. */
export interface EngineStepDataV2 {
  v: typeof JOURNAL_VERSION;
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EncodedEngineEvent[];
}

export type EngineStepData = EngineStepDataV1 | EngineStepDataV2;

/** One step inside an `EngineSteps` record (events in the compact encoding). */
export interface EncodedStep {
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EncodedEngineEvent[];
}

/** Version 3 `EngineSteps`: the steps of one group commit. */
export interface EngineStepsData {
  v: typeof ENGINE_BATCH_VERSION;
  steps: EncodedStep[];
}

export type EngineRecordData = EngineStepData | EngineStepsData;

/** A journaled step as readers see it, whatever the record kind. */
export interface JournalStep {
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EngineEvent[];
}

export function isEngineRecord(record: JournalRecord): record is JournalRecord<EngineRecordData> {
  return record.stream === ENGINE_STREAM && (record.type === ENGINE_STEPS_TYPE || record.type === ENGINE_STEP_TYPE);
}

/** One step of a batch record as the engine writes it; `context` is the record's (one per record). */
export function encodeStep(seq: number, nowUs: number, input: EngineInput, events: readonly EngineEvent[], context: DeltaContext): EncodedStep {
  return { seq, now_us: nowUs, input: encodeInputDelta(input, context), events: encodeEventsDelta(events, context) };
}

/** The payload of one `EngineSteps` record. */
export function engineStepsData(steps: EncodedStep[]): EngineStepsData {
  return { v: ENGINE_BATCH_VERSION, steps };
}

/** The payload of a single-step `EngineStep` v2 record (kept for tools and tests of old journals). */
export function engineStepData(seq: number, nowUs: number, input: EngineInput, events: readonly EngineEvent[]): EngineStepDataV2 {
  return { v: JOURNAL_VERSION, seq, now_us: nowUs, input, events: encodeEvents(events) };
}

function stepOf(data: EngineStepData): JournalStep {
  if (data.v === undefined) return { seq: data.seq, now_us: data.now_us, input: data.input, events: data.events };
  if (data.v === JOURNAL_VERSION) return { seq: data.seq, now_us: data.now_us, input: data.input, events: decodeEvents(data.events) };
  throw new Error(`engine journal: record version ${String((data as { v: unknown }).v)} is not known to this build`);
}

/** The encoded steps of an `EngineSteps` record, once its version is known to this build. */
function encodedStepsOf(record: JournalRecord): EncodedStep[] {
  const data = record.data as EngineStepsData;
  if (data.v !== ENGINE_BATCH_VERSION || !Array.isArray(data.steps)) {
    throw new Error(`engine journal: ${ENGINE_STEPS_TYPE} record version ${String((data as { v: unknown }).v)} is not known to this build`);
  }
  return data.steps;
}

/** The steps inside an engine record, in sequence order; empty for any other record. */
export function journalStepsOf(record: JournalRecord): JournalStep[] {
  if (!isEngineRecord(record)) return [];
  if (record.type === ENGINE_STEP_TYPE) return [stepOf(record.data as EngineStepData)];
  const context = newDeltaContext();
  return encodedStepsOf(record).map((step) => ({
    seq: step.seq, now_us: step.now_us, input: decodeInputDelta(step.input, context), events: decodeEventsDelta(step.events, context),
  }));
}

/** A journaled step without its outcome events decoded: what recovery needs to re-run it. */
export interface JournalInput {
  seq: number;
  now_us: number;
  input: EngineInput;
  /** How many outcome events the step journaled. */
  eventCount: number;
}

/**
 * The steps inside an engine record with their inputs only (the events are counted, not
 * decoded): recovery re-runs the inputs and needs nothing else, and decoding the events was a
 * fifth of its time. Empty for any other record.
 */
export function journalInputsOf(record: JournalRecord): JournalInput[] {
  if (!isEngineRecord(record)) return [];
  if (record.type === ENGINE_STEP_TYPE) {
    const step = stepOf(record.data as EngineStepData);
    return [{ seq: step.seq, now_us: step.now_us, input: step.input, eventCount: step.events.length }];
  }
  // Order requests are delta-encoded against earlier order requests only (their own key list),
  // so inputs decode in order without the events.
  const context = newDeltaContext();
  return encodedStepsOf(record).map((step) => ({
    seq: step.seq, now_us: step.now_us, input: decodeInputDelta(step.input, context),
    eventCount: Array.isArray(step.events) ? step.events.length : 0,
  }));
}

/**
 * How many outcome events an engine record holds (1 for any other record), without decoding it:
 * a measure of the work projecting it takes.
 */
export function outcomeCountOf(record: JournalRecord): number {
  if (!isEngineRecord(record)) return 1;
  const data = record.data as { events?: unknown; steps?: unknown };
  if (record.type === ENGINE_STEP_TYPE) return Array.isArray(data.events) ? Math.max(1, data.events.length) : 1;
  if (!Array.isArray(data.steps)) return 1;
  let count = 0;
  for (const step of data.steps as Array<{ events?: unknown } | null>) count += Array.isArray(step?.events) ? step.events.length : 0;
  return Math.max(1, count);
}

/** The sequence number of the last step inside an engine record. */
export function lastSeqOf(record: JournalRecord<EngineRecordData>): number {
  if (record.type === ENGINE_STEP_TYPE) return (record.data as EngineStepData).seq;
  const steps = (record.data as EngineStepsData).steps;
  return steps.length > 0 ? steps[steps.length - 1]!.seq : -1;
}

/** All engine outcome events inside a record, in order; empty for any record that is not the engine's. */
export function engineEventsOf(record: JournalRecord): EngineEvent[] {
  const steps = journalStepsOf(record);
  if (steps.length === 1) return steps[0]!.events;
  const out: EngineEvent[] = [];
  for (const step of steps) for (const event of step.events) out.push(event);
  return out;
}
