// The engine's pipeline: the stages in their order, in the manner of exchange-core's (a sequenced
// ring of inputs handed from stage to stage) on one thread:
//
//   sequencer ──► batch builder + decider ──► journal writer ──► publisher
//   (bounded        (Engine.step per input,     (group commit,      (live view, answers,
//    queue)          ledger checked per batch)   fencing)             read-your-writes, book levels)
//                                                    └──► snapshotter (every SNAPSHOT_EVERY_STEPS steps)
//
// Deciding and writing overlap: while one batch is being appended, the next is decided (in
// slices, yielding between them so the append's round trips go on). Appends land strictly one
// after another and callers are answered in journal order. A step that throws, or an append that
// fails, makes the pipeline reload the state from the journal (recovery); an append refused for
// its expected revision (another engine wrote) or an unbalanced ledger stops it.

import type { Logger } from 'pino';
import { WrongExpectedRevision, type EventStore } from '../eventstore/port.ts';
import { assert } from '../domain/assert.ts';
import { Batch } from './batch.ts';
import type { Decider } from './decider.ts';
import { EngineStoppedError } from './gateway.ts';
import type { IssuedAppend, JournalWriter } from './journalWriter.ts';
import type { Publisher } from './publisher.ts';
import { recover } from './recovery.ts';
import type { Sequencer } from './sequencer.ts';
import type { Snapshotter } from './snapshotter.ts';

export const FENCED = 'another engine wrote to the journal (fenced)';

/**
 * What the callers of a batch that was not journaled are told: a fenced append (another writer
 * owns the journal) is the engine stopped (nothing was journaled: the write may be retried on the
 * writer, 503), any other failure as it is.
 */
const callerErrorOf = (error: unknown): unknown =>
  error instanceof WrongExpectedRevision ? new EngineStoppedError(FENCED) : error;

export interface Stages {
  sequencer: Sequencer;
  decider: Decider;
  journal: JournalWriter;
  publisher: Publisher;
  snapshotter: Snapshotter;
}

/** Lets I/O callbacks (an append's round trips) run before deciding goes on. */
const yieldToIo = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

export class Pipeline {
  /** The newest batch's commit (it awaits every earlier one first). */
  private inFlight: Promise<void> | undefined;
  /** Whether the newest issued batch has been answered. */
  private landed = true;
  private running: Promise<void> | undefined;

  constructor(
    private readonly stages: Stages,
    private readonly store: EventStore,
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {}

  /** Starts draining the sequencer unless a drain runs (it takes what arrives meanwhile). */
  kick(): void {
    this.running ??= this.drain()
      .catch((error) => this.logger.error({ err: error }, 'engine loop failed'))
      .finally(() => {
        this.running = undefined;
        if (this.stages.sequencer.length > 0 && !this.stages.sequencer.stopped) this.kick();
      });
  }

  /** Resolves once the running drain (if any) has finished and its batches are answered. */
  async idle(): Promise<void> {
    if (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    const { sequencer, journal, snapshotter, decider } = this.stages;
    while (sequencer.length > 0 && !sequencer.stopped) {
      const batch = await this.build();
      if (!batch.reload && !this.ledgerHolds(batch)) break;
      const previous = this.inFlight;
      this.send(batch);
      if (batch.reload) {
        await this.settle();
        await this.reload();
        continue;
      }
      if (previous) await previous;
      if (journal.failure !== undefined) {
        await this.settle();
        if (!sequencer.stopped) await this.reload();
      }
      if (sequencer.length === 0 && this.inFlight) {
        await this.settle(); // nothing more to overlap with: let the last batch land
        if (journal.failure !== undefined && !sequencer.stopped) await this.reload();
      }
      await snapshotter.whenDue(decider.engine, journal, this.inFlight === undefined);
    }
    if (this.inFlight) await this.inFlight;
  }

  /**
   * Decides inputs into one batch, in slices with a yield between them. The batch closes as soon
   * as the previous append has landed (the store is never left idle), when nothing more is
   * waiting, when it is full, or when a step threw.
   */
  private async build(): Promise<Batch> {
    const { sequencer, decider } = this.stages;
    const batch = new Batch(decider.books);
    for (;;) {
      const slice = sequencer.takeSlice(batch.room);
      const undecided = decider.decide(batch, slice);
      if (undecided) sequencer.putBack(undecided);
      if (batch.reload || sequencer.stopped || this.landed || sequencer.length === 0 || batch.full) break;
      await yieldToIo();
    }
    // after a step threw, the state is not the record's: its book moves are counted by the reload
    batch.seal(!batch.reload);
    // the state as this batch leaves it, before the next is decided (a half-changed state is reloaded instead)
    if (!batch.reload) batch.view = this.stages.publisher.stage(batch, decider.engine.state);
    return batch;
  }

  /** Money's invariants on the decided state; a violation stops the engine (fail-stop): nothing of the batch is journaled or answered. */
  private ledgerHolds(batch: Batch): boolean {
    const violation = this.stages.decider.ledgerViolation(batch);
    if (violation === undefined) return true;
    const refusal = new EngineStoppedError(violation.message);
    this.logger.fatal(
      { err: violation, seq: this.stages.decider.engine.state.seq },
      'engine stopped: the ledger does not balance; nothing of the batch was journaled or acknowledged',
    );
    this.stages.publisher.fail(batch, refusal);
    this.stages.sequencer.halt(refusal);
    return false;
  }

  /** Issues the batch's append now and chains its commit behind the previous batch's. */
  private send(batch: Batch): void {
    const append = this.stages.journal.issue(batch.records);
    const previous = this.inFlight;
    const current = (async () => {
      if (previous) await previous;
      await this.commit(batch, append);
    })();
    this.inFlight = current;
    this.landed = false;
    const markLanded = (): void => {
      if (this.inFlight === current) this.landed = true;
    };
    current.then(markLanded, markLanded);
  }

  /** Lands the batch's append (every earlier batch has landed) and answers its callers. */
  private async commit(batch: Batch, append: IssuedAppend | undefined): Promise<void> {
    const { journal, publisher, snapshotter } = this.stages;
    // precondition: a batch with records was issued an append
    assert(batch.records.length === 0 || append !== undefined, 'a batch with records has an append');
    const earlier = journal.failure;
    if (earlier !== undefined) {
      if (append && journal.pipelined) await append().catch(() => undefined); // settled before any reload reads the journal
      publisher.fail(batch, callerErrorOf(earlier));
      return;
    }
    if (append) {
      if (!(await journal.land(batch.records, append))) {
        this.appendFailed(batch, journal.failure);
        return;
      }
      snapshotter.counted(batch.journaledSteps);
    }
    publisher.answer(batch, journal);
  }

  private appendFailed(batch: Batch, error: unknown): void {
    this.stages.publisher.fail(batch, callerErrorOf(error));
    if (error instanceof WrongExpectedRevision) {
      this.logger.fatal({ err: error }, 'engine fenced: another writer owns the journal; stopping');
      this.stages.sequencer.halt(new EngineStoppedError(FENCED));
    } else {
      this.logger.error({ err: error }, 'engine journal append failed; reloading state from the journal');
    }
  }

  /** Waits until every issued batch is answered. */
  private async settle(): Promise<void> {
    await this.inFlight;
    this.inFlight = undefined;
    this.landed = true;
  }

  /** Rebuilds the state from the journal (snapshot + tail) after a failed step or append. */
  private async reload(): Promise<void> {
    const recovered = await recover(this.store, this.dataDir);
    this.stages.decider.engine = recovered.engine;
    this.stages.decider.bookSequence = recovered.bookSequence;
    this.stages.journal.reset(recovered);
    this.stages.publisher.reset(recovered.position, recovered.places, recovered.bookSequence.entries());
  }
}
