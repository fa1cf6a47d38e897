// Stage 2 of the engine pipeline, the batch builder: what one group commit carries. The decider
// adds each decided input to it; steps that changed state are encoded into journal records (at
// most STEPS_PER_RECORD steps or about RECORD_EVENTS_MAX outcome events each, serialised once
// when the record closes), and every input gets its answer, sent once the batch is durable. It
// also gathers the book levels each record moved (counted by the book sequence as the record
// closes), and what it changed of the live view, for the publisher.

import { randomUUID } from 'node:crypto';
import { assert } from '../domain/assert.ts';
import type { EngineEvent } from '../domain/engine/events.ts';
import {
  ENGINE_STEPS_TYPE,
  encodeStep,
  engineStepsData,
  newRecordContext,
  type EncodedStep,
  type EngineStepsData,
  type RecordContext,
} from '../domain/engine/journal/journal.ts';
import type { NewEvent } from '../eventstore/port.ts';
import type { BookLevelsChange, EngineReply } from './gateway.ts';
import type { ViewDelta } from './liveView.ts';
import type { Pending } from './sequencer.ts';

/** Inputs decided into one batch (one group commit), at most. */
export const BATCH_INPUTS_MAX = 1_024;
/**
 * Steps per journal record: keeps a record well under EventStoreDB's default 1 MiB append limit
 * for ordinary steps (about half a KB each) while one row still carries hundreds of orders.
 */
export const STEPS_PER_RECORD = 256;
/**
 * Outcome events per journal record past which the record is closed (steps of many legs are
 * big): keeps a record, and the projection transaction that reads it, to a bounded size.
 */
export const RECORD_EVENTS_MAX = 2_000;

/** One decided input and the answer it gets once durable. */
export interface Answered {
  pending: Pending;
  reply: EngineReply;
  /** Index in `records` of the record holding its step; null: nothing journaled (refused, or no change). */
  record: number | null;
  /** Accounts the step touched (read-your-writes); null when nothing was journaled. */
  accounts: Set<string> | null;
  /** Outcome events of the record's earlier steps: where this step's facts start among the record's. */
  base: number;
}

/** A journal record made from its JSON text; `data` (what stores without JSON text read) is parsed from it on demand. */
export function journalRecord(id: string, json: string): NewEvent<EngineStepsData> {
  return {
    id,
    type: ENGINE_STEPS_TYPE,
    json,
    get data(): EngineStepsData {
      return JSON.parse(json) as EngineStepsData;
    },
  };
}

/** What a batch asks of the books when it closes a record (the decider's book sequence on its state). */
export interface RecordBooks {
  /** Counts the record's moves and adds each moved market's levels, with its new seq, to `changes`. */
  afterRecord(timeUs: number, changes: BookLevelsChange[]): void;
}

export class Batch {
  /** Closed journal records, in journal order. */
  readonly records: NewEvent<EngineStepsData>[] = [];
  /** Every input decided into the batch, in sequence order. */
  readonly answered: Answered[] = [];
  /** Book levels each record moved, record after record: one change per market and record, with its seq. */
  readonly bookChanges: BookLevelsChange[] = [];
  /** Steps journaled (inputs that changed state). */
  journaledSteps = 0;
  /** Engine time of the newest input decided (UNIX µs). */
  lastNowUs = 0;
  /** A step threw: the state may be half-changed and is reloaded from the journal after this batch. */
  reload = false;
  /** What the batch changed of the live view, taken when it was decided; published once it is durable. */
  view: ViewDelta | undefined;
  private steps: EncodedStep[] = [];
  /** The seq of the last step added (-1: none yet). */
  private lastSeq = -1;
  private stepEvents = 0;
  private context: RecordContext = newRecordContext();
  /** Engine time of the newest step of the record being filled. */
  private recordNowUs = 0;

  /** `books`: without it (tests of other stages) no book levels are gathered. */
  constructor(private readonly books?: RecordBooks) {}

  /** Inputs it can still take. */
  get room(): number {
    return BATCH_INPUTS_MAX - this.answered.length;
  }

  get full(): boolean {
    return this.answered.length >= BATCH_INPUTS_MAX;
  }

  /** Adds a step that changed state: encoded into the open record, answered once that record lands. */
  addStep(
    pending: Pending,
    seq: number,
    reply: EngineReply,
    events: readonly EngineEvent[],
    accounts: Set<string>,
  ): void {
    // preconditions: a journaled step states something, and the steps of a batch are one run of seqs
    assert(events.length > 0, 'a journaled step has facts');
    assert(this.lastSeq < 0 || seq === this.lastSeq + 1, 'the journaled steps of a batch take consecutive seqs');
    this.lastSeq = seq;
    this.steps.push(encodeStep(seq, pending.nowUs, pending.input, events, this.context));
    this.answered.push({ pending, reply, record: this.records.length, accounts, base: this.stepEvents });
    this.journaledSteps++;
    this.stepEvents += events.length;
    if (pending.nowUs > this.recordNowUs) this.recordNowUs = pending.nowUs;
    if (pending.nowUs > this.lastNowUs) this.lastNowUs = pending.nowUs;
    if (this.steps.length >= STEPS_PER_RECORD || this.stepEvents >= RECORD_EVENTS_MAX) this.seal();
  }

  /** Adds an input that changed nothing (refused, or nothing to do): answered once the batch is durable. */
  addAnswer(pending: Pending, reply: EngineReply): void {
    this.answered.push({ pending, reply, record: null, accounts: null, base: 0 });
    if (pending.nowUs > this.lastNowUs) this.lastNowUs = pending.nowUs;
  }

  /**
   * Closes the record being filled (if it holds steps), and takes the book levels its steps
   * moved. `books` false: the state is not what the record's steps left (a step threw after
   * them; the state is reloaded from the journal, which counts the record's moves itself).
   */
  seal(books = true): void {
    if (this.steps.length === 0) return;
    if (books) this.books?.afterRecord(this.recordNowUs, this.bookChanges);
    this.recordNowUs = 0;
    // The id is not derived from seq: a second engine's record must not pass as a re-append. The
    // record is serialised now, once: its encoded steps are garbage from here on instead of living
    // until the append lands (what a young-generation collection copies meanwhile is what it costs).
    this.records.push(journalRecord(randomUUID(), JSON.stringify(engineStepsData(this.steps))));
    this.steps = [];
    this.stepEvents = 0;
    this.context = newRecordContext();
  }

  /** Markets settled by a step of the batch (their pools must be zero). */
  settledMarkets(): string[] {
    const settled: string[] = [];
    for (const item of this.answered)
      for (const event of item.reply.events) if (event.type === 'MarketSettled') settled.push(event.market_id);
    return settled;
  }
}
