// The projection worker thread: one ProjectionRunner over its own connection pool and its own
// event store client, so the read models are written without waiting behind HTTP work on the
// service's main thread (and that thread no longer spends its time on them). It tells the host
// (cli/projectionHost.ts) every position the runner reaches and every change it announces, in
// the order the runner makes them, forwards its log lines, and answers rebuild and status
// requests. Woken by the store's LISTEN/NOTIFY (every append notifies) and its poll.

import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { createEventStore } from '../eventstore/index.ts';
import { createPool } from '../eventstore/postgres/pool.ts';
import { allProjectors } from '../projections/registry.ts';
import { ProjectionRunner } from '../projections/runner.ts';
import type { HostRequest, LogLevel, WorkerData, WorkerMessage } from './projectionHost.ts';

if (!parentPort) throw new Error('cli/projectionWorkerMain.ts runs only as a worker thread (see cli/projectionHost.ts)');
const port = parentPort;
const data = workerData as WorkerData;

const post = (message: WorkerMessage) => port.postMessage(message);

/** Error objects as plain fields: what a log line needs, and always cloneable. */
function plain(fields: unknown): Record<string, unknown> {
  if (typeof fields !== 'object' || fields === null) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] = value instanceof Error ? { type: value.name, message: value.message, stack: value.stack, code: (value as { code?: unknown }).code } : value;
  }
  return out;
}

function log(level: LogLevel) {
  return (fields: unknown, message?: string) => post({ type: 'log', level, fields: plain(fields), message });
}
const logger = { info: log('info'), warn: log('warn'), error: log('error') };

const pool = createPool({
  connectionString: data.connectionString,
  max: data.poolSize,
  applicationName: 'exchange-projections',
  onError: (error) => logger.warn({ err: error }, 'idle projection database connection failed'),
});
const store = await createEventStore(
  data.eventstoreUrl ? { kind: 'esdb', url: data.eventstoreUrl } : { kind: 'postgres', pool, connectionString: data.connectionString },
);
/**
 * This thread's CPU priority: below normal while nobody waits for the read models, so on a busy
 * machine the request path and the feed keep their share; normal while a read waits for them
 * (read-your-writes), so the wait is short. Linux applies a priority set on a thread id to that
 * thread only; going back up needs the right to raise a priority (root or CAP_SYS_NICE), and
 * without it the thread simply stays at the lower priority.
 */
const threadId = (() => {
  try {
    const id = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(id) && id > 0 ? id : undefined;
  } catch {
    return undefined; // not Linux: the thread keeps the process's priority
  }
})();
function setUrgent(urgent: boolean): void {
  if (threadId === undefined) return;
  try {
    os.setPriority(threadId, urgent ? os.constants.priority.PRIORITY_NORMAL : data.idlePriority);
  } catch {
    // not permitted: stays where it is
  }
}
setUrgent(false);

const runner = new ProjectionRunner({ pool, store, projectors: allProjectors(), logger, dispatchIntervalMs: data.dispatchIntervalMs });
runner.onChange((changes) => post({ type: 'changes', changes }));
runner.onProgress((positions) => post({ type: 'progress', positions }));

port.on('message', (request: HostRequest) => {
  void answer(request);
});

async function answer(request: HostRequest): Promise<void> {
  try {
    switch (request.type) {
      case 'urgency':
        setUrgent(request.urgent);
        return;
      case 'rebuild':
        post({ type: 'reply', id: request.id, ok: true, value: await runner.rebuild(request.name) });
        return;
      case 'status':
        post({ type: 'reply', id: request.id, ok: true, value: await runner.status() });
        return;
      case 'stop':
        await runner.stop();
        await store.close();
        await pool.end();
        post({ type: 'reply', id: request.id, ok: true, value: undefined });
        port.close();
        return;
    }
  } catch (error) {
    const err = error instanceof Error ? error : new Error(String(error));
    post({ type: 'reply', id: request.id, ok: false, error: { message: err.message, stack: err.stack } });
  }
}

try {
  await runner.start();
  post({ type: 'started', positions: new Map(Object.entries(runner.positions())) });
} catch (error) {
  const err = error instanceof Error ? error : new Error(String(error));
  post({ type: 'failed', error: { message: err.message, stack: err.stack } });
  await runner.stop().catch(() => undefined);
  await store.close().catch(() => undefined);
  await pool.end().catch(() => undefined);
  port.close();
}
