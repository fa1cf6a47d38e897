// The engine process: ONE sequence of inputs, decided synchronously by the domain engine and
// journaled in batches (group commit: the steps of every input waiting go into one append on
// stream `engine`, as `EngineSteps` records of at most STEPS_PER_RECORD steps each). The expected revision of that stream is the fencing token: a
// second engine writing to the same store fails its append with WrongExpectedRevision and stops.
// Callers are answered after their step is durable. Timer ticks drive expiries and delays.

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import { accountsNamedBy, type EngineEvent } from '../domain/engine/events.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';
import type { Engine } from '../domain/engine/engine.ts';
import { WrongExpectedRevision, type AppendResult, type EventStore, type NewEvent } from '../eventstore/port.ts';
import { assertBalanced } from '../domain/engine/ledger.ts';
import { anyDue } from '../domain/engine/timers.ts';
import { EngineBusyError, EngineStoppedError, type BookLevelsChange, type BookSource, type EngineGateway, type EngineReply, type WriteTracker } from './gateway.ts';
import { FastOrderBook, type ChangedLevel } from '../domain/book/fast.ts';
import { formatCents, formatNanos } from '../domain/money/decimal.ts';
import type { EngineState } from '../domain/engine/state.ts';
import {
  ENGINE_STEPS_TYPE, ENGINE_STREAM, encodeStep, engineStepsData, newRecordContext, type EncodedStep, type EngineStepsData, type RecordContext,
} from '../domain/engine/journal/journal.ts';
import { recover, writeSnapshot } from './recovery.ts';
import { startSnapshotJob, type SnapshotJob, type SnapshotSource } from './snapshotter.ts';

export const BATCH_INPUTS_MAX = 1_024;
/**
 * Work decided between two yields to I/O while an append is in flight, in orders: an input
 * counts the orders it places or cancels (a batch of 100 legs weighs 100), any other input 1.
 */
export const DECIDE_SLICE = 64;
/**
 * Steps per journal record: keeps a record well under EventStoreDB's default 1 MiB append limit
 * for ordinary steps (about half a KB each) while one row still carries hundreds of orders.
 */
export const STEPS_PER_RECORD = 256;
/**
 * Outcome events per journal record past which the record is closed (steps of many legs are
 * big): keeps a record, and the projection transaction that reads it, to a bounded size.
 */
export const RECORD_EVENTS_MAX = 2_000;
export const TICK_INTERVAL_MS = 250;
/**
 * Inputs waiting to be decided, at most: past it a new write is refused at once (EngineBusyError,
 * REST 503 with Retry-After) instead of growing memory while the journal is slow.
 */
export const ENGINE_QUEUE_INPUTS_MAX = 50_000;
/** Journaled steps between two periodic snapshots. */
export const SNAPSHOT_EVERY_STEPS = 100_000;

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
}

export interface RunningEngine extends EngineGateway {
  stop(): Promise<void>;
  /** The books' journaled level changes, for the public feed. */
  readonly books: BookSource;
  /** The live engine (read-only use: tests, diagnostics). */
  readonly engine: Engine;
}

/** The weight of an input in DECIDE_SLICE's unit: orders placed or cancelled, else 1. */
function workOf(input: EngineInput): number {
  if (input.kind === 'PlaceOrders') return Math.max(1, input.orders.length);
  if (input.kind === 'CancelOrders') return Math.max(1, input.order_ids.length);
  return 1;
}

/** How many inputs at the head of `queue` make one slice: at least one, at most `limit`, within DECIDE_SLICE's work. */
function sliceLength(queue: readonly Pending[], limit: number): number {
  let work = 0;
  let count = 0;
  while (count < queue.length && count < limit) {
    work += workOf(queue[count]!.input);
    if (count > 0 && work > DECIDE_SLICE) break;
    count++;
  }
  return count;
}

interface Pending {
  input: EngineInput;
  nowUs: number;
  resolve(reply: EngineReply): void;
  reject(error: unknown): void;
}

export { EngineBusyError, EngineStoppedError } from './gateway.ts';

/** A journal record made from its JSON text; `data` (what stores without JSON text read) is parsed from it on demand. */
function journalRecord(id: string, json: string): NewEvent<EngineStepsData> {
  return {
    id, type: ENGINE_STEPS_TYPE, json,
    get data(): EngineStepsData {
      return JSON.parse(json) as EngineStepsData;
    },
  };
}

/**
 * Accounts a step touched, for read-your-writes: those its facts name, and the owners of the
 * orders it released or cancelled (those facts name the order only; a tick releasing an in-play
 * delay moves no money, so nothing else names the member).
 */
function accountsOf(input: EngineInput, events: readonly EngineEvent[], state: EngineState): Set<string> {
  const ids = new Set<string>();
  if ('account_id' in input) ids.add(input.account_id);
  for (const event of events) {
    if (event.type !== 'OrderReleased' && event.type !== 'OrderCancelled') continue;
    const owner = state.orders.get(event.order_id)?.accountId ?? state.finishedOrders.get(event.order_id);
    if (owner !== undefined) ids.add(owner);
  }
  return accountsNamedBy(events, ids);
}

export async function startEngine(deps: EngineDeps): Promise<RunningEngine> {
  const { store, clock, logger, writes, dataDir, snapshotSource } = deps;
  const snapshotEverySteps = deps.snapshotEverySteps ?? SNAPSHOT_EVERY_STEPS;
  const queueInputsMax = deps.queueInputsMax ?? ENGINE_QUEUE_INPUTS_MAX;
  let recovered = await recover(store, dataDir);
  let engine = recovered.engine;
  let revision = recovered.revision;
  let position = recovered.position;
  let lastRecordId = recovered.recordId;
  let stepsSinceSnapshot = recovered.replayedSteps;
  logger.info({ seq: engine.state.seq, replayed: recovered.replayedSteps, fromSnapshot: recovered.fromSnapshot }, 'engine recovered');

  const queue: Pending[] = [];
  let running: Promise<void> | undefined;
  let stopped: string | undefined;
  let tickQueued = false;

  interface Decided {
    records: NewEvent<EngineStepsData>[];
    answered: { pending: Pending; reply: EngineReply; record: number | null; accounts: Set<string> | null }[];
    reload: boolean;
    /** Steps of the record being filled, their outcome events, and that record's delta context. */
    steps: EncodedStep[];
    stepEvents: number;
    context: RecordContext;
    /** Book levels the batch moved (market → side and price → level as the batch leaves it). */
    book: Map<string, Map<number, ChangedLevel>>;
    lastNowUs: number;
  }

  const newDecided = (): Decided => ({
    records: [], answered: [], reload: false, steps: [], stepEvents: 0, context: newRecordContext(), book: new Map(), lastNowUs: 0,
  });

  const bookListeners = new Set<(change: { kind: 'levels'; books: BookLevelsChange[] } | { kind: 'reset' }) => void>();
  /** Takes the levels the books marked while deciding into the batch (each book is drained). */
  const captureBooks = (decided: Decided): void => {
    for (const market of engine.state.markets.values()) {
      if (!(market.book instanceof FastOrderBook)) continue;
      const levels = market.book.takeChangedLevels();
      if (levels.length === 0) continue;
      let moved = decided.book.get(market.id);
      if (!moved) {
        moved = new Map();
        decided.book.set(market.id, moved);
      }
      for (const level of levels) moved.set(level.side === 'buy' ? level.priceCents : -1 - level.priceCents, level); // one key per side and price
    }
  };
  const publishBooks = (decided: Decided): void => {
    if (decided.book.size === 0 || bookListeners.size === 0) return;
    const books: BookLevelsChange[] = [];
    for (const [marketId, levels] of decided.book) {
      const change: BookLevelsChange = { market_id: marketId, time_us: decided.lastNowUs, bids: [], offers: [] };
      for (const level of levels.values()) {
        (level.side === 'buy' ? change.bids : change.offers).push([formatCents(level.priceCents), formatNanos(level.totalNanos)]);
      }
      books.push(change);
    }
    for (const listener of bookListeners) {
      try {
        listener({ kind: 'levels', books });
      } catch (error) {
        logger.error({ err: error }, 'book listener failed');
      }
    }
  };
  /** Forgets what the books marked (after recovery: the state is what the journal holds). */
  const settleBooks = (state: EngineState): void => {
    for (const market of state.markets.values()) if (market.book instanceof FastOrderBook) market.book.takeChangedLevels();
  };
  settleBooks(engine.state);

  /** Closes the record being filled (if it holds steps). */
  const seal = (decided: Decided): void => {
    if (decided.steps.length === 0) return;
    // The id is not derived from seq: a second engine's record must not pass as a re-append. The
    // record is serialised now, once: its encoded steps are garbage from here on instead of living
    // until the append lands (what a young-generation collection copies meanwhile is what it costs).
    decided.records.push(journalRecord(randomUUID(), JSON.stringify(engineStepsData(decided.steps))));
    decided.steps = [];
    decided.stepEvents = 0;
    decided.context = newRecordContext();
  };

  /** Decides inputs synchronously into `decided`; the state moves ahead of the journal until commit() lands. */
  const decideInto = (decided: Decided, batch: Pending[]): void => {
    for (let index = 0; index < batch.length; index++) {
      const pending = batch[index]!;
      const seq = engine.nextSeq;
      let outcome: ReturnType<Engine['step']>;
      try {
        outcome = engine.step({ seq, now_us: pending.nowUs, input: pending.input });
      } catch (error) {
        // A broken invariant: the state may be half-changed. Answer with the error, keep what is
        // decided so far, and rebuild the state from the journal before going on.
        logger.error({ err: error, kind: pending.input.kind, seq }, 'engine step failed; reloading state from the journal');
        pending.reject(error);
        decided.reload = true;
        queue.unshift(...batch.slice(index + 1));
        break;
      }
      // The reply the caller gets once the step is durable (its position is set then); built
      // without spreads, with only the keys the outcome has.
      const reply: EngineReply = { ok: outcome.ok, events: outcome.events, position: 0n, seq: outcome.events.length > 0 ? seq : engine.state.seq };
      if (outcome.error) reply.error = outcome.error;
      if (outcome.legs) reply.legs = outcome.legs;
      if (outcome.answer) reply.answer = outcome.answer;
      if (outcome.ok && outcome.events.length > 0) {
        decided.steps.push(encodeStep(seq, pending.nowUs, pending.input, outcome.events, decided.context));
        decided.answered.push({ pending, reply, record: decided.records.length, accounts: accountsOf(pending.input, outcome.events, engine.state) });
        decided.stepEvents += outcome.events.length;
        if (decided.steps.length >= STEPS_PER_RECORD || decided.stepEvents >= RECORD_EVENTS_MAX) seal(decided);
      } else {
        decided.answered.push({ pending, reply, record: null, accounts: null });
      }
    }
  };

  /** The periodic snapshot being made by a worker thread, if any. */
  let snapshotJob: SnapshotJob | undefined;

  const launchSnapshotJob = (source: SnapshotSource): void => {
    const job = startSnapshotJob(source, dataDir);
    snapshotJob = job;
    const started = performance.now();
    void job.done.then((reply) => {
      if (snapshotJob !== job) return; // stopped by stop(), which says so itself
      snapshotJob = undefined;
      const ms = Math.round(performance.now() - started);
      if (reply.ok) logger.info({ seq: reply.seq, replayedSteps: reply.replayedSteps, written: reply.written, ms }, 'engine snapshot written by worker');
      else logger.warn({ error: reply.error, ms }, 'engine snapshot worker failed; the next one is tried after as many steps again');
    });
  };

  /** Set when an append failed: batches decided on top of it are failed too, then the state reloads. */
  let commitFailure: unknown;

  // Appends are issued as soon as a batch is decided, before the previous one has landed: the
  // expected revision of each is the one the stream will have once every earlier batch is in (the
  // engine is the stream's only writer), so the store serialises the next batch while it writes
  // the current one and may group both. Answers still follow journal order (commit awaits the
  // previous batch). If a batch fails, the ones issued after it fail too (their expected revision
  // is then wrong) and are answered with the first failure. ESDB appends are not pipelined.
  const pipelined = store.kind !== 'esdb';
  /** The stream's revision once every issued append has landed. */
  let issuedRevision = revision;
  type IssuedAppend = () => Promise<AppendResult>;

  const issue = (records: NewEvent<EngineStepsData>[]): IssuedAppend | undefined => {
    if (records.length === 0) return undefined;
    if (!pipelined) return () => store.append(ENGINE_STREAM, records, revision === undefined ? 'no_stream' : revision);
    if (commitFailure !== undefined) return () => Promise.reject(commitFailure);
    const expected = issuedRevision === undefined ? 'no_stream' as const : issuedRevision;
    issuedRevision = (issuedRevision ?? -1n) + BigInt(records.length);
    const started = store.append(ENGINE_STREAM, records, expected);
    started.catch(() => undefined); // observed by commit(); one failing behind an earlier failure is not reported twice
    return () => started;
  };

  /** Waits for a decided batch's append (after the previous one landed) and answers its callers. */
  const commit = async (decided: Decided, append: IssuedAppend | undefined): Promise<void> => {
    const { records, answered } = decided;
    if (commitFailure !== undefined) {
      if (append && pipelined) await append().catch(() => undefined); // settled before any reload reads the journal
      for (const item of answered) item.pending.reject(commitFailure);
      return;
    }
    let lastPosition = position;
    if (records.length > 0 && append) {
      try {
        const result = await append();
        revision = result.nextRevision;
        lastPosition = result.position;
        position = result.position;
        lastRecordId = records[records.length - 1]!.id;
        for (const item of answered) if (item.record !== null) stepsSinceSnapshot++;
      } catch (error) {
        commitFailure = error;
        for (const item of answered) item.pending.reject(error);
        if (error instanceof WrongExpectedRevision) {
          stopped = 'another engine wrote to the journal (fenced)';
          logger.fatal({ err: error }, 'engine fenced: another writer owns the journal; stopping');
          for (const pending of queue.splice(0)) pending.reject(new EngineStoppedError(stopped));
        } else {
          logger.error({ err: error }, 'engine journal append failed; reloading state from the journal');
        }
        return;
      }
    }
    // Record positions are consecutive within one append on the memory and postgres stores.
    const exact = store.kind !== 'esdb';
    const recordPositions: bigint[] = [];
    for (let i = 0; i < records.length; i++) recordPositions.push(exact ? lastPosition - BigInt(records.length - 1 - i) : lastPosition);
    for (const item of answered) {
      const recordPosition = item.record === null ? lastPosition : recordPositions[item.record]!;
      if (item.accounts) for (const accountId of item.accounts) writes.note(accountId, recordPosition);
      item.reply.position = recordPosition;
      item.pending.resolve(item.reply);
    }
    if (records.length > 0) publishBooks(decided);
  };

  /**
   * Money's invariants, checked after every decided batch and before any of it is journaled or
   * answered: all ledger accounts sum to zero, and the pool of a market settled in the batch is
   * zero. A violation is a bug: the engine stops (fail-stop), refusing the batch and all later
   * writes, rather than let a wrong state be written or acknowledged.
   */
  const ledgerBalanced = (decided: Decided): boolean => {
    const settled: string[] = [];
    for (const item of decided.answered) for (const event of item.reply.events) if (event.type === 'MarketSettled') settled.push(event.market_id);
    try {
      assertBalanced(engine.state, settled);
      return true;
    } catch (error) {
      stopped = (error as Error).message;
      logger.fatal({ err: error, seq: engine.state.seq }, 'engine stopped: the ledger does not balance; nothing of the batch was journaled or acknowledged');
      const refusal = new EngineStoppedError(stopped);
      for (const item of decided.answered) item.pending.reject(refusal);
      for (const pending of queue.splice(0)) pending.reject(refusal);
      return false;
    }
  };

  const reloadFromJournal = async (): Promise<void> => {
    recovered = await recover(store, dataDir);
    engine = recovered.engine;
    revision = recovered.revision;
    position = recovered.position;
    lastRecordId = recovered.recordId;
    issuedRevision = revision;
    commitFailure = undefined;
    settleBooks(engine.state);
    for (const listener of bookListeners) {
      try {
        listener({ kind: 'reset' });
      } catch (error) {
        logger.error({ err: error }, 'book listener failed');
      }
    }
  };

  /**
   * Pipelined: while one batch is being appended, the next is decided, so deciding and writing
   * overlap; appends stay strictly one after another (each knows the revision the last one left).
   */
  const drain = async (): Promise<void> => {
    let inFlight: Promise<void> | undefined;
    /** Whether the newest issued append has been answered. */
    let landed = true;
    while (queue.length > 0 && !stopped) {
      const decided = newDecided();
      // Decide in slices and yield between them, so the in-flight append's round trips to the
      // store go on meanwhile instead of queueing behind a whole batch of deciding. The batch
      // closes as soon as the previous append has landed (the store is never left idle), when
      // nothing more is waiting, or when it is full.
      for (;;) {
        const slice = queue.splice(0, sliceLength(queue, BATCH_INPUTS_MAX - decided.answered.length));
        decideInto(decided, slice);
        if (!decided.reload) {
          captureBooks(decided);
          for (const pending of slice) if (pending.nowUs > decided.lastNowUs) decided.lastNowUs = pending.nowUs;
        }
        if (decided.reload || stopped || landed || queue.length === 0 || decided.answered.length >= BATCH_INPUTS_MAX) break;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      seal(decided);
      if (!decided.reload && !ledgerBalanced(decided)) break;
      const append = issue(decided.records);
      const previous = inFlight;
      const current = (async () => {
        if (previous) await previous;
        await commit(decided, append);
      })();
      inFlight = current;
      landed = false;
      const markLanded = (): void => { if (inFlight === current) landed = true; };
      current.then(markLanded, markLanded);
      if (decided.reload) {
        await inFlight;
        inFlight = undefined;
        landed = true;
        await reloadFromJournal();
        continue;
      }
      if (previous) await previous;
      if (commitFailure !== undefined) {
        await inFlight;
        inFlight = undefined;
        landed = true;
        if (!stopped) await reloadFromJournal();
      }
      if (queue.length === 0 && inFlight) {
        await inFlight; // nothing more to overlap with: let the last batch land
        inFlight = undefined;
        landed = true;
        if (commitFailure !== undefined && !stopped) await reloadFromJournal();
      }
      if (stepsSinceSnapshot >= snapshotEverySteps && revision !== undefined && lastRecordId !== undefined) {
        if (snapshotSource) {
          if (!snapshotJob) {
            stepsSinceSnapshot = 0;
            launchSnapshotJob(snapshotSource);
          }
        } else if (!inFlight) {
          stepsSinceSnapshot = 0;
          await writeSnapshot(dataDir, engine, revision, position, lastRecordId).catch((error) => logger.warn({ err: error }, 'engine snapshot failed'));
        }
      }
    }
    if (inFlight) await inFlight;
  };

  const kick = (): void => {
    running ??= drain()
      .catch((error) => logger.error({ err: error }, 'engine loop failed'))
      .finally(() => {
        running = undefined;
        if (queue.length > 0 && !stopped) kick();
      });
  };

  const enqueue = (input: EngineInput): Promise<EngineReply> => {
    if (stopped) return Promise.reject(new EngineStoppedError(stopped));
    if (queue.length >= queueInputsMax) return Promise.reject(new EngineBusyError(queueInputsMax));
    return new Promise<EngineReply>((resolve, reject) => {
      queue.push({ input, nowUs: clock.nowUs(), resolve, reject });
      kick();
    });
  };

  const ticker = setInterval(() => {
    if (tickQueued || stopped || !anyDue(engine.state, clock.nowUs())) return;
    tickQueued = true;
    enqueue({ kind: 'Tick' })
      .catch((error) => logger.warn({ err: error }, 'engine tick failed'))
      .finally(() => { tickQueued = false; });
  }, TICK_INTERVAL_MS);
  ticker.unref();

  return {
    get engine() { return engine; },
    submit: enqueue,
    books: {
      snapshot(): BookLevelsChange[] {
        const out: BookLevelsChange[] = [];
        for (const market of engine.state.markets.values()) {
          if (!(market.book instanceof FastOrderBook)) continue;
          const level = (l: { priceCents: number; totalNanos: number }): [string, string] => [formatCents(l.priceCents), formatNanos(l.totalNanos)];
          out.push({ market_id: market.id, time_us: 0, bids: market.book.levels('buy').map(level), offers: market.book.levels('sell').map(level) });
        }
        return out;
      },
      onChange(listener) {
        bookListeners.add(listener);
        return () => bookListeners.delete(listener);
      },
    },
    async stop() {
      clearInterval(ticker);
      if (running) await running;
      // A worker still making a snapshot is stopped: the one written below is newer.
      const unfinished = snapshotJob;
      snapshotJob = undefined;
      if (unfinished) {
        await unfinished.cancel();
        logger.info('engine snapshot worker stopped: the engine is stopping and writes its own');
      }
      if (!stopped) {
        stopped = 'stopped';
        if (revision !== undefined && lastRecordId !== undefined && (stepsSinceSnapshot > 0 || unfinished)) {
          await writeSnapshot(dataDir, engine, revision, position, lastRecordId).catch((error) => logger.warn({ err: error }, 'engine snapshot failed'));
        }
      }
      for (const pending of queue.splice(0)) pending.reject(new EngineStoppedError(stopped));
    },
  };
}
