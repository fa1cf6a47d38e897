// The engine process: ONE sequence of inputs, decided synchronously by the domain engine and
// journaled in batches (group commit) on stream `engine`, whose expected revision is the fencing
// token: a second engine writing to the same store fails its append and stops. Callers are
// answered after their step is durable. Timer ticks drive expiries and delays.
//
// This file only assembles the pipeline (pipeline.ts) from its stages, recovered from the
// journal: sequencer.ts, batch.ts, decider.ts, journalWriter.ts, publisher.ts, snapshotter.ts,
// recovery.ts.

import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import type { Engine } from '../domain/engine/engine.ts';
import { anyDue } from '../domain/engine/timers.ts';
import type { EventStore } from '../eventstore/port.ts';
import { Decider } from './decider.ts';
import {
  EngineStoppedError,
  type BookSource,
  type EngineGateway,
  type LiveView,
  type WriteTracker,
} from './gateway.ts';
import { JournalWriter } from './journalWriter.ts';
import { Pipeline } from './pipeline.ts';
import { Publisher } from './publisher.ts';
import { recover, type Recovered } from './recovery.ts';
import { ENGINE_QUEUE_INPUTS_MAX, Sequencer } from './sequencer.ts';
import { GatedSequencer } from './writerGate.ts';
import { SNAPSHOT_EVERY_STEPS, Snapshotter, type SnapshotSource } from './snapshotter.ts';

export const TICK_INTERVAL_MS = 250;

export interface EngineDeps {
  store: EventStore;
  clock: Clock;
  logger: Logger;
  writes: WriteTracker;
  dataDir: string;
  /**
   * Where a worker thread can read the journal: periodic snapshots are then made there
   * (snapshotter.ts) instead of on this thread. Without it they are written inline.
   */
  snapshotSource?: SnapshotSource;
  /** Steps between periodic snapshots (default SNAPSHOT_EVERY_STEPS). */
  snapshotEverySteps?: number;
  /** Bound of the input queue (default ENGINE_QUEUE_INPUTS_MAX). */
  queueInputsMax?: number;
  /** The state to start from (a follower's replica, at the journal's head) instead of recovering it. */
  recovered?: Recovered;
  /** The publisher to publish through (a node's, which its replica published through before). */
  publisher?: Publisher;
  /**
   * Asked before each slice of inputs is decided: while false (the writer lease may have ended)
   * nothing more is decided, inputs stay queued until `wake` or `halt` (several nodes: cli/nodes/).
   */
  mayDecide?: () => boolean;
}

export interface RunningEngine extends EngineGateway {
  /**
   * Decides what is queued, journals and answers it, stops; `beforeSnapshot` runs once nothing
   * more can be decided, before the state is written as the snapshot (a writer hands over there).
   */
  stop(options?: { beforeSnapshot?: () => Promise<void> }): Promise<void>;
  /** Stops deciding at once: every input waiting and every new one is refused with `reason`. */
  halt(reason: string): void;
  /** Resumes deciding what waits (after `mayDecide` answered false and may answer true again). */
  wake(): void;
  /** Why the engine stopped deciding (undefined while it runs). */
  readonly stopped: string | undefined;
  /** The books' journaled level changes, for the public feed. */
  readonly books: BookSource;
  /** The live engine (read-only use: tests, diagnostics). */
  readonly engine: Engine;
  /** The live state as of the last durable step, for reads. */
  readonly live: LiveView;
}

export { EngineBusyError, EngineStoppedError } from './gateway.ts';

export async function startEngine(deps: EngineDeps): Promise<RunningEngine> {
  const { store, clock, logger, writes, dataDir } = deps;
  const recovered = deps.recovered ?? (await recover(store, dataDir));
  logger.info(
    { seq: recovered.engine.state.seq, replayed: recovered.replayedSteps, fromSnapshot: recovered.fromSnapshot },
    'engine recovered',
  );

  const decider = new Decider(recovered.engine, logger, recovered.bookSequence);
  const queueInputsMax = deps.queueInputsMax ?? ENGINE_QUEUE_INPUTS_MAX;
  const sequencer = deps.mayDecide
    ? new GatedSequencer(clock, () => pipeline.kick(), queueInputsMax, deps.mayDecide)
    : new Sequencer(clock, () => pipeline.kick(), queueInputsMax);
  const journal = new JournalWriter(store, recovered);
  const publisher =
    deps.publisher ??
    new Publisher(
      writes,
      logger,
      () => decider.engine.state,
      recovered.position,
      recovered.places,
      recovered.bookSequence.entries(),
    );
  const snapshotter = new Snapshotter(
    {
      dataDir,
      logger,
      source: deps.snapshotSource,
      everySteps: deps.snapshotEverySteps ?? SNAPSHOT_EVERY_STEPS,
      places: () => publisher.places(),
      bookSeqs: () => decider.bookSequence.entries(),
    },
    recovered.replayedSteps,
  );
  const pipeline = new Pipeline({ sequencer, decider, journal, publisher, snapshotter }, store, dataDir, logger);
  const ticker = startTicker(sequencer, decider, clock, logger);

  return {
    get engine() {
      return decider.engine;
    },
    submit: (input) => sequencer.submit(input),
    live: publisher.live,
    books: {
      snapshot: () => publisher.snapshot(),
      onChange: (listener) => publisher.onChange(listener),
    },
    get stopped() {
      return sequencer.stopped;
    },
    halt(reason) {
      sequencer.halt(new EngineStoppedError(reason));
    },
    wake() {
      pipeline.kick();
    },
    async stop(options = {}) {
      clearInterval(ticker);
      await pipeline.idle();
      const clean = sequencer.stopped === undefined;
      sequencer.halt(new EngineStoppedError(sequencer.stopped ?? 'stopped'));
      await options.beforeSnapshot?.();
      await snapshotter.stop(decider.engine, journal, clean);
    },
  };
}

/** Every TICK_INTERVAL_MS, a Tick input when a timer is due (at most one waiting at a time). */
function startTicker(sequencer: Sequencer, decider: Decider, clock: Clock, logger: Logger): NodeJS.Timeout {
  let tickQueued = false;
  const ticker = setInterval(() => {
    if (tickQueued || sequencer.stopped || !anyDue(decider.engine.state, clock.nowUs())) return;
    tickQueued = true;
    sequencer
      .submit({ kind: 'Tick' })
      .catch((error) => logger.warn({ err: error }, 'engine tick failed'))
      .finally(() => {
        tickQueued = false;
      });
  }, TICK_INTERVAL_MS);
  ticker.unref();
  return ticker;
}
