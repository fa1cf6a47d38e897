// The engine's journal format: stream `engine`. Projectors, recovery and the replay verifier read
// engine outcomes only through these helpers, and always get facts (events.ts), whatever the
// version of the record they come from.
//
// Record kinds:
// - `EngineSteps`, version 6 (what the engine writes): as version 5 below, with the facts of
//   today's shape (factEncoding.ts FACT_KEYS): a trade and a cancel state what they leave of the
//   order (its remaining and status).
// - `EngineSteps`, version 5 (read, no longer written): one record per group commit, holding every
//   step of that batch that produced facts, in sequence order: `{v: 5, steps: [...]}`, each step
//   an array `[seq, now_us, input, facts]` whose `seq` and `now_us` are the differences from the
//   previous step's in the record (the first step's are whole); an input that places orders as
//   `[kind, account_id, order request(s), limits]` (limits `[live_orders_max, risk_min_cents]`,
//   left out when the input has none), any other input as itself; the facts in version 5 of
//   factEncoding.ts (type codes; a placement fact as its differences from the order's request,
//   so the order is not written twice). Order requests and facts are delta-encoded against
//   earlier ones in the same record, so a record decodes on its own.
// - `EngineSteps`, version 4 (read, no longer written): steps as objects `{seq, now_us, input,
//   events}`, the facts with their type names (version 4 of factEncoding.ts).
//   Facts of versions 4 and 5 are read in today's shape, what they did not state null
//   (upcast.ts `completedV5`; the read models' fold completes them).
// - `EngineSteps`, version 3, and `EngineSteps` versions 1 and 2 (read, no longer written): the
//   outcome events were REST-shaped views (legacy.ts, encoding.ts); each step's views are turned
//   into the facts the engine would state (upcast.ts). A `JournalStep` says which version it was
//   read from: only steps of the current version hold exactly what today's engine emits.

import { present } from '../../assert.ts';
import type { EngineEvent } from '../events.ts';
import type { EngineInput } from '../inputs.ts';
import {
  decodeEvents,
  decodeEventsDelta,
  decodeInputDelta,
  decodeOrderRequest,
  encodeEvents,
  encodeOrderRequestV5,
  encodeInputDelta,
  JOURNAL_VERSION,
  newDeltaContext,
  type DeltaContext,
  type EncodedEngineEvent,
} from './encoding.ts';
import {
  decodeFacts,
  decodeFactsV5,
  encodeFacts,
  encodeFactsV5,
  newFactContext,
  newFactContextV5,
  type FactContext,
  type FactContextV5,
  type PlacingInput,
  type StoredFact,
} from './factEncoding.ts';
import type { OrderLimits, OrderRequest } from '../inputs.ts';
import type { LegacyEngineEvent } from './legacy.ts';
import { completedV5, upcastStep } from './upcast.ts';

/** What the journal helpers read of a stored record (the event store's JournalRecord has these). */
export interface JournalRecord<Data = unknown> {
  stream: string;
  type: string;
  data: Data;
}

export const ENGINE_STREAM = 'engine';
/** One record per step (record versions 1 and 2); still read. */
export const ENGINE_STEP_TYPE = 'EngineStep';
/** One record per group-committed batch of steps (record versions 3 to 5); what the engine writes. */
export const ENGINE_STEPS_TYPE = 'EngineSteps';
/** Every record type the engine has written: the subscription filter of engine projectors. */
export const ENGINE_RECORD_TYPES: readonly string[] = [ENGINE_STEP_TYPE, ENGINE_STEPS_TYPE];
/** The record version the engine writes: steps of facts, as arrays. */
export const ENGINE_RECORD_VERSION = 6;
/**
 * The first record version whose facts are exactly what today's engine emits (replay compares
 * them; steps of older versions are upcast, so they are re-run and not compared).
 */
export const FACTS_RECORD_VERSION = 6;
/** Record version 5: steps as arrays, facts before an order's remaining and status were stated (read, no longer written). */
export const STEPS_AS_ARRAYS_RECORD_VERSION = 5;
/** Record version 4: the first of facts, steps as objects (read, no longer written). */
export const FACTS_V4_RECORD_VERSION = 4;
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

/** One step inside a version 4 `EngineSteps` record (facts in the compact encoding of version 4). */
export interface EncodedStepV4 {
  seq: number;
  now_us: number;
  input: EngineInput;
  events: StoredFact[];
}

/** Version 4 `EngineSteps`: the steps of one group commit, as facts. */
export interface FactsStepsDataV4 {
  v: typeof FACTS_V4_RECORD_VERSION;
  steps: EncodedStepV4[];
}

/**
 * One step inside a version 5 `EngineSteps` record: `seq` and `now_us` as differences from the
 * previous step's in the record, the input (an order input as an array), the facts.
 */
export type EncodedStep = [seq: number, now_us: number, input: unknown, events: StoredFact[]];

/** Version 6 (and 5) `EngineSteps`: the steps of one group commit, as facts. */
export interface EngineStepsData {
  v: typeof ENGINE_RECORD_VERSION | typeof STEPS_AS_ARRAYS_RECORD_VERSION;
  steps: EncodedStep[];
}

export type EngineRecordData = EngineStepData | ViewsStepsData | FactsStepsDataV4 | EngineStepsData;

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

/** The earlier steps, order requests and facts of the record being written or read: one per record. */
export interface RecordContext {
  /** The order requests read so far (decoding). */
  inputs: DeltaContext;
  /** The last order request written (encoding). */
  request: OrderRequest | undefined;
  facts: FactContextV5;
  seq: number;
  nowUs: number;
}

export function newRecordContext(): RecordContext {
  return { inputs: newDeltaContext(), request: undefined, facts: newFactContextV5(), seq: 0, nowUs: 0 };
}

/** The order requests an input places (their facts are written against them), or null. */
function placingOf(input: EngineInput): PlacingInput | null {
  if (input.kind === 'PlaceOrder')
    return { account_id: input.account_id, requests: [input.order as unknown as Record<string, unknown>] };
  if (input.kind === 'PlaceOrders' && Array.isArray(input.orders)) {
    return { account_id: input.account_id, requests: input.orders as unknown as Record<string, unknown>[] };
  }
  return null;
}

/** Whether `value` is an object with exactly `keys` in that order, none undefined (`optional`: the last may be absent or undefined). */
function hasKeys(value: unknown, keys: readonly string[], optional = false): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  let i = 0;
  for (const key in value) {
    const present = (value as Record<string, unknown>)[key] !== undefined;
    if (key !== keys[i] || (!present && !(optional && i === keys.length - 1))) return false;
    i++;
  }
  return i === keys.length || (optional && i === keys.length - 1);
}

const PLACE_ORDER_KEYS = ['kind', 'account_id', 'order', 'limits'];
const PLACE_ORDERS_KEYS = ['kind', 'account_id', 'orders', 'limits'];
const LIMITS_KEYS = ['live_orders_max', 'risk_min_cents'];

/** A version 5 step's input: an order input with the usual keys as an array, any other as itself (order requests delta-encoded). */
function encodeInputV5(input: EngineInput, context: RecordContext): unknown {
  if (input.kind === 'PlaceOrder' || input.kind === 'PlaceOrders') {
    const many = input.kind === 'PlaceOrders';
    const limits = input.limits;
    if (
      hasKeys(input, many ? PLACE_ORDERS_KEYS : PLACE_ORDER_KEYS, true) &&
      (limits === undefined || hasKeys(limits, LIMITS_KEYS)) &&
      (!many || Array.isArray(input.orders))
    ) {
      const orders = many
        ? input.orders.map((order) => encodeOrderRequestV5(order, context))
        : encodeOrderRequestV5(input.order, context);
      return limits === undefined
        ? [input.kind, input.account_id, orders]
        : [input.kind, input.account_id, orders, [limits.live_orders_max, limits.risk_min_cents]];
    }
  }
  // any other input: order requests in it (keys off the usual) against the record's as in version 4
  if (input.kind === 'PlaceOrder') return { ...input, order: encodeOrderRequestV5(input.order, context) };
  if (input.kind === 'PlaceOrders' && Array.isArray(input.orders))
    return { ...input, orders: input.orders.map((order) => encodeOrderRequestV5(order, context)) };
  return input;
}

function decodeInputV5(stored: unknown, context: DeltaContext): EngineInput {
  if (!Array.isArray(stored)) return decodeInputDelta(stored as EngineInput, context);
  const [kind, accountId, orders, limits] = stored as [unknown, string, unknown, unknown];
  let input: Record<string, unknown>;
  if (kind === 'PlaceOrder')
    input = { kind, account_id: accountId, order: decodeOrderRequest(orders, context, kind, 'order') };
  else if (kind === 'PlaceOrders' && Array.isArray(orders))
    input = {
      kind,
      account_id: accountId,
      orders: orders.map((order) => decodeOrderRequest(order, context, kind, 'orders')),
    };
  else throw new Error(`engine journal: an input stored as an array must place orders (${String(kind)})`);
  if (stored.length > 3) {
    if (!Array.isArray(limits) || limits.length !== 2)
      throw new Error('engine journal: order limits must be [live_orders_max, risk_min_cents]');
    input.limits = { live_orders_max: limits[0], risk_min_cents: limits[1] } satisfies Record<
      keyof OrderLimits,
      unknown
    >;
  }
  return input as unknown as EngineInput;
}

/** One step of a batch record as the engine writes it; `context` is the record's (one per record). */
export function encodeStep(
  seq: number,
  nowUs: number,
  input: EngineInput,
  events: readonly EngineEvent[],
  context: RecordContext,
): EncodedStep {
  const step: EncodedStep = [
    seq - context.seq,
    nowUs - context.nowUs,
    encodeInputV5(input, context),
    encodeFactsV5(events, placingOf(input), context.facts),
  ];
  context.seq = seq;
  context.nowUs = nowUs;
  return step;
}

/** The payload of one `EngineSteps` record. */
export function engineStepsData(steps: EncodedStep[]): EngineStepsData {
  return { v: ENGINE_RECORD_VERSION, steps };
}

/** The record context of version 4 (for tools and tests that write old journals). */
export interface RecordContextV4 {
  inputs: DeltaContext;
  facts: FactContext;
}

export function newRecordContextV4(): RecordContextV4 {
  return { inputs: newDeltaContext(), facts: newFactContext() };
}

/** One step of a version 4 record (for tools and tests that write old journals). */
export function encodeStepV4(
  seq: number,
  nowUs: number,
  input: EngineInput,
  events: readonly EngineEvent[],
  context: RecordContextV4,
): EncodedStepV4 {
  return {
    seq,
    now_us: nowUs,
    input: encodeInputDelta(input, context.inputs),
    events: encodeFacts(events, context.facts),
  };
}

export function engineStepsDataV4(steps: EncodedStepV4[]): FactsStepsDataV4 {
  return { v: FACTS_V4_RECORD_VERSION, steps };
}

/** The payload of a single-step `EngineStep` v2 record (for tools and tests that write old journals). */
export function engineStepData(
  seq: number,
  nowUs: number,
  input: EngineInput,
  events: readonly LegacyEngineEvent[],
): EngineStepDataV2 {
  return { v: JOURNAL_VERSION, seq, now_us: nowUs, input, events: encodeEvents(events) };
}

export { newDeltaContext, type DeltaContext };

function legacyStepOf(data: EngineStepData): { events: LegacyEngineEvent[]; version: number } {
  if (data.v === undefined) return { events: data.events, version: 1 };
  if (data.v === JOURNAL_VERSION) return { events: decodeEvents(data.events), version: JOURNAL_VERSION };
  throw new Error(`engine journal: record version ${String((data as { v: unknown }).v)} is not known to this build`);
}

/** The version of an `EngineSteps` record, once it is known to this build. */
function stepsVersionOf(record: JournalRecord): 3 | 4 | 5 | 6 {
  const data = record.data as { v?: unknown; steps?: unknown };
  if (
    (data.v === ENGINE_RECORD_VERSION ||
      data.v === STEPS_AS_ARRAYS_RECORD_VERSION ||
      data.v === FACTS_V4_RECORD_VERSION ||
      data.v === VIEWS_RECORD_VERSION) &&
    Array.isArray(data.steps)
  )
    return data.v;
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
      return {
        seq: step.seq,
        now_us: step.now_us,
        input,
        version,
        ...upcastStep(input, decodeEventsDelta(step.events, context)),
      };
    });
  }
  if (version === FACTS_V4_RECORD_VERSION) {
    const context = newRecordContextV4();
    return (record.data as FactsStepsDataV4).steps.map((step) => ({
      seq: step.seq,
      now_us: step.now_us,
      input: decodeInputDelta(step.input, context.inputs),
      events: decodeFacts(step.events, context.facts).map(completedV5),
      version,
    }));
  }
  const context = newRecordContext();
  const steps = (record.data as EngineStepsData).steps;
  const out = new Array<JournalStep>(steps.length);
  for (let i = 0; i < steps.length; i++) {
    const [seq, nowUs, stored, events] = stepV5(steps[i]);
    context.seq += seq;
    context.nowUs += nowUs;
    const input = decodeInputV5(stored, context.inputs);
    const facts = decodeFactsV5(events, placingOf(input), context.facts, version);
    if (version === STEPS_AS_ARRAYS_RECORD_VERSION) facts.forEach((fact, f) => (facts[f] = completedV5(fact)));
    out[i] = { seq: context.seq, now_us: context.nowUs, input, events: facts, version };
  }
  return out;
}

/** A version 5 or 6 step, checked for its shape. */
function stepV5(step: unknown): EncodedStep {
  if (
    !Array.isArray(step) ||
    step.length !== 4 ||
    typeof step[0] !== 'number' ||
    typeof step[1] !== 'number' ||
    !Array.isArray(step[3])
  ) {
    throw new Error('engine journal: a version 5 step must be [seq, now_us, input, facts]');
  }
  return step as EncodedStep;
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
  if (version === ENGINE_RECORD_VERSION || version === STEPS_AS_ARRAYS_RECORD_VERSION) {
    const context = newRecordContext();
    return (record.data as EngineStepsData).steps.map((step) => {
      const [seq, nowUs, stored, events] = stepV5(step);
      context.seq += seq;
      context.nowUs += nowUs;
      return {
        seq: context.seq,
        now_us: context.nowUs,
        input: decodeInputV5(stored, context.inputs),
        eventCount: events.length,
        version,
      };
    });
  }
  const context = newDeltaContext();
  return (
    record.data as { steps: Array<{ seq: number; now_us: number; input: EngineInput; events: unknown }> }
  ).steps.map((step) => ({
    seq: step.seq,
    now_us: step.now_us,
    input: decodeInputDelta(step.input, context),
    eventCount: Array.isArray(step.events) ? step.events.length : 0,
    version,
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
  for (const step of data.steps as Array<{ events?: unknown } | unknown[] | null>) {
    const events = Array.isArray(step) ? step[3] : step?.events;
    count += Array.isArray(events) ? events.length : 0;
  }
  return Math.max(1, count);
}

/** The sequence number of the last step inside an engine record. */
export function lastSeqOf(record: JournalRecord<EngineRecordData>): number {
  if (record.type === ENGINE_STEP_TYPE) return (record.data as EngineStepData).seq;
  const v = (record.data as { v?: unknown }).v;
  if (v === ENGINE_RECORD_VERSION || v === STEPS_AS_ARRAYS_RECORD_VERSION) {
    // seq differences from step to step: the last seq is their sum
    const steps = (record.data as EngineStepsData).steps;
    let seq = 0;
    for (const step of steps) seq += stepV5(step)[0];
    return steps.length > 0 ? seq : -1;
  }
  const steps = (record.data as { steps: Array<{ seq: number }> }).steps;
  return steps.at(-1)?.seq ?? -1;
}

/** All engine facts inside a record, in order; empty for any record that is not the engine's. */
export function engineEventsOf(record: JournalRecord): EngineEvent[] {
  const steps = journalStepsOf(record);
  if (steps.length === 1) return present(steps[0], 'a record of one step has a first').events;
  const out: EngineEvent[] = [];
  for (const step of steps) for (const event of step.events) out.push(event);
  return out;
}
