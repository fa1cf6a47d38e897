// The event store port: the one interface every adapter (memory, postgres, esdb) implements
// and the one contract suite (tests/eventstore/contract.ts) holds them to.

/** An event about to be written. `id` makes re-appends idempotent. */
export interface NewEvent<Data = unknown, Meta = Record<string, unknown>> {
  id: string; // uuid, chosen by the writer
  type: string; // past tense, e.g. OrderPlaced
  data: Data;
  metadata?: Meta;
  /**
   * `JSON.stringify(data)`, when the writer has made it already: a store that keeps JSON text
   * writes this instead of serialising `data` again (the engine serialises each journal record
   * as soon as it is complete, so the record's objects do not outlive it).
   */
  json?: string;
}

/** An event as stored. `revision` counts from 0 within its stream; `position` is global and increasing. */
export interface RecordedEvent<Data = unknown, Meta = Record<string, unknown>> {
  id: string;
  stream: string;
  type: string;
  revision: bigint;
  position: bigint;
  data: Data;
  metadata: Meta;
  recordedAt: Date;
}

/** Expected state of a stream before an append. A bigint means "its last revision is exactly this". */
export type ExpectedRevision = 'no_stream' | 'any' | 'stream_exists' | bigint;

export interface AppendResult {
  nextRevision: bigint; // revision of the last event written
  position: bigint; // global position of the last event written
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  fromRevision?: bigint | 'start' | 'end';
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Omit for the beginning. */
  after?: bigint;
  maxCount?: number;
}

/** An event passes when it matches every criterion given: a prefix of its stream AND one of the types. */
export interface SubscriptionFilter {
  streamPrefixes?: string[];
  eventTypes?: string[];
}

export interface SubscribeOptions {
  /** Exclusive checkpoint: deliver events strictly after this position. Omit for the beginning. */
  after?: bigint;
  filter?: SubscriptionFilter;
  /** Upper bound on events handed to one onEvents call. */
  batchSizeMax?: number;
  /**
   * Called when the handler throws: the subscription then stops (at-least-once delivery would
   * otherwise become "maybe twice"). Read errors (e.g. the database restarting) are retried.
   */
  onError?: (error: unknown) => void;
}

export interface Subscription {
  /** Stops delivery; resolves when the last in-flight batch handler has finished. */
  stop(): Promise<void>;
}

/**
 * Events are delivered in global order, each exactly once, batches awaited one at a time:
 * first the catch-up from `after`, then live events as they commit.
 */
export type BatchHandler = (events: RecordedEvent[]) => Promise<void> | void;

export interface EventStore {
  readonly kind: 'memory' | 'postgres' | 'esdb';
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  readStream(stream: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** Global position of the newest committed event, or -1n when empty. */
  headPosition(): Promise<bigint>;
  subscribeToAll(handler: BatchHandler, options?: SubscribeOptions): Subscription;
  close(): Promise<void>;
}

/** The stream's actual revision did not match the expected one. */
export class WrongExpectedRevision extends Error {
  readonly code = 'wrong_expected_revision';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevision';
  }
}

/** Some, but not all, of the appended event ids were already written (or written to another stream). */
export class DuplicateEventId extends Error {
  readonly code = 'duplicate_event_id';
  constructor(
    readonly stream: string,
    readonly eventId: string,
  ) {
    super(`stream ${stream}: event id ${eventId} was already appended with different neighbours or to another stream`);
    this.name = 'DuplicateEventId';
  }
}
