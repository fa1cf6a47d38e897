// The projection runner: feeds every registered projector from ONE subscription to the event
// store (each record is read and parsed once, whatever the number of projectors); a batch goes
// to every projector that has not passed it, concurrently, each on its own connection. Each
// projector handles its share in ONE transaction that also advances its checkpoint, under the
// projector's lock, re-reading the checkpoint inside it, so a batch seen twice (restart,
// concurrent rebuild swap) changes nothing the second time. A projector with nothing to do in a
// batch takes no lock: its checkpoint moves forward with one statement shared by all such
// projectors. On start a new projector gets its tables; a projector whose version changed is
// rebuilt. A delivered batch holding much work (engine records carry a whole group commit) is
// applied in several transactions, cut at record boundaries, so projecting never holds the main
// thread long. A projector whose batch fails attempt after attempt is set aside so the others go
// on; it catches up from the store on its own later, then rejoins. Also: waitFor
// (read-your-writes), the change bus (after commit), and the lag metric.

import type pg from 'pg';
import type { Logger } from 'pino';
import { Gauge, Registry } from 'prom-client';
import type { EventStore, RecordedEvent, Subscription } from '../eventstore/port.ts';
import { outcomeCountOf } from '../domain/engine/journal/journal.ts';
import { matchesFilter } from '../eventstore/subscription.ts';
import type { ProjectionChange, Projector } from './projector.ts';
import {
  advanceIdleCheckpoints,
  beginProjectorBatch,
  commitProjectorBatch,
  readAllCheckpoints,
  readCheckpoint,
} from './runtime/checkpoints.ts';
import { createProjectorTables, dropRetiredProjector, rebuildProjector } from './runtime/rebuild.ts';
import { relayStatement } from './runtime/relay.ts';
import { PositionWaiters, slowestOf } from './runtime/waiters.ts';

const BATCH_EVENTS_MAX_DEFAULT = 500;
const RETRY_DELAY_MS_MIN = 100;
const RETRY_DELAY_MS_MAX = 5000;

type ChangeListener = (changes: ProjectionChange[]) => void;
type ProgressListener = (positions: Map<string, bigint>) => void;

interface ProjectionRunnerOptions {
  pool: pg.Pool;
  store: EventStore;
  projectors: Projector[];
  logger?: Pick<Logger, 'info' | 'warn' | 'error'>;
  /** Where the lag gauge is registered (the service's /metrics registry). */
  registry?: Registry;
  batchSizeMax?: number;
  /** Projectors no longer run: their tables and checkpoints are dropped on start. */
  retired?: ReadonlyArray<Pick<Projector, 'name' | 'tables'>>;
  /**
   * Work per projection transaction, in outcome events (an engine record counts the events it
   * holds): a delivered batch is applied in several transactions, cut at record boundaries, when
   * it holds more. This bounds how long projecting holds the thread it runs on
   * between two awaits.
   */
  transactionEventsMax?: number;
  /**
   * Shortest time from the start of one delivered batch to the next (default 0: at once). Events
   * arriving meanwhile wait and go in the next batch: fewer, larger transactions when projecting
   * is fast enough to keep up in many small ones, at the price of up to this much more lag.
   */
  dispatchIntervalMs?: number;
  /**
   * The same pause when the flow is high (default: `dispatchIntervalMs`, no growth): between the
   * two, the pause grows in proportion to the flow of the last batch (outcome events per second
   * since the previous batch began) up to `dispatchFlowHighPerS`, so a high flow goes in fewer,
   * larger transactions (each pays its fixed statements once) and a low flow waits no longer than
   * `dispatchIntervalMs`. Projection lag grows by at most the difference.
   */
  dispatchIntervalMaxMs?: number;
  /** Outcome events per second at which the pause reaches `dispatchIntervalMaxMs` (default 6,000). */
  dispatchFlowHighPerS?: number;
  /** Failed attempts at one batch after which a projector is set aside (default 6: about 3 s of backoff). */
  stallAfterAttempts?: number;
  /** How long a projector set aside waits before it is tried again (default 30 s). */
  stalledRetryMs?: number;
  /**
   * Relay what is announced to the other nodes, as `writer`, while `enabled()`: every projection
   * transaction then also writes its changes and positions to the relay table (runtime/relay.ts).
   */
  relay?: { writer: string; enabled(): boolean };
}

const STALL_AFTER_ATTEMPTS_DEFAULT = 6;
const DISPATCH_FLOW_HIGH_PER_S_DEFAULT = 6_000;
const STALLED_RETRY_MS_DEFAULT = 30_000;

/** Default bound of a projection transaction's work, in outcome events. */
const TRANSACTION_EVENTS_MAX_DEFAULT = 2_000;

/** `events` cut, in order and at record boundaries, into runs of at most `max` outcome events (at least one record each). */
export function cutByWork(events: RecordedEvent[], max: number): RecordedEvent[][] {
  return weighedRuns(events, max).runs;
}

/** cutByWork's runs, and the outcome events of them all (what the dispatch pause is judged by). */
function weighedRuns(events: RecordedEvent[], max: number): { runs: RecordedEvent[][]; work: number } {
  const runs: RecordedEvent[][] = [];
  let run: RecordedEvent[] = [];
  let runWork = 0;
  let work = 0;
  for (const event of events) {
    const weight = outcomeCountOf(event);
    if (run.length > 0 && runWork + weight > max) {
      runs.push(run);
      run = [];
      runWork = 0;
    }
    run.push(event);
    runWork += weight;
    work += weight;
  }
  if (run.length > 0) runs.push(run);
  return { runs, work };
}

/**
 * The pause from the start of one delivered batch to the next: `minMs` while the flow is low,
 * growing in proportion to the flow (`work` outcome events over the `sinceLastMs` since the batch
 * before began) to `maxMs` at `flowHighPerS` and above.
 */
export function dispatchIntervalFor(
  bounds: { minMs: number; maxMs: number; flowHighPerS: number },
  work: number,
  sinceLastMs: number,
): number {
  if (bounds.maxMs <= bounds.minMs) return bounds.minMs;
  const flowPerS = (work * 1000) / Math.max(sinceLastMs, bounds.minMs, 1);
  const share = Math.min(1, flowPerS / bounds.flowHighPerS);
  return bounds.minMs + (bounds.maxMs - bounds.minMs) * share;
}

interface ProjectorState {
  projector: Projector;
  /** Every event up to here has been handled (or did not concern this projector). */
  position: bigint;
  rebuilding: boolean;
  /**
   * Set while the projector is set aside after failing batch after batch: the others go on
   * without it; when the time comes it catches up from the store on its own, then rejoins.
   */
  stalledUntil?: number;
}

export interface ProjectorStatus {
  name: string;
  version: number;
  storedVersion: number | undefined;
  position: bigint;
  head: bigint;
  lag: bigint;
  updatedAt: Date | undefined;
}

const noopLogger = { info() {}, warn() {}, error() {} };

export class ProjectionRunner {
  private readonly states = new Map<string, ProjectorState>();
  private readonly listeners = new Set<ChangeListener>();
  private readonly progressListeners = new Set<ProgressListener>();
  private readonly waiters = new PositionWaiters(() => this.positionsByName());
  private subscription: Subscription | undefined;
  private stopped = false;
  private started = false;
  private readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  private readonly batchSizeMax: number;
  private readonly transactionEventsMax: number;
  private readonly dispatchIntervalMs: number;
  private readonly dispatchIntervalMaxMs: number;
  private readonly dispatchFlowHighPerS: number;
  /** When the previous delivered batch began (ms since the epoch; 0 before the first). */
  private lastDispatchAt = 0;
  private readonly stallAfterAttempts: number;
  private readonly stalledRetryMs: number;
  readonly registry: Registry;

  constructor(private readonly options: ProjectionRunnerOptions) {
    this.logger = options.logger ?? noopLogger;
    this.batchSizeMax = options.batchSizeMax ?? BATCH_EVENTS_MAX_DEFAULT;
    this.transactionEventsMax = Math.max(1, options.transactionEventsMax ?? TRANSACTION_EVENTS_MAX_DEFAULT);
    this.dispatchIntervalMs = Math.max(0, options.dispatchIntervalMs ?? 0);
    this.dispatchIntervalMaxMs = Math.max(this.dispatchIntervalMs, options.dispatchIntervalMaxMs ?? 0);
    this.dispatchFlowHighPerS = Math.max(1, options.dispatchFlowHighPerS ?? DISPATCH_FLOW_HIGH_PER_S_DEFAULT);
    this.stallAfterAttempts = Math.max(1, options.stallAfterAttempts ?? STALL_AFTER_ATTEMPTS_DEFAULT);
    this.stalledRetryMs = Math.max(0, options.stalledRetryMs ?? STALLED_RETRY_MS_DEFAULT);
    const names = new Set<string>();
    for (const projector of options.projectors) {
      if (names.has(projector.name)) throw new Error(`two projectors are named ${projector.name}`);
      names.add(projector.name);
      this.states.set(projector.name, { projector, position: -1n, rebuilding: false });
    }
    this.registry = options.registry ?? new Registry();
    registerLagGauge(this.registry, options.store, () => this.positionsByName());
  }

  get projectorNames(): string[] {
    return [...this.states.keys()];
  }

  /** Prepares tables (creating or rebuilding as needed), then starts every subscription. */
  async start(): Promise<void> {
    if (this.started) throw new Error('projection runner already started');
    this.started = true;
    const { pool, store } = this.options;
    for (const retired of this.options.retired ?? []) {
      if (this.states.has(retired.name)) continue;
      if (await dropRetiredProjector(pool, retired))
        this.logger.info(
          { projector: retired.name, tables: retired.tables },
          'dropped the tables of a retired projector',
        );
    }
    for (const state of this.states.values()) {
      const { projector } = state;
      // a projector without a checkpoint gets its tables, unless another node made them meanwhile
      const checkpoint =
        (await readCheckpoint(pool, projector.name)) ??
        ((await createProjectorTables(pool, projector)) ? undefined : await readCheckpoint(pool, projector.name));
      if (!checkpoint) {
        this.logger.info({ projector: projector.name }, 'created projector tables');
        state.position = -1n;
      } else if (checkpoint.version !== projector.version) {
        this.logger.info(
          { projector: projector.name, from: checkpoint.version, to: projector.version },
          'projector version changed: rebuilding from position zero',
        );
        state.rebuilding = true;
        try {
          state.position = (await rebuildProjector(pool, store, projector)).position;
        } finally {
          state.rebuilding = false;
        }
      } else {
        state.position = checkpoint.position;
      }
    }
    if (this.states.size > 0) {
      this.subscription = this.options.store.subscribeToAll((events) => this.dispatch(events), {
        after: this.minimumPosition(),
        batchSizeMax: this.batchSizeMax,
        onError: (error) => this.logger.error({ err: error }, 'projection subscription stopped'),
      });
    }
    this.settleWaiters();
  }

  /** A delivered batch, in runs of bounded work (see `transactionEventsMax`), one after the other. */
  private async dispatch(events: RecordedEvent[]): Promise<void> {
    const started = Date.now();
    const { runs, work } = weighedRuns(events, this.transactionEventsMax);
    for (const run of runs) await this.dispatchRun(run);
    const intervalMs = dispatchIntervalFor(
      { minMs: this.dispatchIntervalMs, maxMs: this.dispatchIntervalMaxMs, flowHighPerS: this.dispatchFlowHighPerS },
      work,
      this.lastDispatchAt === 0 ? Number.POSITIVE_INFINITY : started - this.lastDispatchAt,
    );
    this.lastDispatchAt = started;
    const pauseMs = started + intervalMs - Date.now();
    if (pauseMs > 0 && !this.stopped) await new Promise((resolve) => setTimeout(resolve, pauseMs));
  }

  /** One run for every projector that has not passed it; settles waiters once all are through. */
  private async dispatchRun(events: RecordedEvent[]): Promise<void> {
    const first = events[0];
    const last = events[events.length - 1];
    if (!first || !last) return;
    const idle: ProjectorState[] = [];
    const busy: Array<Promise<void>> = [];
    for (const state of this.states.values()) {
      if (state.position >= last.position) continue;
      if (state.stalledUntil !== undefined) {
        // set aside: skipped until its time comes, then caught up to just before this run
        if (Date.now() < state.stalledUntil || !(await this.catchUp(state, first.position - 1n))) continue;
      }
      const { projector } = state;
      const unseen =
        state.position >= first.position ? events.filter((event) => event.position > state.position) : events;
      const relevant = unseen.filter(
        (event) => matchesFilter(event, projector.filter) && (projector.wants?.(event) ?? true),
      );
      if (relevant.length === 0) idle.push(state);
      else busy.push(this.handleBatch(state, relevant, last.position).then(() => undefined));
    }
    if (idle.length > 0) busy.push(this.advanceIdle(idle, last.position));
    await Promise.all(busy);
    this.settleWaiters();
  }

  /** Projectors with nothing to handle up to `position`: no lock, one shared statement. */
  private async advanceIdle(states: ProjectorState[], position: bigint): Promise<void> {
    try {
      const names = states.map((state) => state.projector.name);
      await advanceIdleCheckpoints(
        this.options.pool,
        names,
        position,
        this.relayed(new Map(names.map((name) => [name, position])), []),
      );
    } catch (error) {
      // Only the stored checkpoint lags; a restart reads these irrelevant events again.
      this.logger.warn({ err: error }, 'could not store idle projector checkpoints');
    }
    for (const state of states) if (position > state.position) state.position = position;
  }

  /**
   * Applies one batch, retrying with backoff on failure (the transaction left nothing behind).
   * After `stallAfterAttempts` failures the projector is set aside (false): one projector that
   * keeps failing must not hold up the others, which share the subscription.
   */
  private async handleBatch(state: ProjectorState, events: RecordedEvent[], through: bigint): Promise<boolean> {
    let delayMs = RETRY_DELAY_MS_MIN;
    for (let attempt = 1; !this.stopped; attempt++) {
      try {
        await this.applyBatch(state, events, through);
        return true;
      } catch (error) {
        if (attempt >= this.stallAfterAttempts) {
          state.stalledUntil = Date.now() + this.stalledRetryMs;
          this.logger.error(
            {
              err: error,
              projector: state.projector.name,
              from: String(events[0]?.position),
              attempts: attempt,
              retryInMs: this.stalledRetryMs,
            },
            'projector set aside after repeated failures: the other projectors go on; its read models lag until it is tried again',
          );
          return false;
        }
        this.logger.error(
          { err: error, projector: state.projector.name, from: String(events[0]?.position), retryInMs: delayMs },
          'projector batch failed; retrying',
        );
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        delayMs = Math.min(delayMs * 2, RETRY_DELAY_MS_MAX);
      }
    }
    return false;
  }

  /**
   * Brings a projector that was set aside up to `upTo` by reading the store itself, in the same
   * runs as the subscription would; true once it is there (it then rejoins the shared runs).
   */
  private async catchUp(state: ProjectorState, upTo: bigint): Promise<boolean> {
    state.stalledUntil = undefined;
    this.logger.info(
      { projector: state.projector.name, from: String(state.position), to: String(upTo) },
      'catching a projector up',
    );
    try {
      while (state.position < upTo && !this.stopped) {
        const read = await this.options.store.readAll({ after: state.position, maxCount: this.batchSizeMax });
        const events = read.filter((event) => event.position <= upTo);
        if (events.length === 0) {
          state.position = upTo; // nothing was written in between
          break;
        }
        for (const run of cutByWork(events, this.transactionEventsMax)) {
          const through = run[run.length - 1]!.position;
          const relevant = run.filter(
            (event) => matchesFilter(event, state.projector.filter) && (state.projector.wants?.(event) ?? true),
          );
          if (relevant.length === 0) await this.advanceIdle([state], through);
          else if (!(await this.handleBatch(state, relevant, through))) return false;
        }
      }
    } catch (error) {
      state.stalledUntil = Date.now() + this.stalledRetryMs;
      this.logger.error(
        { err: error, projector: state.projector.name },
        'catching a projector up failed; tried again later',
      );
      return false;
    }
    return state.position >= upTo;
  }

  /** `events` are the batch's events this projector handles; `through` is the batch's last position. */
  private async applyBatch(state: ProjectorState, events: RecordedEvent[], through: bigint): Promise<void> {
    const { projector } = state;
    let changes: ProjectionChange[] = [];
    let reached = through;
    const tx = await this.options.pool.connect();
    try {
      const done = await beginProjectorBatch(tx, projector.name);
      const fresh = events.filter((event) => event.position > done);
      if (fresh.length > 0) changes = (await projector.handle(tx, fresh)) ?? [];
      if (done > reached) reached = done;
      await commitProjectorBatch(
        tx,
        projector.name,
        reached,
        this.relayed(new Map([[projector.name, reached]]), changes),
      );
    } catch (error) {
      await tx.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      tx.release();
    }
    if (reached > state.position) state.position = reached;
    if (changes.length > 0) this.emit(changes);
  }

  /** The relay row's statement, when this runner relays (`relay`). */
  private relayed(positions: ReadonlyMap<string, bigint>, changes: readonly ProjectionChange[]): string | undefined {
    const relay = this.options.relay;
    return relay?.enabled() ? relayStatement(relay.writer, positions, changes) : undefined;
  }

  private emit(changes: ProjectionChange[]): void {
    for (const listener of this.listeners) {
      try {
        listener(changes);
      } catch (error) {
        this.logger.warn({ err: error }, 'projection change listener failed');
      }
    }
  }

  /** Subscribes to what projectors changed, announced after each commit. Returns the unsubscribe. */
  onChange(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private minimumPosition(): bigint {
    return slowestOf(Array.from(this.states.values(), (state) => state.position));
  }

  private settleWaiters(): void {
    if (this.progressListeners.size > 0) {
      const positions = this.positionsByName();
      for (const listener of this.progressListeners) listener(positions);
    }
    this.waiters.settle();
  }

  /** Resolves once every projector has passed `position`; rejects naming the laggards after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs?: number): Promise<void> {
    return this.waiters.waitFor(position, timeoutMs);
  }

  /**
   * Called with every projector's position whenever the runner may have moved forward (after
   * each run, start and rebuild): what a host in another thread needs to settle its own waiters.
   */
  onProgress(listener: ProgressListener): () => void {
    this.progressListeners.add(listener);
    return () => this.progressListeners.delete(listener);
  }

  private positionsByName(): Map<string, bigint> {
    const positions = new Map<string, bigint>();
    for (const [name, state] of this.states) positions.set(name, state.position);
    return positions;
  }

  /** Position each projector has reached, in memory. */
  positions(): Record<string, bigint> {
    return Object.fromEntries(this.positionsByName());
  }

  /**
   * Rebuilds one projector from zero into fresh tables and swaps them in when caught up; its
   * live subscription keeps the current tables fresh meanwhile, so reads keep working.
   */
  async rebuild(name: string): Promise<{ position: bigint; events: number }> {
    const state = this.states.get(name);
    if (!state) throw new Error(`unknown projector ${name} (known: ${this.projectorNames.join(', ')})`);
    if (state.rebuilding) throw new Error(`projector ${name} is already rebuilding`);
    state.rebuilding = true;
    try {
      this.logger.info({ projector: name }, 'rebuilding projector');
      const result = await rebuildProjector(this.options.pool, this.options.store, state.projector, {
        shouldStop: () => this.stopped,
      });
      if (result.position > state.position) state.position = result.position;
      this.settleWaiters();
      this.logger.info(
        { projector: name, position: String(result.position), events: result.events },
        'projector rebuilt',
      );
      return result;
    } finally {
      state.rebuilding = false;
    }
  }

  async status(): Promise<ProjectorStatus[]> {
    return projectionStatus(this.options.pool, this.options.store, this.options.projectors);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.subscription?.stop();
  }
}

/**
 * The `projection_lag_events` gauge on `registry`: events between the store's head and each
 * projector's position (read when the metrics are collected).
 */
export function registerLagGauge(
  registry: Registry,
  store: EventStore,
  positions: () => ReadonlyMap<string, bigint>,
): void {
  new Gauge({
    name: 'projection_lag_events',
    help: 'Events between the event store head and each projector checkpoint',
    labelNames: ['projector'],
    registers: [registry],
    async collect() {
      const head = await store.headPosition().catch(() => undefined);
      if (head === undefined) return;
      for (const [projector, position] of positions()) {
        const lag = head - position;
        this.set({ projector }, Number(lag > 0n ? lag : 0n));
      }
    },
  });
}

/** Checkpoint, head and lag of each projector, read from the database (no runner needed). */
export async function projectionStatus(
  pool: pg.Pool,
  store: EventStore,
  projectors: Projector[],
): Promise<ProjectorStatus[]> {
  const [checkpoints, head] = await Promise.all([readAllCheckpoints(pool), store.headPosition()]);
  const byName = new Map(checkpoints.map((row) => [row.name, row]));
  return projectors.map((projector) => {
    const row = byName.get(projector.name);
    const position = row?.position ?? -1n;
    return {
      name: projector.name,
      version: projector.version,
      storedVersion: row?.version,
      position,
      head,
      lag: head > position ? head - position : 0n,
      updatedAt: row?.updatedAt,
    };
  });
}
