// Runs in a worker thread: rebuilds the engine state from the newest snapshot plus the journal
// tail, exactly as recovery does, and writes it as the new snapshot. The engine's own thread never
// serialises its live state for a periodic snapshot (that stalled every caller, for longer the
// larger the state: `snapshot_inline_encode_ms` in `npm run bench:engine`); it only starts this job. Answers the parent with one SnapshotWorkerReply.

import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { EventStore } from '../eventstore/port.ts';
import { createPool } from '../eventstore/postgres/pool.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import { setOwnThreadPriority } from './threadPriority.ts';
import { present } from '../domain/assert.ts';
import { recover, writeSnapshot } from './recovery.ts';
import type { SnapshotWorkerData, SnapshotWorkerReply } from './snapshotter.ts';

async function openStore(data: SnapshotWorkerData): Promise<{ store: EventStore; close(): Promise<void> }> {
  if (data.source.kind === 'esdb') {
    const { EsdbEventStore } = await import('../eventstore/esdb.ts');
    const store = await EsdbEventStore.connect(data.source.url);
    return { store, close: () => store.close() };
  }
  const pool = createPool({
    connectionString: data.source.connectionString,
    max: 1,
    applicationName: 'exchange-snapshot',
  });
  const store = new PostgresEventStore({ pool });
  return {
    store,
    close: async () => {
      await store.close();
      await pool.end();
    },
  };
}

async function run(data: SnapshotWorkerData): Promise<SnapshotWorkerReply> {
  // background work: this thread alone goes to the lowest CPU priority, so on a busy machine the
  // engine's thread and the database keep their share and the snapshot takes what is left
  setOwnThreadPriority(os.constants.priority.PRIORITY_LOW);
  const opened = await openStore(data);
  try {
    const recovered = await recover(opened.store, data.dataDir);
    if (recovered.revision === undefined || recovered.recordId === undefined) {
      return { ok: true, written: false, seq: recovered.engine.state.seq, replayedSteps: recovered.replayedSteps };
    }
    await writeSnapshot(
      data.dataDir,
      recovered.engine,
      recovered.revision,
      recovered.position,
      recovered.recordId,
      data.temporaryFile,
      recovered.places,
      recovered.bookSequence.entries(),
    );
    return { ok: true, written: true, seq: recovered.engine.state.seq, replayedSteps: recovered.replayedSteps };
  } finally {
    await opened.close().catch(() => undefined);
  }
}

const reply = await run(workerData as SnapshotWorkerData).catch((error: unknown): SnapshotWorkerReply => ({
  ok: false,
  error: error instanceof Error ? (error.stack ?? error.message) : String(error),
}));
present(parentPort, 'this module runs only as a worker thread (snapshotter.ts starts it)').postMessage(reply);
