// A follower's engine replica: recovery run continuously. It applies each journal record as it
// lands (the event store's subscription: woken by the append's notification, and by a poll),
// step by step through the domain engine exactly as recovery replays them, and publishes what
// each delivered run of records changed through the same publisher the writer's pipeline uses
// (live view, read-your-writes notes, book levels for the feed), in journal order. It never
// decides: it only re-runs journaled steps, and a step that does not re-run as journaled stops it.
// It keeps snapshots of its own under its DATA_DIR (the snapshotter's worker, as the writer does).
// When its node takes the writer lease, `finish` reads the journal to its head and hands the
// state over to a writer's pipeline.

import type { Logger } from 'pino';
import { defined } from '../domain/assert.ts';
import type { Engine } from '../domain/engine/engine.ts';
import {
  ENGINE_RECORD_TYPES,
  ENGINE_STREAM,
  isEngineRecord,
  journalInputsOf,
} from '../domain/engine/journal/journal.ts';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/port.ts';
import { Batch } from './batch.ts';
import { accountsOf } from './decider.ts';
import type { JournalHead } from './journalWriter.ts';
import type { Publisher } from './publisher.ts';
import type { BookSequence } from './bookSequence.ts';
import { JOURNAL_READ_PAGE_SIZE, replayStep, type Recovered } from './recovery.ts';
import type { Pending } from './sequencer.ts';
import { Snapshotter, type SnapshotSource } from './snapshotter.ts';

/** Journal records handed to one apply at most (one publication of the live view per run). */
export const REPLICA_RECORDS_PER_APPLY_MAX = 64;

export interface ReplicaDeps {
  store: EventStore;
  logger: Logger;
  /** The node's publisher (the same one its writer's pipeline publishes through). */
  publisher: Publisher;
  dataDir: string;
  snapshotSource?: SnapshotSource;
  snapshotEverySteps?: number;
  /** Told when the replica stops on an error (a record that does not re-run, a store failing for good). */
  onFailure?: (error: unknown) => void;
}

const ignore = (): void => undefined;

export class Replica implements JournalHead {
  engine: Engine;
  revision: bigint | undefined;
  position: bigint;
  recordId: string | undefined;
  private stepsSinceSnapshot: number;
  private readonly snapshotter: Snapshotter;
  private subscription: Subscription | undefined;
  /** Applies run one at a time (the subscription's and `finish`'s). */
  private queue: Promise<void> = Promise.resolve();
  private readonly waiters = new Set<{ position: bigint; resolve: (reached: boolean) => void }>();
  private failed: unknown;
  /** Set by `finish`: the subscription's deliveries are ignored from then on. */
  private finishing = false;
  /** Each market's book seq as the applied state stands (counted per journal record, as the writer counts). */
  private readonly bookSequence: BookSequence;

  constructor(
    recovered: Recovered,
    private readonly deps: ReplicaDeps,
  ) {
    this.engine = recovered.engine;
    this.bookSequence = recovered.bookSequence;
    this.revision = recovered.revision;
    this.position = recovered.position;
    this.recordId = recovered.recordId;
    this.stepsSinceSnapshot = recovered.replayedSteps;
    this.snapshotter = new Snapshotter(
      {
        dataDir: deps.dataDir,
        logger: deps.logger,
        source: deps.snapshotSource,
        everySteps: deps.snapshotEverySteps,
        places: () => deps.publisher.places(),
        bookSeqs: () => this.bookSequence.entries(),
      },
      recovered.replayedSteps,
    );
  }

  /** Why it stopped applying (undefined while it runs). */
  get failure(): unknown {
    return this.failed;
  }

  /** Follows the journal from where the state stands: every record after it, then each as it lands. */
  start(): void {
    this.subscription = this.deps.store.subscribeToAll(
      (events) => (this.finishing ? undefined : this.enqueue(() => this.apply(events))),
      {
        after: this.position,
        filter: { streamPrefixes: [ENGINE_STREAM], eventTypes: [...ENGINE_RECORD_TYPES] },
        batchSizeMax: REPLICA_RECORDS_PER_APPLY_MAX,
        onError: (error) => this.fail(error),
      },
    );
  }

  /** Resolves true once the state has passed `position`, false after `timeoutMs` (or when the replica stopped). */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.position >= position) return Promise.resolve(true);
    if (this.failed !== undefined) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter = {
        position,
        resolve: (reached: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /**
   * Stops following and reads the journal to its head (the lease is this node's now: nothing
   * more lands but what a deposed writer had in flight, which the writer's first append fences),
   * then hands the state over: it is the writer's from here on.
   */
  async finish(): Promise<Recovered> {
    // what the subscription delivers from now on is ignored (the tail is read here), so its
    // in-flight read is not waited for: a take-over never waits for a large chunk it does not need
    this.finishing = true;
    const following = this.subscription;
    this.subscription = undefined;
    void following?.stop().catch(() => undefined);
    await this.enqueue(async () => {
      for (;;) {
        const page = await this.deps.store.readStream(ENGINE_STREAM, {
          fromRevision: this.revision === undefined ? 0n : this.revision + 1n,
          maxCount: JOURNAL_READ_PAGE_SIZE,
        });
        await this.apply(page);
        if (page.length < JOURNAL_READ_PAGE_SIZE) return;
      }
    });
    if (this.failed !== undefined) throw this.failed instanceof Error ? this.failed : new Error(String(this.failed));
    await this.snapshotter.stop(this.engine, this, false); // the writer's snapshotter takes over
    return {
      engine: this.engine,
      revision: this.revision,
      position: this.position,
      recordId: this.recordId,
      replayedSteps: this.stepsSinceSnapshot,
      fromSnapshot: false,
      places: new Map(this.deps.publisher.places()),
      bookSequence: this.bookSequence,
    };
  }

  /** Stops following; `snapshot`: writes the state as this node's snapshot (a clean stop). */
  async stop(snapshot: boolean): Promise<void> {
    await this.subscription?.stop();
    this.subscription = undefined;
    await this.queue;
    for (const waiter of [...this.waiters]) waiter.resolve(false);
    await this.snapshotter.stop(this.engine, this, snapshot && this.failed === undefined);
  }

  private enqueue(run: () => Promise<void>): Promise<void> {
    const next = this.queue.then(() => (this.failed === undefined ? run() : undefined));
    this.queue = next.catch((error: unknown) => this.fail(error));
    return this.queue;
  }

  private fail(error: unknown): void {
    if (this.failed !== undefined) return;
    this.failed = error;
    this.deps.logger.error({ err: error }, 'engine replica stopped: the journal could not be applied');
    for (const waiter of [...this.waiters]) waiter.resolve(false);
    this.deps.onFailure?.(error);
  }

  /**
   * Re-runs the steps of `events`' journal records (others are skipped, as are records already
   * applied) and publishes them as one batch: the live view, the accounts touched, the book levels.
   */
  private async apply(events: readonly RecordedEvent[]): Promise<void> {
    const { publisher } = this.deps;
    const batch = new Batch();
    const positions: bigint[] = [];
    let steps = 0;
    for (const record of events) {
      if (!isEngineRecord(record)) continue;
      const last = this.revision ?? -1n;
      if (record.revision <= last) continue;
      if (record.revision !== last + 1n)
        throw new Error(`journal record at revision ${record.revision} found where ${last + 1n} was expected`);
      const index = positions.length;
      let base = 0; // facts of the record's earlier steps
      let recordNowUs = 0; // newest step of the record
      for (const step of journalInputsOf(record)) {
        const outcome = replayStep(this.engine, step);
        const pending: Pending = { input: step.input, nowUs: step.now_us, resolve: ignore, reject: ignore };
        batch.answered.push({
          pending,
          reply: { ok: true, events: outcome.events, position: 0n, seq: step.seq },
          record: index,
          accounts: accountsOf(step.input, outcome.events, this.engine.state),
          base,
        });
        base += outcome.events.length;
        if (step.now_us > recordNowUs) recordNowUs = step.now_us;
        steps++;
      }
      // the record's book moves, counted and published as the writer's batch does when it closes a record
      this.bookSequence.afterRecord(this.engine.state, recordNowUs, batch.bookChanges);
      // the publisher counts a batch's records; the replica's are the journal's own
      batch.records.push(record as never);
      positions.push(record.position);
      this.revision = record.revision;
      this.position = record.position;
      this.recordId = record.id;
    }
    if (positions.length === 0) return;
    batch.view = publisher.stage(batch, this.engine.state);
    publisher.answer(batch, {
      position: this.position,
      recordPosition: (index: number) => defined(positions[index], 'the publisher asks only for records of the batch'),
      exactPositions: true,
    });
    for (const waiter of [...this.waiters]) if (this.position >= waiter.position) waiter.resolve(true);
    this.stepsSinceSnapshot += steps;
    this.snapshotter.counted(steps);
    await this.snapshotter.whenDue(this.engine, this, true);
  }
}
