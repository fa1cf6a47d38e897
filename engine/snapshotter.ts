// Stage 6 of the engine pipeline, the snapshotter: periodic engine snapshots, off the engine's
// thread. It counts journaled steps; past its threshold it starts one job: a worker thread that opens its own connection to the event store,
// recovers the state there (newest snapshot + journal tail, recovery's own code) and writes it as
// the new snapshot. The live state is never serialised on the engine's thread for a periodic
// snapshot, so order entry does not stall while one is made; the cost is a replay of the steps
// since the last snapshot on another core. Only a store another thread can open qualifies
// (PostgreSQL by connection string, EventStoreDB by URL); with any other the engine snapshots
// inline, as it does at a clean stop.

import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Engine } from '../domain/engine/engine.ts';
import type { JournalHead } from './journalWriter.ts';
import type { Place } from './gateway.ts';
import { snapshotTemporaryPath, writeSnapshot } from './recovery.ts';

/** Journaled steps between two periodic snapshots. */
export const SNAPSHOT_EVERY_STEPS = 100_000;

/** Where a snapshot worker finds the journal. */
export type SnapshotSource = { kind: 'postgres'; connectionString: string } | { kind: 'esdb'; url: string };

export interface SnapshotWorkerData {
  source: SnapshotSource;
  dataDir: string;
  temporaryFile: string;
}

export type SnapshotWorkerReply =
  { ok: true; written: boolean; seq: number; replayedSteps: number } | { ok: false; error: string };

export interface SnapshotJob {
  /** Settles when the worker has answered (or failed); never rejects. */
  readonly done: Promise<SnapshotWorkerReply>;
  /** Stops the worker if it still runs and removes its partial file. */
  cancel(): Promise<void>;
}

const WORKER_URL = new URL('./snapshotWorker.js', import.meta.url);

export function startSnapshotJob(source: SnapshotSource, dataDir: string): SnapshotJob {
  const temporaryFile = snapshotTemporaryPath(dataDir);
  const data: SnapshotWorkerData = { source, dataDir, temporaryFile };
  const worker = new Worker(WORKER_URL, { workerData: data });
  let reply: SnapshotWorkerReply | undefined;
  const done = new Promise<SnapshotWorkerReply>((resolve) => {
    worker.once('message', (message: SnapshotWorkerReply) => {
      reply = message;
    });
    worker.once('error', (error) => {
      reply ??= { ok: false, error: error.stack ?? error.message };
    });
    worker.once('exit', (code) =>
      resolve(reply ?? { ok: false, error: `snapshot worker exited with code ${code} before answering` }),
    );
  });
  return {
    done,
    async cancel() {
      if (reply === undefined) await worker.terminate();
      await done;
      await rm(temporaryFile, { force: true }).catch(() => undefined);
    },
  };
}

export interface SnapshotterDeps {
  dataDir: string;
  logger: Logger;
  /** Where a worker thread can read the journal; without it snapshots are written inline. */
  source?: SnapshotSource;
  /** Steps between periodic snapshots (default SNAPSHOT_EVERY_STEPS). */
  everySteps?: number;
  /** The journal places of the live orders the live view knows (kept in a snapshot written here). */
  places?: () => ReadonlyMap<string, Place>;
  /** Each market's book seq as the state stands (kept in a snapshot written here). */
  bookSeqs?: () => ReadonlyMap<string, number>;
}

export class Snapshotter {
  private readonly everySteps: number;
  /** The periodic snapshot being made by a worker thread, if any. */
  private job: SnapshotJob | undefined;

  /** `stepsSince`: steps journaled since the snapshot recovery started from (those it replayed). */
  constructor(
    private readonly deps: SnapshotterDeps,
    private stepsSince: number,
  ) {
    this.everySteps = deps.everySteps ?? SNAPSHOT_EVERY_STEPS;
  }

  /** Counts steps that just landed in the journal. */
  counted(steps: number): void {
    this.stepsSince += steps;
  }

  /**
   * After a batch: past the threshold, starts a worker job (unless one runs), or without a source
   * writes the snapshot inline, only when `idle` (no append in flight: the state is the journal's).
   */
  async whenDue(engine: Engine, head: JournalHead, idle: boolean): Promise<void> {
    if (this.stepsSince < this.everySteps || head.revision === undefined || head.recordId === undefined) return;
    if (this.deps.source) {
      if (this.job) return;
      this.stepsSince = 0;
      this.launch(this.deps.source);
    } else if (idle) {
      this.stepsSince = 0;
      await this.writeInline(engine, head);
    }
  }

  /**
   * At a stop: a worker still making a snapshot is stopped (the one written here is newer); on a
   * clean stop the state is written when anything was journaled since the last snapshot.
   */
  async stop(engine: Engine, head: JournalHead, clean: boolean): Promise<void> {
    const unfinished = this.job;
    this.job = undefined;
    if (unfinished) {
      await unfinished.cancel();
      this.deps.logger.info('engine snapshot worker stopped: the engine is stopping and writes its own');
    }
    if (clean && (this.stepsSince > 0 || unfinished)) await this.writeInline(engine, head);
  }

  private async writeInline(engine: Engine, head: JournalHead): Promise<void> {
    if (head.revision === undefined || head.recordId === undefined) return;
    await writeSnapshot(
      this.deps.dataDir,
      engine,
      head.revision,
      head.position,
      head.recordId,
      undefined,
      this.deps.places?.(),
      this.deps.bookSeqs?.(),
    ).catch((error) => this.deps.logger.warn({ err: error }, 'engine snapshot failed'));
  }

  private launch(source: SnapshotSource): void {
    const job = startSnapshotJob(source, this.deps.dataDir);
    this.job = job;
    const started = performance.now();
    void job.done.then((reply) => {
      if (this.job !== job) return; // stopped by stop(), which says so itself
      this.job = undefined;
      const ms = Math.round(performance.now() - started);
      if (reply.ok)
        this.deps.logger.info(
          { seq: reply.seq, replayedSteps: reply.replayedSteps, written: reply.written, ms },
          'engine snapshot written by worker',
        );
      else
        this.deps.logger.warn(
          { error: reply.error, ms },
          'engine snapshot worker failed; the next one is tried after as many steps again',
        );
    });
  }
}
