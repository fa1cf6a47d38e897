// Engine benchmark.
//   1. The in-memory matcher (fast book + matcher) on a fixed pseudo-random stream of limit,
//      market and cancel operations while the book grows to 100k resting orders and then stays
//      there: operations/s and p50/p99/p99.9 latency per operation, overall and at full depth.
//   2. The same stream through the npm package `nodejs-order-book` as a reference.
//   3. The engine decider alone (domain engine, no journal) on limit orders from 200 accounts,
//      and the mean size of a journal record (JSON) for that stream.
//   4. The engine process journaling to the postgres event store (a fresh embedded PostgreSQL
//      with durable settings): after an untimed warm-up on the same engine and database, orders/s
//      and p50/p99 commit latency (submit until the reply, i.e. durably journaled) with many
//      callers in flight, then commit latency under light load (few callers), then the batch path
//      (inputs of 100 orders of one account, as POST /orders/batched submits them); last, a
//      snapshot of the final state made by a worker thread as the service makes its periodic ones,
//      and the time serialising that state on the engine's thread would stall it.
// The last line is one JSON object.
//
// Environment: BENCH_MATCHER_OPS (default 1,000,000), BENCH_DEPTH (default 100,000), BENCH_DECIDER_ORDERS (default 200,000),
// BENCH_WARM_UP_ORDERS (default 20,000), BENCH_JOURNALED_ORDERS (default 100,000), BENCH_IN_FLIGHT
// (default 1,024), and a light-load run (a tenth of the orders) at BENCH_LIGHT_IN_FLIGHT (default
// 32) for commit latency.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { OrderBook as ReferenceLibraryBook, Side } from 'nodejs-order-book';
import { performance as nodePerformance } from 'node:perf_hooks';
import type { RunningEngine } from '../engine/process.ts';
import { startBenchEngine } from './support/engine.ts';
import { startSnapshotJob } from '../engine/snapshotter.ts';
import { encodeState } from '../domain/engine/snapshot.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';
import { benchDecider, benchInputs } from './decider.bench.ts';
import { seededRandom } from '../domain/random.ts';
import { FastOrderBook } from '../domain/book/fast.ts';
import { matchIncoming } from '../domain/book/match.ts';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import { startBenchPostgres } from './support/postgres.ts';

const MATCHER_OPS = Number(process.env.BENCH_MATCHER_OPS ?? 1_000_000);
const DEPTH = Number(process.env.BENCH_DEPTH ?? 100_000);
const JOURNALED_ORDERS = Number(process.env.BENCH_JOURNALED_ORDERS ?? 100_000);
const WARM_UP_ORDERS = Number(process.env.BENCH_WARM_UP_ORDERS ?? 20_000);
// 1,024 callers keep every group commit full (the engine's batch closes when the previous append
// lands); more only add queueing (commit latency ~ callers / throughput) and heap pressure from
// their pending replies: 4,096 measured lower throughput and four times the latency.
const IN_FLIGHT = Number(process.env.BENCH_IN_FLIGHT ?? 1_024);
const LIGHT_IN_FLIGHT = Number(process.env.BENCH_LIGHT_IN_FLIGHT ?? 32);
/** The batch run: inputs of BATCH_SIZE orders (one account each), as POST /orders/batched submits them. */
const BATCH_SIZE = 100;
const BATCH_IN_FLIGHT = 8;
const MAX_PRICE_CENTS = 100;
const SEED = 20_261_122;

type Op =
  | { kind: 'limit'; id: string; side: 'buy' | 'sell'; price: number; size: number }
  | { kind: 'market'; id: string; side: 'buy' | 'sell'; size: number }
  | { kind: 'cancel'; id: string };

/** Builds the stream against a fast book (untimed) so cancels target orders that rest. */
function buildStream(): { ops: Op[]; depthAt: Int32Array } {
  const random = seededRandom(SEED);
  const book = new FastOrderBook(MAX_PRICE_CENTS);
  const resting: string[] = [];
  const index = new Map<string, number>();
  const ops: Op[] = [];
  const depthAt = new Int32Array(MATCHER_OPS);
  const removeId = (id: string) => {
    const at = index.get(id);
    if (at === undefined) return;
    const last = resting.pop()!;
    if (last !== id) {
      resting[at] = last;
      index.set(last, at);
    }
    index.delete(id);
  };
  for (let i = 0; i < MATCHER_OPS; i++) {
    const r = random();
    const full = book.size() >= DEPTH;
    const id = `o${i}`;
    let op: Op;
    if (resting.length > 0 && r < (full ? 0.45 : 0.15)) {
      op = { kind: 'cancel', id: resting[Math.floor(random() * resting.length)]! };
    } else if (r < 0.93) {
      const side = random() < 0.5 ? 'buy' : 'sell';
      const aggressive = random() < 0.1;
      const bestBid = book.bestPrice('buy');
      const bestOffer = book.bestPrice('sell');
      const mid = bestBid > 0 && bestOffer > 0 ? Math.round((bestBid + bestOffer) / 2) : 50;
      const offset = 1 + Math.floor(random() * 20);
      let price =
        side === 'buy' ? (aggressive ? mid + offset : mid - offset) : aggressive ? mid - offset : mid + offset;
      price = Math.min(MAX_PRICE_CENTS - 1, Math.max(1, price));
      op = { kind: 'limit', id, side, price, size: 1 + Math.floor(random() * 10) };
    } else {
      op = { kind: 'market', id, side: random() < 0.5 ? 'buy' : 'sell', size: 1 + Math.floor(random() * 20) };
    }
    ops.push(op);
    apply(
      book,
      op,
      (filledId) => removeId(filledId),
      (restedId) => {
        index.set(restedId, resting.length);
        resting.push(restedId);
      },
    );
    depthAt[i] = book.size();
  }
  return { ops, depthAt };
}

function apply(book: FastOrderBook, op: Op, onRemoved?: (id: string) => void, onRested?: (id: string) => void): void {
  if (op.kind === 'cancel') {
    if (book.cancel(op.id)) onRemoved?.(op.id);
    return;
  }
  // every order its own owner: self-trade prevention never applies, every cross trades
  const result = matchIncoming(book, {
    id: op.id,
    ownerId: op.id,
    side: op.side,
    limitCents: op.kind === 'limit' ? op.price : null,
    quantityNanos: op.size,
  });
  if (onRemoved) for (const trade of result.trades) if (!book.get(trade.makerOrderId)) onRemoved(trade.makerOrderId);
  if (result.rested) onRested?.(op.id);
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

interface Timing {
  opsPerS: number;
  p50Us: number;
  p99Us: number;
  p999Us: number;
}

function summarize(latenciesNs: Float64Array, totalNs: number): Timing {
  const sorted = Float64Array.from(latenciesNs).sort();
  return {
    opsPerS: Math.round(latenciesNs.length / (totalNs / 1e9)),
    p50Us: percentile(sorted, 50) / 1000,
    p99Us: percentile(sorted, 99) / 1000,
    p999Us: percentile(sorted, 99.9) / 1000,
  };
}

function timeStream(ops: Op[], depthAt: Int32Array, run: (op: Op) => void): { all: Timing; deep: Timing } {
  const latencies = new Float64Array(ops.length);
  const deepIndexes: number[] = [];
  let total = 0;
  for (let i = 0; i < ops.length; i++) {
    const start = process.hrtime.bigint();
    run(ops[i]!);
    const elapsed = Number(process.hrtime.bigint() - start);
    latencies[i] = elapsed;
    total += elapsed;
    if (depthAt[i]! >= DEPTH * 0.9) deepIndexes.push(i);
  }
  const deep = Float64Array.from(deepIndexes, (i) => latencies[i]!);
  const deepTotal = deep.reduce((sum, value) => sum + value, 0);
  return { all: summarize(latencies, total), deep: summarize(deep, deepTotal) };
}

/** Throughput without per-operation clocks: the whole stream, and the part run at full depth. */
function throughput(ops: Op[], depthAt: Int32Array, run: (op: Op) => void): { opsPerS: number; deepOpsPerS: number } {
  let firstDeep = ops.length;
  for (let i = 0; i < ops.length; i++)
    if (depthAt[i]! >= DEPTH * 0.9) {
      firstDeep = i;
      break;
    }
  const start = performance.now();
  let deepStart = start;
  for (let i = 0; i < ops.length; i++) {
    if (i === firstDeep) deepStart = performance.now();
    run(ops[i]!);
  }
  const end = performance.now();
  return {
    opsPerS: Math.round(ops.length / ((end - start) / 1000)),
    deepOpsPerS: firstDeep < ops.length ? Math.round((ops.length - firstDeep) / ((end - deepStart) / 1000)) : 0,
  };
}

function benchMatcher(ops: Op[], depthAt: Int32Array) {
  // Warm-up on a throwaway book, then a throughput run and a latency run on fresh books.
  const warm = new FastOrderBook(MAX_PRICE_CENTS);
  for (let i = 0; i < Math.min(ops.length, 200_000); i++) apply(warm, ops[i]!);
  const rate = new FastOrderBook(MAX_PRICE_CENTS);
  const speed = throughput(ops, depthAt, (op) => apply(rate, op));
  const book = new FastOrderBook(MAX_PRICE_CENTS);
  const timing = timeStream(ops, depthAt, (op) => apply(book, op));
  return { ...timing, ...speed, finalDepth: book.size() };
}

function benchReference(ops: Op[], depthAt: Int32Array) {
  const run = (book: ReferenceLibraryBook) => (op: Op) => {
    if (op.kind === 'cancel') book.cancel(op.id);
    else if (op.kind === 'limit')
      book.limit({ id: op.id, side: op.side === 'buy' ? Side.BUY : Side.SELL, size: op.size, price: op.price });
    else book.market({ side: op.side === 'buy' ? Side.BUY : Side.SELL, size: op.size });
  };
  const warm = new ReferenceLibraryBook();
  const warmRun = run(warm);
  for (let i = 0; i < Math.min(ops.length, 200_000); i++) warmRun(ops[i]!);
  const speed = throughput(ops, depthAt, run(new ReferenceLibraryBook()));
  return { ...timeStream(ops, depthAt, run(new ReferenceLibraryBook())), ...speed };
}

interface JournaledRun {
  ordersPerS: number;
  /** CPU of this process (engine, encoding, pg client, GC threads, the bench's callers) per order. */
  cpuUsPerOrder: number;
  /** Share of the time the event loop (the engine's thread) was busy. */
  eventLoopUtilization: number;
  commitP50Ms: number;
  commitP99Ms: number;
  trades: number;
}

/** Submits `inputs` with `inFlight` callers, each waiting for its reply before the next. */
async function submitAll(engine: RunningEngine, inputs: EngineInput[], inFlight: number): Promise<JournaledRun> {
  const latenciesMs = new Float64Array(inputs.length);
  let next = 0;
  let trades = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const loopBefore = nodePerformance.eventLoopUtilization();
  const worker = async () => {
    while (next < inputs.length) {
      const index = next++;
      const submitted = performance.now();
      const reply = await engine.submit(inputs[index]!);
      latenciesMs[index] = performance.now() - submitted;
      for (const event of reply.events) if (event.type === 'Traded') trades++;
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsedMs = performance.now() - started;
  const cpu = process.cpuUsage(cpuBefore);
  const loop = nodePerformance.eventLoopUtilization(loopBefore);
  const sorted = Float64Array.from(latenciesMs).sort();
  return {
    ordersPerS: Math.round(inputs.length / (elapsedMs / 1000)),
    cpuUsPerOrder: Math.round((cpu.user + cpu.system) / inputs.length),
    eventLoopUtilization: Math.round(loop.utilization * 1000) / 1000,
    commitP50Ms: percentile(sorted, 50),
    commitP99Ms: percentile(sorted, 99),
    trades,
  };
}

/**
 * One engine journaling to one fresh PostgreSQL: an untimed warm-up (the cluster's first WAL
 * segments are created and zero-filled, its caches and the engine's maps grow), then the
 * throughput run at `inFlight` callers and the light-load run at `lightInFlight`, each timed.
 */
async function benchJournaled(
  warmUp: number,
  orders: number,
  inFlight: number,
  lightOrders: number,
  lightInFlight: number,
  batchedOrders: number,
) {
  const database = await startBenchPostgres();
  console.log(`PostgreSQL fsync=${database.settings.fsync} synchronous_commit=${database.settings.synchronousCommit}`);
  const store = new PostgresEventStore({ pool: database.pool, connectionString: database.connectionString });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'engine-bench-'));
  // No periodic snapshot inside the timed runs; one is measured on its own at the end.
  const engine = await startBenchEngine(store, dataDir);
  try {
    // the same funded accounts and order stream as the decider-only bench (bench/decider.bench.ts)
    const { setup, orders: inputs } = benchInputs(warmUp + orders + lightOrders + batchedOrders, SEED + 1);
    await Promise.all(setup.map((input) => engine.submit(input)));
    await submitAll(engine, inputs.slice(0, warmUp), inFlight);
    console.log(`warm-up: ${warmUp} orders journaled (untimed)`);
    const loaded = await submitAll(engine, inputs.slice(warmUp, warmUp + orders), inFlight);
    console.log(`engine + postgres journal, ${inFlight} in flight:`, JSON.stringify(loaded));
    const light = await submitAll(engine, inputs.slice(warmUp + orders, warmUp + orders + lightOrders), lightInFlight);
    console.log(`engine + postgres journal, ${lightInFlight} in flight:`, JSON.stringify(light));
    // The batch path (what POST /orders/batched submits): 100 orders of one account per input.
    const legs = inputs.slice(warmUp + orders + lightOrders);
    const batches: EngineInput[] = [];
    for (let i = 0; i + BATCH_SIZE <= legs.length; i += BATCH_SIZE) {
      const chunk = legs.slice(i, i + BATCH_SIZE) as Extract<EngineInput, { kind: 'PlaceOrder' }>[];
      batches.push({
        kind: 'PlaceOrders',
        account_id: chunk[0]!.account_id,
        orders: chunk.map((input) => input.order),
      });
    }
    const batchRun = await submitAll(engine, batches, BATCH_IN_FLIGHT);
    const batched = {
      ...batchRun,
      ordersPerS: batchRun.ordersPerS * BATCH_SIZE,
      cpuUsPerOrder: Math.round(batchRun.cpuUsPerOrder / BATCH_SIZE),
    };
    console.log(
      `engine + postgres journal, batches of ${BATCH_SIZE} orders, ${BATCH_IN_FLIGHT} in flight:`,
      JSON.stringify(batched),
    );
    // A snapshot of the final state, made as the service makes its periodic ones (a worker thread
    // recovering from the journal), and, for comparison, the time serialising the live state on
    // the engine's thread takes (the stall the worker avoids).
    const liveOrders = engine.engine.state.orders.size;
    const job = startSnapshotJob({ kind: 'postgres', connectionString: database.connectionString }, dataDir);
    const jobStarted = performance.now();
    const reply = await job.done;
    const snapshotWorkerMs = Math.round(performance.now() - jobStarted);
    if (!reply.ok) throw new Error(`snapshot worker failed: ${reply.error}`);
    const encodeStarted = performance.now();
    const snapshotBytes = encodeState(engine.engine.state).length;
    const snapshotInlineMs = Math.round(performance.now() - encodeStarted);
    const snapshot = { liveOrders, steps: reply.seq, snapshotWorkerMs, snapshotInlineMs, snapshotBytes };
    console.log('snapshot of the final state:', JSON.stringify(snapshot));
    return { loaded, light, batched, snapshot };
  } finally {
    await engine.stop();
    await store.close();
    await database.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;

async function main(): Promise<void> {
  console.log(`building a stream of ${MATCHER_OPS} operations (depth target ${DEPTH})`);
  const { ops, depthAt } = buildStream();
  console.log(`max depth reached: ${depthAt.reduce((max, d) => Math.max(max, d), 0)}`);
  const matcher = benchMatcher(ops, depthAt);
  console.log('matcher (fast book):', JSON.stringify(matcher));
  const reference = benchReference(ops, depthAt);
  console.log('nodejs-order-book:', JSON.stringify(reference));
  const decider = benchDecider(Number(process.env.BENCH_DECIDER_ORDERS ?? 200_000));
  console.log('engine decider alone:', JSON.stringify(decider));
  const {
    loaded: journaled,
    light: lightLoad,
    batched,
    snapshot,
  } = await benchJournaled(
    WARM_UP_ORDERS,
    JOURNALED_ORDERS,
    IN_FLIGHT,
    Math.max(1000, Math.floor(JOURNALED_ORDERS / 10)),
    LIGHT_IN_FLIGHT,
    JOURNALED_ORDERS,
  );
  console.log(
    JSON.stringify({
      matcher_ops_per_s: matcher.opsPerS,
      matcher_p50_us: round(matcher.all.p50Us, 3),
      matcher_p99_us: round(matcher.all.p99Us, 3),
      matcher_p999_us: round(matcher.all.p999Us, 3),
      matcher_ops_per_s_at_100k: matcher.deepOpsPerS,
      matcher_p999_us_at_100k: round(matcher.deep.p999Us, 3),
      reference_ops_per_s: reference.opsPerS,
      reference_ops_per_s_at_100k: reference.deepOpsPerS,
      reference_p999_us: round(reference.all.p999Us, 3),
      decider_orders_per_s: decider.ordersPerS,
      journal_record_bytes: decider.recordBytes,
      journaled_orders_per_s: journaled.ordersPerS,
      commit_p50_ms: round(journaled.commitP50Ms),
      commit_p99_ms: round(journaled.commitP99Ms),
      journaled_cpu_us_per_order: journaled.cpuUsPerOrder,
      journaled_event_loop_utilization: journaled.eventLoopUtilization,
      light_load_in_flight: LIGHT_IN_FLIGHT,
      light_load_orders_per_s: lightLoad.ordersPerS,
      light_load_commit_p50_ms: round(lightLoad.commitP50Ms),
      light_load_commit_p99_ms: round(lightLoad.commitP99Ms),
      batched_orders_per_s: batched.ordersPerS,
      batched_commit_p99_ms: round(batched.commitP99Ms),
      batched_cpu_us_per_order: batched.cpuUsPerOrder,
      snapshot_live_orders: snapshot.liveOrders,
      snapshot_worker_ms: snapshot.snapshotWorkerMs,
      snapshot_inline_encode_ms: snapshot.snapshotInlineMs,
    }),
  );
}

await main();
