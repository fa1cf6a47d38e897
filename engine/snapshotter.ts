// Periodic engine snapshots off the engine's thread. The engine counts journaled steps; past its
// threshold it starts one job: a worker thread that opens its own connection to the event store,
// recovers the state there (newest snapshot + journal tail, recovery's own code) and writes it as
// the new snapshot. The live state is never serialised on the engine's thread for a periodic
// snapshot, so order entry does not stall while one is made; the cost is a replay of the steps
// since the last snapshot on another core. Only a store another thread can open qualifies
// (PostgreSQL by connection string, EventStoreDB by URL); with any other the engine snapshots
// inline, as it does at a clean stop.

import { rm } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { snapshotTemporaryPath } from './recovery.ts';

/** Where a snapshot worker finds the journal. */
export type SnapshotSource = { kind: 'postgres'; connectionString: string } | { kind: 'esdb'; url: string };

export interface SnapshotWorkerData {
  source: SnapshotSource;
  dataDir: string;
  temporaryFile: string;
}

export type SnapshotWorkerReply =
  | { ok: true; written: boolean; seq: number; replayedSteps: number }
  | { ok: false; error: string };

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
    worker.once('message', (message: SnapshotWorkerReply) => { reply = message; });
    worker.once('error', (error) => { reply ??= { ok: false, error: error.stack ?? error.message }; });
    worker.once('exit', (code) => resolve(reply ?? { ok: false, error: `snapshot worker exited with code ${code} before answering` }));
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
