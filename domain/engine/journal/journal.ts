// The engine's journal format: stream `engine`. Projectors, recovery and the replay verifier read
// engine outcomes only through these helpers, and always get facts (events.ts), whatever the
// version of the record they come from.
//
// Record kinds:
// - `EngineSteps`, version 4 (what the engine writes): one record per group commit, holding every
//   step of that batch that produced facts, in sequence order: `{v: 4, steps: [...]}`, each step
//   `{seq, now_us, input, events}`; the facts in the compact encoding of factEncoding.ts, the
//   order requests of inputs delta-encoded (encoding.ts), both against earlier ones in the same
//   record, so a record decodes on its own.
// - `EngineSteps`, version 3, and `EngineSteps` versions 1 and 2 (read, no longer written): the
//   outcome events were REST-shaped views (legacy.ts, encoding.ts); each step's views are turned
//   into the facts the engine would state (upcast.ts). A `JournalStep` says which version it was
//   read from: only steps of the current version hold exactly what today's engine emits.

import type { EngineEvent } from '../events.ts';
import type { EngineInput } from '../inputs.ts';
import {
  decodeEvents, decodeEventsDelta, decodeInputDelta, encodeEvents, encodeInputDelta, JOURNAL_VERSION, newDeltaContext,
  type DeltaContext, type EncodedEngineEvent,
} from './encoding.ts';
import { decodeFacts, encodeFacts, newFactContext, type FactContext, type StoredFact } from './factEncoding.ts';
import type { LegacyEngineEvent } from './legacy.ts';
import { upcastStep } from './upcast.ts';

/** What the journal helpers read of a stored record (the event store's JournalRecord has these). */
export interface JournalRecord<Data = unknown> {
  stream: string;
  type: string;
  data: Data;
}

export const ENGINE_STREAM = 'engine';
/** One record per step (record versions 1 and 2); still read. */
export const ENGINE_STEP_TYPE = 'EngineStep';
/** One record per group-committed batch of steps (record versions 3 and 4); what the engine writes. */
export const ENGINE_STEPS_TYPE = 'EngineSteps';
/** Every record type the engine has written: the subscription filter of engine projectors. */
export const ENGINE_RECORD_TYPES: readonly string[] = [ENGINE_STEP_TYPE, ENGINE_STEPS_TYPE];
/** The record version the engine writes: steps of facts. */
export const ENGINE_RECORD_VERSION = 4;
/** The last record version of REST-shaped views (read through the upcaster). */
export const VIEWS_RECORD_VERSION = 3;

/** Version 1 `EngineStep`: the events as emitted. */
export interface EngineStepDataV1 {
  v?: undefined;
  seq: number;
  now_us: number;
  input: EngineInput;
  events: LegacyEngineEvent[];
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

/** One step inside a version 3 `EngineSteps` record (views in the compact encoding). */
export interface ViewsStep {
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EncodedEngineEvent[];
}

/** Version 3 `EngineSteps`: the steps of one group commit, as views. */
export interface ViewsStepsData {
  v: typeof VIEWS_RECORD_VERSION;
  steps: ViewsStep[];
}

/** One step inside a version 4 `EngineSteps` record (facts in the compact encoding). */
export interface EncodedStep {
  seq: number;
  now_us: number;
  input: EngineInput;
  events: StoredFact[];
}

/** Version 4 `EngineSteps`: the steps of one group commit, as facts. */
export interface EngineStepsData {
  v: typeof ENGINE_RECORD_VERSION;
  steps: EncodedStep[];
}

export type EngineRecordData = EngineStepData | ViewsStepsData | EngineStepsData;

/** A journaled step as readers see it, whatever the record kind: its facts. */
export interface JournalStep {
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EngineEvent[];
  /** The record version it was read from (below ENGINE_RECORD_VERSION: facts upcast from views). */
  version: number;
  /**
   * Steps of older versions: per fact, the index of the old event it comes from, and how many
   * events the old step held (read models number what a journal inserts by these).
   */
  indexes?: number[];
  width?: number;
}

export function isEngineRecord(record: JournalRecord): record is JournalRecord<EngineRecordData> {
  return record.stream === ENGINE_STREAM && (record.type === ENGINE_STEPS_TYPE || record.type === ENGINE_STEP_TYPE);
}

/** The earlier order requests and facts of the record being written or read: one per record. */
export interface RecordContext {
  inputs: DeltaContext;
  facts: FactContext;
}

export function newRecordContext(): RecordContext {
  return { inputs: newDeltaContext(), facts: newFactContext() };
}

/** One step of a batch record as the engine writes it; `context` is the record's (one per record). */
export function encodeStep(seq: number, nowUs: number, input: EngineInput, events: readonly EngineEvent[], context: RecordContext): EncodedStep {
  return { seq, now_us: nowUs, input: encodeInputDelta(input, context.inputs), events: encodeFacts(events, context.facts) };
}

/** The payload of one `EngineSteps` record. */
export function engineStepsData(steps: EncodedStep[]): EngineStepsData {
  return { v: ENGINE_RECORD_VERSION, steps };
}

/** The payload of a single-step `EngineStep` v2 record (for tools and tests that write old journals). */
export function engineStepData(seq: number, nowUs: number, input: EngineInput, events: readonly LegacyEngineEvent[]): EngineStepDataV2 {
  return { v: JOURNAL_VERSION, seq, now_us: nowUs, input, events: encodeEvents(events) };
}

export { newDeltaContext, type DeltaContext };

function legacyStepOf(data: EngineStepData): { events: LegacyEngineEvent[]; version: number } {
  if (data.v === undefined) return { events: data.events, version: 1 };
  if (data.v === JOURNAL_VERSION) return { events: decodeEvents(data.events), version: JOURNAL_VERSION };
  throw new Error(`engine journal: record version ${String((data as { v: unknown }).v)} is not known to this build`);
}

/** The version of an `EngineSteps` record, once it is known to this build. */
function stepsVersionOf(record: JournalRecord): typeof VIEWS_RECORD_VERSION | typeof ENGINE_RECORD_VERSION {
  const data = record.data as { v?: unknown; steps?: unknown };
  if ((data.v === ENGINE_RECORD_VERSION || data.v === VIEWS_RECORD_VERSION) && Array.isArray(data.steps)) return data.v;
  throw new Error(`engine journal: ${ENGINE_STEPS_TYPE} record version ${String(data.v)} is not known to this build`);
}

/** The steps inside an engine record, in sequence order, with their facts; empty for any other record. */
export function journalStepsOf(record: JournalRecord): JournalStep[] {
  if (!isEngineRecord(record)) return [];
  if (record.type === ENGINE_STEP_TYPE) {
    const data = record.data as EngineStepData;
    const { events, version } = legacyStepOf(data);
    return [{ seq: data.seq, now_us: data.now_us, input: data.input, version, ...upcastStep(data.input, events) }];
  }
  const version = stepsVersionOf(record);
  if (version === VIEWS_RECORD_VERSION) {
    const context = newDeltaContext();
    return (record.data as ViewsStepsData).steps.map((step) => {
      const input = decodeInputDelta(step.input, context);
      return { seq: step.seq, now_us: step.now_us, input, version, ...upcastStep(input, decodeEventsDelta(step.events, context)) };
    });
  }
  const context = newRecordContext();
  return (record.data as EngineStepsData).steps.map((step) => ({
    seq: step.seq, now_us: step.now_us, input: decodeInputDelta(step.input, context.inputs), events: decodeFacts(step.events, context.facts), version,
  }));
}

/** A journaled step without its outcome events decoded: what recovery needs to re-run it. */
export interface JournalInput {
  seq: number;
  now_us: number;
  input: EngineInput;
  /** How many outcome events the step journaled (comparable with a re-run only in records of ENGINE_RECORD_VERSION). */
  eventCount: number;
  version: number;
}

/**
 * The steps inside an engine record with their inputs only (the events are counted, not
 * decoded): recovery re-runs the inputs and needs nothing else, and decoding the events was a
 * fifth of its time. Empty for any other record.
 */
export function journalInputsOf(record: JournalRecord): JournalInput[] {
  if (!isEngineRecord(record)) return [];
  if (record.type === ENGINE_STEP_TYPE) {
    const data = record.data as EngineStepData;
    const { events, version } = legacyStepOf(data);
    return [{ seq: data.seq, now_us: data.now_us, input: data.input, eventCount: events.length, version }];
  }
  const version = stepsVersionOf(record);
  // Order requests are delta-encoded against earlier order requests only (their own key list),
  // so inputs decode in order without the events.
  const context = newDeltaContext();
  return (record.data as { steps: Array<{ seq: number; now_us: number; input: EngineInput; events: unknown }> }).steps.map((step) => ({
    seq: step.seq, now_us: step.now_us, input: decodeInputDelta(step.input, context),
    eventCount: Array.isArray(step.events) ? step.events.length : 0, version,
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
  const steps = (record.data as { steps: Array<{ seq: number }> }).steps;
  return steps.length > 0 ? steps[steps.length - 1]!.seq : -1;
}

/** All engine facts inside a record, in order; empty for any record that is not the engine's. */
export function engineEventsOf(record: JournalRecord): EngineEvent[] {
  const steps = journalStepsOf(record);
  if (steps.length === 1) return steps[0]!.events;
  const out: EngineEvent[] = [];
  for (const step of steps) for (const event of step.events) out.push(event);
  return out;
}
