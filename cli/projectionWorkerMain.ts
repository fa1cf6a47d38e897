// The projection worker thread: one ProjectionRunner over its own connection pool and its own
// event store client, so the read models are written without waiting behind HTTP work on the
// service's main thread (and that thread no longer spends its time on them). It tells the host
// (cli/projectionHost.ts) every position the runner reaches and every change it announces, in
// the order the runner makes them, forwards its log lines, and answers rebuild and status
// requests. Woken by the store's LISTEN/NOTIFY (every append notifies) and its poll.

import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { setOwnThreadPriority } from '../engine/threadPriority.ts';
import { createEventStore } from '../eventstore/index.ts';
import { createPool } from '../eventstore/postgres/pool.ts';
import { allProjectors, RETIRED_PROJECTORS } from '../projections/registry.ts';
import { ProjectionRunner } from '../projections/runner.ts';
import type { HostRequest, LogLevel, WorkerData, WorkerMessage } from './projectionHost.ts';

if (!parentPort)
  throw new Error('cli/projectionWorkerMain.ts runs only as a worker thread (see cli/projectionHost.ts)');
const port = parentPort;
const data = workerData as WorkerData;

const post = (message: WorkerMessage) => port.postMessage(message);

/** What the host needs of a thrown value (an Error is cloned, but not its class or extra fields). */
function errorText(error: unknown): { message: string; stack?: string } {
  return error instanceof Error ? { message: error.message, stack: error.stack } : { message: String(error) };
}

/** Error objects as plain fields: what a log line needs, and always cloneable. */
function plain(fields: unknown): Record<string, unknown> {
  if (typeof fields !== 'object' || fields === null) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    out[key] =
      value instanceof Error
        ? { type: value.name, ...errorText(value), code: (value as { code?: unknown }).code }
        : value;
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
  data.eventstoreUrl
    ? { kind: 'esdb', url: data.eventstoreUrl }
    : { kind: 'postgres', pool, connectionString: data.connectionString },
);
/**
 * This thread's CPU priority: below normal while nobody waits for the read models, so on a busy
 * machine the request path and the feed keep their share; normal while a read waits for them
 * (read-your-writes), so the wait is short.
 */
function setUrgent(urgent: boolean): void {
  setOwnThreadPriority(urgent ? os.constants.priority.PRIORITY_NORMAL : data.idlePriority);
}
setUrgent(false);

const runner = new ProjectionRunner({
  pool,
  store,
  projectors: allProjectors(),
  retired: RETIRED_PROJECTORS,
  logger,
  dispatchIntervalMs: data.dispatchIntervalMs,
});
runner.onChange((changes) => post({ type: 'changes', changes }));
runner.onProgress((positions) => post({ type: 'progress', positions }));

port.on('message', (request: HostRequest) => {
  if (request.type === 'urgency') setUrgent(request.urgent);
  else void answer(request);
});

async function answer(request: Exclude<HostRequest, { type: 'urgency' }>): Promise<void> {
  try {
    switch (request.type) {
      case 'rebuild':
        post({ type: 'reply', id: request.id, ok: true, value: await runner.rebuild(request.name) });
        return;
      case 'status':
        post({ type: 'reply', id: request.id, ok: true, value: await runner.status() });
        return;
      case 'stop':
        await closeAll();
        post({ type: 'reply', id: request.id, ok: true, value: undefined });
        port.close();
        return;
    }
  } catch (error) {
    post({ type: 'reply', id: request.id, ok: false, error: errorText(error) });
  }
}

async function closeAll(): Promise<void> {
  await runner.stop();
  await store.close();
  await pool.end();
}

try {
  // the runner reports every projector's position as it finishes starting (before this)
  await runner.start();
  post({ type: 'started' });
} catch (error) {
  post({ type: 'failed', error: errorText(error) });
  await closeAll().catch(() => undefined);
  port.close();
}
