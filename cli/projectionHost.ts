// Runs the projection runner in a worker thread (cli/projectionWorkerMain.ts) and stands in for
// it on the main thread: read-your-writes waits, the change bus (realtime feed, caches), the lag
// gauge, rebuilds and status. Why a thread: projection statements issued from the main thread
// wait for its event loop between every round trip, behind the HTTP work; in a thread of their
// own they do not, and the main thread keeps its CPU for requests.
//
// The worker reports, in order, each change the read models announce and each position they
// reach (its own runner's, or with several nodes the leaseholder's, read from the relay);
// the host settles its waiters on those positions, exactly as the runner would in-process. If
// the worker dies, the host logs it and starts another after a pause: the runner resumes from
// its checkpoints (projecting is idempotent), waiters keep waiting (bounded by their timeouts).

import { randomUUID } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { ProjectionWaiter } from '../commands/context.ts';
import type { EventStore } from '../eventstore/port.ts';
import type { ProjectionChange } from '../projections/projector.ts';
import { registerLagGauge, type ProjectorStatus } from '../projections/runner.ts';
import { PositionWaiters } from '../projections/runtime/waiters.ts';

const WORKER_URL = new URL('./projectionWorker.js', import.meta.url);
/** Connections of the worker's own pool: one per projector at most in a run, plus the idle checkpoint statement. */
const WORKER_POOL_SIZE_DEFAULT = 10;
/**
 * Shortest time between two batches the worker applies (ProjectionRunner's dispatchIntervalMs):
 * the worker keeps up in many small transactions otherwise, each paying its fixed statements.
 * bench:api's single-order phase measures both sides of the trade: the service's CPU per order
 * and the projection lag (docs/BENCHMARKS.md).
 */
const DISPATCH_INTERVAL_MS_DEFAULT = 20;
/**
 * The same pause under a high flow (ProjectionRunner's dispatchIntervalMaxMs, reached at
 * DISPATCH_FLOW_HIGH_PER_S outcome events per second, about 2,000 single orders/s): the read
 * models then take the orders in batches about five times larger, each paying the batch's fixed
 * statements once (docs/BENCHMARKS.md, "Projection batches under a high flow").
 */
const DISPATCH_INTERVAL_MAX_MS_DEFAULT = 100;
const DISPATCH_FLOW_HIGH_PER_S = 6_000;
/**
 * The worker's priority while no read waits for it: below normal (nice 10), so on a busy
 * machine the request path and the WebSocket feed come first (bench:ws); back to normal while a
 * read waits (bench:api's projection lag). Measured both ways in docs/BENCHMARKS.md.
 */
const IDLE_PRIORITY_DEFAULT = 10;
/** How long after the last read waited the worker stays at normal priority. */
const URGENCY_HOLD_MS = 1000;
const RESTART_DELAY_MS_MIN = 200;
const RESTART_DELAY_MS_MAX = 10_000;
/** How long stop() lets the worker close its connections before it is terminated. */
const STOP_TIMEOUT_MS = 10_000;

export type LogLevel = 'info' | 'warn' | 'error';

export interface WorkerData {
  /** This node as the projection lease's holder and the relay's writer (cli/projectionWorkerMain.ts). */
  nodeId: string;
  connectionString: string;
  eventstoreUrl: string | undefined;
  poolSize: number;
  dispatchIntervalMs: number;
  dispatchIntervalMaxMs: number;
  dispatchFlowHighPerS: number;
  /** The worker's CPU priority while nobody waits for the read models (os.setPriority's scale). */
  idlePriority: number;
  /** The accounts someone on this node watches (see ProjectionWorkerHost.watch), as the worker starts. */
  watched: string[];
}

interface ErrorText {
  message: string;
  stack?: string;
}

export type WorkerMessage =
  | { type: 'started' }
  | { type: 'failed'; error: ErrorText }
  | { type: 'progress'; positions: Map<string, bigint> }
  | { type: 'changes'; changes: ProjectionChange[] }
  | { type: 'log'; level: LogLevel; fields: Record<string, unknown>; message: string | undefined }
  | { type: 'reply'; id: number; ok: true; value: unknown }
  | { type: 'reply'; id: number; ok: false; error: ErrorText };

export type HostRequest =
  | { id: number; type: 'rebuild'; name: string }
  | { id: number; type: 'status' }
  | { id: number; type: 'stop' }
  | { id: number; type: 'watch'; accountId: string }
  | { type: 'unwatch'; accountId: string }
  | { type: 'urgency'; urgent: boolean };

/** A request that the worker answers, before the host numbers it. */
type RequestBody =
  Exclude<HostRequest, { type: 'urgency' | 'unwatch' }> extends infer R
    ? R extends unknown
      ? Omit<R, 'id'>
      : never
    : never;

/** What the service needs of its projections, whether they run in-process or in a thread. */
export interface Projections extends ProjectionWaiter {
  onChange(listener: (changes: ProjectionChange[]) => void): () => void;
  /**
   * Asks for the per-order changes of `accountId` (domain/readModel/change.ts WATCHED_ONLY_KINDS),
   * which listeners otherwise do not get: resolves once every change announced after it carries
   * them; the returned function ends this watch. Absent: listeners get every change.
   */
  watch?(accountId: string): Promise<() => void>;
  positions(): Record<string, bigint>;
  rebuild(name: string): Promise<{ position: bigint; events: number }>;
  status(): Promise<ProjectorStatus[]>;
  stop(): Promise<void>;
}

interface HostOptions {
  connectionString: string;
  eventstoreUrl: string | undefined;
  /** The service's store: the lag gauge reads its head. */
  store: EventStore;
  logger: Pick<Logger, LogLevel>;
  registry?: Registry;
  poolSize?: number;
  dispatchIntervalMs?: number;
  dispatchIntervalMaxMs?: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

function errorOf(text: ErrorText): Error {
  const error = new Error(text.message);
  if (text.stack) error.stack = text.stack;
  return error;
}

export class ProjectionWorkerHost implements Projections {
  private worker: Worker | undefined;
  private readonly known = new Map<string, bigint>();
  private readonly listeners = new Set<(changes: ProjectionChange[]) => void>();
  private readonly waiters = new PositionWaiters(
    () => this.known,
    () => this.tellUrgency(),
  );
  private readonly pending = new Map<number, Pending>();
  /**
   * Each watched account: how many watches it has (bounded by the feed's private joins), and when
   * the worker has it (the first watch's answer, which later watches wait for too).
   */
  private readonly watchers = new Map<string, { count: number; ready: Promise<void> }>();
  private nextId = 1;
  private stopping = false;
  private restartDelayMs = RESTART_DELAY_MS_MIN;
  private restartTimer: NodeJS.Timeout | undefined;
  /** Whether the worker was last told that reads wait for it. */
  private urgent = false;
  private lastWaitAt = 0;
  private urgencyTimer: NodeJS.Timeout | undefined;
  /** One per host: a worker started again after a failure holds the projection lease as the same node. */
  private readonly nodeId = randomUUID();

  constructor(private readonly options: HostOptions) {
    if (options.registry) registerLagGauge(options.registry, options.store, () => this.known);
  }

  /** Starts the worker; resolves once its runner has prepared every projector (tables, rebuilds). */
  async start(): Promise<void> {
    await this.spawn();
  }

  private spawn(): Promise<void> {
    const data: WorkerData = {
      nodeId: this.nodeId,
      connectionString: this.options.connectionString,
      eventstoreUrl: this.options.eventstoreUrl,
      poolSize: this.options.poolSize ?? WORKER_POOL_SIZE_DEFAULT,
      dispatchIntervalMs: this.options.dispatchIntervalMs ?? DISPATCH_INTERVAL_MS_DEFAULT,
      dispatchIntervalMaxMs: this.options.dispatchIntervalMaxMs ?? DISPATCH_INTERVAL_MAX_MS_DEFAULT, // never below the shortest: the runner keeps it so
      dispatchFlowHighPerS: DISPATCH_FLOW_HIGH_PER_S,
      idlePriority: IDLE_PRIORITY_DEFAULT,
      watched: [...this.watchers.keys()],
    };
    const worker = new Worker(WORKER_URL, { workerData: data });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      let started = false;
      worker.on('message', (message: WorkerMessage) => {
        switch (message.type) {
          case 'started':
            started = true;
            this.restartDelayMs = RESTART_DELAY_MS_MIN;
            this.urgent = false; // a new worker starts at its idle priority
            resolve();
            return;
          case 'failed':
            if (!started) reject(errorOf(message.error));
            return;
          default:
            this.receive(message);
        }
      });
      worker.on('error', (error) => {
        if (!started) reject(error);
        else this.options.logger.error({ err: error }, 'projection worker failed');
      });
      worker.on('exit', (code) => {
        if (this.worker === worker) this.worker = undefined;
        for (const [id, pending] of this.pending) {
          this.pending.delete(id);
          pending.reject(new Error(`projection worker exited (code ${code}) before answering`));
        }
        if (!started) {
          reject(new Error(`projection worker exited with code ${code} while starting`));
          return;
        }
        if (this.stopping) return;
        this.options.logger.error(
          { code, restartInMs: this.restartDelayMs },
          'projection worker stopped unexpectedly; starting another (read models lag meanwhile)',
        );
        this.scheduleRestart();
      });
    });
  }

  private scheduleRestart(): void {
    const delayMs = this.restartDelayMs;
    this.restartDelayMs = Math.min(delayMs * 2, RESTART_DELAY_MS_MAX);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.stopping) return;
      this.spawn().catch((error: unknown) => {
        this.options.logger.error({ err: error }, 'projection worker did not start again; retrying');
        if (!this.stopping) this.scheduleRestart();
      });
    }, delayMs);
  }

  private receive(message: Exclude<WorkerMessage, { type: 'started' | 'failed' }>): void {
    switch (message.type) {
      case 'progress':
        this.advance(message.positions);
        return;
      case 'changes':
        for (const listener of this.listeners) {
          try {
            listener(message.changes);
          } catch (error) {
            this.options.logger.warn({ err: error }, 'projection change listener failed');
          }
        }
        return;
      case 'log':
        this.options.logger[message.level](message.fields, message.message ?? '');
        return;
      case 'reply': {
        const pending = this.pending.get(message.id);
        if (!pending) return;
        this.pending.delete(message.id);
        if (message.ok) pending.resolve(message.value);
        else pending.reject(errorOf(message.error));
        return;
      }
    }
  }

  /** Positions only move forward here (a restarted worker may report a stored checkpoint first). */
  private advance(positions: ReadonlyMap<string, bigint>): void {
    for (const [name, position] of positions) {
      const before = this.known.get(name);
      if (before === undefined || position > before) this.known.set(name, position);
    }
    this.waiters.settle();
  }

  /**
   * Tells the worker when reads start waiting for it, and when none has waited for a while
   * (URGENCY_HOLD_MS): a stream of reads keeps it at normal priority between two waits.
   */
  private tellUrgency(): void {
    if (this.waiters.size > 0) this.lastWaitAt = Date.now();
    const urgent = this.waiters.size > 0 || Date.now() - this.lastWaitAt < URGENCY_HOLD_MS;
    if (urgent && !this.urgencyTimer) {
      this.urgencyTimer = setTimeout(() => {
        this.urgencyTimer = undefined;
        this.tellUrgency();
      }, URGENCY_HOLD_MS);
      this.urgencyTimer.unref();
    }
    if (urgent === this.urgent || !this.worker) return;
    this.urgent = urgent;
    this.worker.postMessage({ type: 'urgency', urgent } satisfies HostRequest);
  }

  waitFor(position: bigint, timeoutMs?: number): Promise<void> {
    return this.waiters.waitFor(position, timeoutMs);
  }

  onChange(listener: (changes: ProjectionChange[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The worker forwards an account's order and fill changes only while it is watched here: the
   * first watch of an account resolves once the worker has it (its answer comes after every
   * change it sent before, and it sends every later one); a worker started again starts with
   * every watched account. The last end of an account's watches tells the worker to stop.
   */
  async watch(accountId: string): Promise<() => void> {
    let watch = this.watchers.get(accountId);
    if (watch) watch.count++;
    else {
      // a worker that is not running, or exits first, starts again with the account in its start data
      const ready = this.request({ type: 'watch', accountId }).then(
        () => undefined,
        () => undefined,
      );
      this.watchers.set(accountId, (watch = { count: 1, ready }));
    }
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      const current = this.watchers.get(accountId);
      if (!current || --current.count > 0) return;
      this.watchers.delete(accountId);
      this.worker?.postMessage({ type: 'unwatch', accountId } satisfies HostRequest);
    };
    await watch.ready;
    return end;
  }

  positions(): Record<string, bigint> {
    return Object.fromEntries(this.known);
  }

  /** Rebuilds one projector from zero in the worker (reads keep working meanwhile; see ProjectionRunner.rebuild). */
  async rebuild(name: string): Promise<{ position: bigint; events: number }> {
    // the worker reports the position the rebuild reached before it answers
    return (await this.request({ type: 'rebuild', name })) as { position: bigint; events: number };
  }

  async status(): Promise<ProjectorStatus[]> {
    return (await this.request({ type: 'status' })) as ProjectorStatus[];
  }

  private request(body: RequestBody): Promise<unknown> {
    const worker = this.worker;
    if (!worker)
      return Promise.reject(
        new Error('the projection worker is not running (it is being restarted); try again shortly'),
      );
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...body } satisfies HostRequest);
    });
  }

  /** Stops the runner and lets the worker close its connections (terminated if it takes too long). */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.urgencyTimer) clearTimeout(this.urgencyTimer);
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    const timer = setTimeout(() => void worker.terminate(), STOP_TIMEOUT_MS);
    await this.request({ type: 'stop' }).catch(() => undefined);
    await exited;
    clearTimeout(timer);
  }
}
