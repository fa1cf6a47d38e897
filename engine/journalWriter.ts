// Stage 4 of the engine pipeline, the journal writer: appends each batch's records to stream
// `engine` (group commit: one append per batch) and keeps the journal's head. The stream's
// expected revision is the fencing token: a second engine writing to the same store fails its
// append with WrongExpectedRevision, and the pipeline stops.
//
// Appends are issued as soon as a batch is decided, before the previous one has landed: the
// expected revision of each is the one the stream will have once every earlier batch is in (the
// engine is the stream's only writer), so the store serialises the next batch while it writes
// the current one and may group both. Batches still land in journal order (the pipeline awaits
// the previous one first). If one fails, those issued after it fail too (their expected
// revision is then wrong) and are answered with the first failure. ESDB appends are not pipelined.

import type { EngineStepsData } from '../domain/engine/journal/journal.ts';
import { ENGINE_STREAM } from '../domain/engine/journal/journal.ts';
import type { AppendResult, EventStore, NewEvent } from '../eventstore/port.ts';
import { assert, present } from '../domain/assert.ts';

/** Where the journal stands: its last revision (undefined: no stream yet), position and record id. */
export interface JournalHead {
  readonly revision: bigint | undefined;
  readonly position: bigint;
  readonly recordId: string | undefined;
}

/** An append issued for a batch: awaited when the batch's turn to land comes. */
export type IssuedAppend = () => Promise<AppendResult>;

export class JournalWriter implements JournalHead {
  revision: bigint | undefined;
  position: bigint;
  recordId: string | undefined;
  /** Whether appends are issued before the previous one landed (every store but ESDB). */
  readonly pipelined: boolean;
  /** Whether the records of one append have consecutive positions (the memory and postgres stores). */
  readonly exactPositions: boolean;
  /** The stream's revision once every issued append has landed. */
  private issuedRevision: bigint | undefined;
  private failed: unknown;

  constructor(
    private readonly store: EventStore,
    head: JournalHead,
  ) {
    this.revision = head.revision;
    this.position = head.position;
    this.recordId = head.recordId;
    this.issuedRevision = head.revision;
    this.pipelined = store.kind !== 'esdb';
    this.exactPositions = store.kind !== 'esdb';
  }

  /** The first append that failed since the head was last set (undefined: none). */
  get failure(): unknown {
    return this.failed;
  }

  /** Issues the append of `records` (pipelined: starts it now); undefined when there is nothing to append. */
  issue(records: NewEvent<EngineStepsData>[]): IssuedAppend | undefined {
    if (records.length === 0) return undefined;
    if (!this.pipelined)
      return () => this.store.append(ENGINE_STREAM, records, this.revision === undefined ? 'no_stream' : this.revision);
    const failure = this.failed;
    if (failure !== undefined)
      return () => Promise.reject(failure instanceof Error ? failure : new Error(String(failure)));
    const expected = this.issuedRevision === undefined ? ('no_stream' as const) : this.issuedRevision;
    this.issuedRevision = (this.issuedRevision ?? -1n) + BigInt(records.length);
    const started = this.store.append(ENGINE_STREAM, records, expected);
    started.catch(() => undefined); // observed by land(); one failing behind an earlier failure is not reported twice
    return () => started;
  }

  /**
   * Waits for the append of `records` (every earlier batch has landed) and moves the head past
   * them. False when it failed: the error is kept (`failure`) and every later batch fails with it.
   */
  async land(records: readonly NewEvent<EngineStepsData>[], append: IssuedAppend): Promise<boolean> {
    assert(
      records.length > 0 && this.failed === undefined,
      'only a batch with records, and no failure before it, is landed',
    );
    const before = this.revision ?? -1n;
    try {
      const result = await append();
      // postconditions: the engine is the stream's only writer and appends land in order
      assert(
        result.nextRevision === before + BigInt(records.length),
        'an append moves the stream by exactly its records',
      );
      assert(result.position > this.position, "an append lands past the journal's last position");
      this.revision = result.nextRevision;
      this.position = result.position;
      this.recordId = present(records[records.length - 1], 'a landed batch has a last record').id;
      return true;
    } catch (error) {
      this.failed = error;
      return false;
    }
  }

  /** The global position of record `index` of a landed append of `count` records (ESDB: its last record's). */
  recordPosition(index: number, count: number): bigint {
    return this.exactPositions ? this.position - BigInt(count - 1 - index) : this.position;
  }

  /** Sets the head to what recovery read from the journal, forgetting any failure. */
  reset(head: JournalHead): void {
    this.revision = head.revision;
    this.position = head.position;
    this.recordId = head.recordId;
    this.issuedRevision = head.revision;
    this.failed = undefined;
  }
}
