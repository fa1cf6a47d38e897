// The projection worker thread: the projection runner over its own connection pool and its own
// event store client, so the read models are written without waiting behind HTTP work on the
// service's main thread (and that thread no longer spends its time on them). It tells the host
// (cli/projectionHost.ts) every position the read models reach and every change announced, in
// the order they are made, forwards its log lines, and answers rebuild and status requests.
//
// Several nodes on one database: the runner runs on one node at a time, the holder of the
// projection lease (a row renewed every LEASE_RENEW_MS, taken over by another node once it has
// not been renewed for LEASE_TTL_MS). The leaseholder's runner relays what it announces through
// the database (projections/runtime/relay.ts); every other node's worker reads the relay in
// order, woken by NOTIFY and a poll, and tells its host the same changes and positions, so the
// host and everything that listens to it work alike on every node. A lone node takes the lease
// at its first try and runs as it always has.

import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { setOwnThreadPriority } from '../engine/threadPriority.ts';
import { createEventStore } from '../eventstore/index.ts';
import { listen } from '../eventstore/postgres/listen.ts';
import { createPool } from '../eventstore/postgres/pool.ts';
import type { ProjectionChange } from '../projections/projector.ts';
import { changesForWatchers } from '../domain/readModel/change.ts';
import { allProjectors, RETIRED_PROJECTORS } from '../projections/registry.ts';
import { ProjectionRunner, projectionStatus } from '../projections/runner.ts';
import { readAllCheckpoints } from '../projections/runtime/checkpoints.ts';
import { rebuildProjector } from '../projections/runtime/rebuild.ts';
import {
  forgetReader,
  markReader,
  RELAY_CHANNEL,
  readersWaiting,
  readRelay,
  relayHead,
  relayingSince,
  releaseLease,
  takeLease,
  trimRelay,
} from '../projections/runtime/relay.ts';
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

/** How often the lease is taken or renewed (and a node without it tries to take it). */
const LEASE_RENEW_MS = 1_000;
/** A lease not renewed for this long is taken over by another node (the database's clock). */
const LEASE_TTL_MS = 3_000;
/** Relay rows are kept this long, then trimmed by the leaseholder. */
const RELAY_RETENTION_MS = 30_000;
/** A reader looks for relay rows at least this often (a NOTIFY wakes it at once). */
const RELAY_POLL_MS = 500;
/** Relay rows read per query. */
const RELAY_ROWS_PER_READ = 200;
/** How often a node waiting at start for the leaseholder to prepare the read models says so. */
const WAITING_LOG_MS = 10_000;
/** The leaseholder relays while a node without the lease said it reads the relay within this long. */
const RELAY_READER_SEEN_MS = 30_000;

/** This node's identity as a leaseholder and a relay writer (kept by the host across worker restarts). */
const workerId = data.nodeId;
const projectors = allProjectors();

let runner: ProjectionRunner | undefined;
/** Set while this worker holds the lease and its runner is starting or running. */
let leaseholder = false;
let stopping = false;
let started = false;
/** The last relay row this worker has read past (or skipped, as its own). */
let cursor = 0n;
/** Where the relay stood when this worker became leaseholder (see stepDown). */
let cursorAtLease = 0n;
let reading: Promise<void> | undefined;
let readAgain = false;
/** Whether this leaseholder's runner relays (another node reads the relay), and since when (ms). */
let relaying = false;
let relayingOnAt = 0;

/** As leaseholder: relay while another node reads the relay (a lone node writes no relay rows). */
async function decideRelaying(): Promise<void> {
  // when it cannot be known, relaying is the safe side
  const waiting = await readersWaiting(pool, workerId, RELAY_READER_SEEN_MS).catch(() => true);
  if (waiting && !relaying) relayingOnAt = Date.now();
  relaying = waiting;
}

/**
 * The accounts someone on this node watches: their order and fill changes are sent to the host,
 * other accounts' are not (their documents are then never rendered here). Bounded by the host's
 * watches (its feed's private joins).
 */
const watched = new Set<string>(data.watched);

/** Tells the host what it listens for of `changes` (sent in the order they are made). */
function tellChanges(changes: readonly ProjectionChange[]): void {
  const forHost = changesForWatchers(changes, watched);
  if (forHost.length > 0) post({ type: 'changes', changes: forHost });
}

function announce(changes: ProjectionChange[], positions: Map<string, bigint>): void {
  tellChanges(changes);
  post({ type: 'progress', positions });
}

/** Holds the lease now: start a runner (its tables first), which relays what it announces. */
async function becomeLeaseholder(): Promise<void> {
  leaseholder = true;
  cursorAtLease = cursor;
  await decideRelaying();
  const next = new ProjectionRunner({
    pool,
    store,
    projectors,
    retired: RETIRED_PROJECTORS,
    logger,
    dispatchIntervalMs: data.dispatchIntervalMs,
    dispatchIntervalMaxMs: data.dispatchIntervalMaxMs,
    dispatchFlowHighPerS: data.dispatchFlowHighPerS,
    relay: { writer: workerId, enabled: () => relaying },
  });
  next.onChange(tellChanges);
  next.onProgress((positions) => post({ type: 'progress', positions }));
  runner = next;
  logger.info({ worker: workerId }, 'projection lease taken: this node runs the projections');
  try {
    // the runner reports every projector's position as it finishes starting (before this)
    await next.start();
  } catch (error) {
    logger.error({ err: error }, 'the projection runner did not start; trying again at the next lease renewal');
    runner = undefined;
    leaseholder = false;
    await next.stop().catch(() => undefined);
    return;
  }
  markStarted();
}

/**
 * The lease went to another node: stop the runner, then read the relay from the first row
 * another writer wrote since this worker took the lease (its own rows are skipped).
 */
async function stepDown(): Promise<void> {
  const current = runner;
  runner = undefined;
  logger.warn({ worker: workerId }, 'projection lease lost: another node runs the projections now');
  try {
    await current?.stop();
    const { rows } = await pool.query<{ seq: string | null }>(
      'SELECT min(seq)::text AS seq FROM public.projection_relay WHERE writer <> $1 AND seq > $2',
      [workerId, cursorAtLease.toString()],
    );
    cursor = rows[0]?.seq ? BigInt(rows[0].seq) - 1n : await relayHead(pool);
  } catch (error) {
    // read on from where this node was when it took the lease (its own rows are skipped)
    logger.warn({ err: error }, 'could not find where the new leaseholder began relaying');
    cursor = cursorAtLease;
  } finally {
    leaseholder = false;
    wake();
  }
}

let lastRenewedAt = 0;
let lastTrimAt = 0;
async function tick(): Promise<void> {
  let holds: boolean;
  try {
    if (leaseholder) await decideRelaying();
    // the row says the holder relays once it has for a whole renewal (a transaction begun before is committed)
    const relayingForAWhile = leaseholder && relaying && Date.now() - relayingOnAt >= LEASE_RENEW_MS;
    holds = await takeLease(pool, workerId, LEASE_TTL_MS, relayingForAWhile);
    lastRenewedAt = Date.now();
    if (!holds) await markReader(pool, workerId);
  } catch (error) {
    logger.warn({ err: error }, 'could not renew the projection lease; trying again');
    // unconfirmed: keep running until the lease would have run out
    holds = leaseholder && Date.now() - lastRenewedAt < LEASE_TTL_MS;
  }
  if (stopping) return;
  if (holds && !leaseholder) void becomeLeaseholder();
  else if (!holds && leaseholder && runner) await stepDown();
  if (leaseholder && Date.now() - lastTrimAt >= RELAY_RETENTION_MS / 3) {
    lastTrimAt = Date.now();
    await trimRelay(pool, RELAY_RETENTION_MS).catch((error: unknown) =>
      logger.warn({ err: error }, 'could not trim the projection relay'),
    );
  }
}

/** Reads the relay rows after the cursor (another node's runner wrote them) and tells the host. */
function wake(): void {
  if (reading) {
    readAgain = true;
    return;
  }
  reading = (async () => {
    do {
      readAgain = false;
      if (leaseholder || !started) continue;
      try {
        await readOn();
      } catch (error) {
        logger.warn({ err: error }, 'could not read the projection relay; trying again');
      }
    } while (readAgain && !stopping);
  })().finally(() => {
    reading = undefined;
  });
}

async function readOn(): Promise<void> {
  for (;;) {
    const entries = await readRelay(pool, cursor, RELAY_ROWS_PER_READ);
    if (entries.length === 0) {
      // the relay is unlogged: after a database crash it starts again from 1
      if (cursor > 0n && (await relayHead(pool)) < cursor) cursor = 0n;
      return;
    }
    const first = entries[0]!;
    if (first.seq > cursor + 1n && cursor > 0n)
      logger.error(
        { from: String(cursor + 1n), to: String(first.seq - 1n), retentionMs: RELAY_RETENTION_MS },
        'projection changes were trimmed from the relay before this node read them: caches fed by them may be stale until their next change',
      );
    for (const entry of entries) {
      if (leaseholder) return;
      cursor = entry.seq;
      if (entry.writer !== workerId) announce(entry.changes, entry.positions);
    }
    if (entries.length < RELAY_ROWS_PER_READ) return;
  }
}

function markStarted(): void {
  if (started) return;
  started = true;
  post({ type: 'started' });
}

/**
 * A node without the lease at start is ready once the leaseholder relays (it has seen this node
 * as a reader) and has prepared every projector's tables at this build's version (read from
 * their checkpoints), which may take a rebuild; it then tells the host where the read models
 * are and follows the relay from its head.
 */
async function waitForReadModels(): Promise<void> {
  let lastLogAt = Date.now();
  await markReader(pool, workerId);
  while (!started && !stopping) {
    if (!leaseholder && (await relayingSince(pool)) !== undefined) {
      cursor = await relayHead(pool);
      const checkpoints = new Map((await readAllCheckpoints(pool)).map((row) => [row.name, row]));
      const missing = projectors.filter((p) => checkpoints.get(p.name)?.version !== p.version).map((p) => p.name);
      if (missing.length === 0) {
        post({
          type: 'progress',
          positions: new Map(projectors.map((p) => [p.name, checkpoints.get(p.name)!.position])),
        });
        markStarted();
        wake();
        return;
      }
      if (Date.now() - lastLogAt >= WAITING_LOG_MS) {
        lastLogAt = Date.now();
        logger.info({ missing }, 'waiting for the node holding the projection lease to prepare the read models');
      }
    } else if (!leaseholder && Date.now() - lastLogAt >= WAITING_LOG_MS) {
      lastLogAt = Date.now();
      logger.info({}, 'waiting for the node holding the projection lease to relay its changes');
    }
    await new Promise((resolve) => setTimeout(resolve, RELAY_POLL_MS));
  }
}

const relayListener = listen({
  connectionString: data.connectionString,
  channel: RELAY_CHANNEL,
  applicationName: 'exchange-projection-relay',
  onNotify: () => wake(),
  onConnect: () => wake(),
  onError: (error) => logger.warn({ err: error }, 'projection relay listener failed; connecting again'),
});
const poll = setInterval(() => wake(), RELAY_POLL_MS);
let ticking: Promise<void> = Promise.resolve();
const lease = setInterval(() => {
  ticking = ticking.then(tick).catch((error: unknown) => logger.error({ err: error }, 'projection lease step failed'));
}, LEASE_RENEW_MS);

port.on('message', (request: HostRequest) => {
  if (request.type === 'urgency') setUrgent(request.urgent);
  else if (request.type === 'unwatch') watched.delete(request.accountId);
  else if (request.type === 'watch') {
    // taken between two announcements: the answer follows every change sent before, and every
    // change sent after it carries the account's
    watched.add(request.accountId);
    post({ type: 'reply', id: request.id, ok: true, value: undefined });
  } else void answer(request);
});

async function answer(request: Exclude<HostRequest, { type: 'urgency' | 'watch' | 'unwatch' }>): Promise<void> {
  try {
    switch (request.type) {
      case 'rebuild': {
        // on the leaseholder its runner rebuilds; elsewhere the rebuild runs here against the
        // shared tables, as `exchange projections rebuild` does from any machine
        const projector = projectors.find((p) => p.name === request.name);
        if (!runner && !projector)
          throw new Error(`unknown projector ${request.name} (known: ${projectors.map((p) => p.name).join(', ')})`);
        const value = runner ? await runner.rebuild(request.name) : await rebuildProjector(pool, store, projector!);
        post({ type: 'reply', id: request.id, ok: true, value });
        return;
      }
      case 'status':
        post({ type: 'reply', id: request.id, ok: true, value: await projectionStatus(pool, store, projectors) });
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
  stopping = true;
  clearInterval(lease);
  clearInterval(poll);
  await ticking;
  await relayListener.stop();
  await runner?.stop();
  // hand the lease over at once: another node takes it at its next try
  if (leaseholder) await releaseLease(pool, workerId).catch(() => undefined);
  else await forgetReader(pool, workerId).catch(() => undefined);
  await reading;
  await store.close();
  await pool.end();
}

try {
  if (await takeLease(pool, workerId, LEASE_TTL_MS)) {
    lastRenewedAt = Date.now();
    await becomeLeaseholder();
    if (!started) throw new Error('the projection runner did not start (see the log line before)');
  } else {
    logger.info({ worker: workerId }, 'another node holds the projection lease: following its relay');
    await waitForReadModels();
  }
} catch (error) {
  post({ type: 'failed', error: errorText(error) });
  await closeAll().catch(() => undefined);
  port.close();
}
