// The engine's own CPU per order on its two order paths, without PostgreSQL: the whole pipeline
// (sequencer, decider, record encoding, journal writer, live view, answers) over an event store
// whose appends keep nothing and land on the next turn of the event loop. On a machine shared
// with other work, `bench:engine`'s throughput moves with PostgreSQL and the load; this measures
// what the engine's thread spends per order, for comparing builds in alternating runs.
//   - journaled: one order per input, 1,024 callers in flight (as bench:engine's throughput run);
//   - batched: inputs of 100 orders of one account, 8 in flight (as its batch run).
// Same order stream as bench/decider.bench.ts, after an untimed warm-up of 20,000 orders.
//
// Run: node --max-semi-space-size=128 --import ./cli/register.js bench/engineCpu.bench.ts
// Environment: BENCH_CPU_ORDERS (default 60,000 per path); BENCH_CPU_PROFILE=journaled|batched
// writes a CPU profile of that path alone to engine-<path>.cpuprofile (node:inspector).
// After both paths it also reports the heap in use after a full collection, with the live orders
// the state then holds (most orders of the stream rest): what the engine and its view keep.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import type { EngineInput } from '../domain/engine/inputs.ts';
import type { RunningEngine } from '../engine/process.ts';
import { startBenchEngine } from './support/engine.ts';
import { MemoryEventStore } from '../eventstore/memory.ts';
import type { AppendResult } from '../eventstore/port.ts';
import { benchInputs } from './decider.bench.ts';

const ORDERS = Number(process.env.BENCH_CPU_ORDERS ?? 60_000);
const PROFILE = process.env.BENCH_CPU_PROFILE;
const WARM_UP_ORDERS = 20_000;
const SEED = 20_261_123;
const BATCH_SIZE = 100;

/** A store that keeps nothing: an append answers the next revision and position on the next turn. */
function discardingStore(): MemoryEventStore {
  const store = new MemoryEventStore();
  let revision = -1n;
  store.append = async (_stream, events): Promise<AppendResult> => {
    revision += BigInt(events.length);
    const result = { nextRevision: revision, position: revision };
    await new Promise<void>((resolve) => setImmediate(resolve));
    return result;
  };
  return store;
}

/** CPU µs of this process per order while `inFlight` callers submit `inputs` (`orders` orders in all). */
async function cpuPerOrder(engine: RunningEngine, inputs: EngineInput[], inFlight: number, orders: number) {
  let next = 0;
  const before = process.cpuUsage();
  const started = performance.now();
  const caller = async () => {
    while (next < inputs.length) await engine.submit(inputs[next++]!);
  };
  await Promise.all(Array.from({ length: inFlight }, caller));
  const cpu = process.cpuUsage(before);
  return {
    cpuUsPerOrder: Math.round(((cpu.user + cpu.system) / orders) * 100) / 100,
    wallUsPerOrder: Math.round(((performance.now() - started) * 1000 * 100) / orders) / 100,
  };
}

/** Bytes of heap in use after a full collection. */
function heapUsedAfterCollection(): number {
  v8.setFlagsFromString('--expose-gc');
  const collect = vm.runInNewContext('gc') as () => void;
  collect();
  return process.memoryUsage().heapUsed;
}

async function profiled<T>(name: string, run: () => Promise<T>): Promise<T> {
  if (PROFILE !== name) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  const result = await run();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(`engine-${name}.cpuprofile`, JSON.stringify(profile));
  session.disconnect();
  return result;
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'engine-cpu-bench-'));
const engine = await startBenchEngine(discardingStore(), dataDir);
try {
  const { setup, orders } = benchInputs(WARM_UP_ORDERS + 2 * ORDERS, SEED);
  await Promise.all(setup.map((input) => engine.submit(input)));
  await cpuPerOrder(engine, orders.slice(0, WARM_UP_ORDERS), 1_024, WARM_UP_ORDERS);
  const single = orders.slice(WARM_UP_ORDERS, WARM_UP_ORDERS + ORDERS);
  const journaled = await profiled('journaled', () => cpuPerOrder(engine, single, 1_024, single.length));
  const legs = orders.slice(WARM_UP_ORDERS + ORDERS) as Extract<EngineInput, { kind: 'PlaceOrder' }>[];
  const batches: EngineInput[] = [];
  for (let i = 0; i + BATCH_SIZE <= legs.length; i += BATCH_SIZE) {
    const chunk = legs.slice(i, i + BATCH_SIZE);
    batches.push({ kind: 'PlaceOrders', account_id: chunk[0]!.account_id, orders: chunk.map((leg) => leg.order) });
  }
  const batched = await profiled('batched', () => cpuPerOrder(engine, batches, 8, batches.length * BATCH_SIZE));
  const heapMb = Math.round(heapUsedAfterCollection() / 1e6);
  const liveOrders = engine.engine.state.orders.size;
  console.log('engine without PostgreSQL, one order per input, 1,024 in flight:', JSON.stringify(journaled));
  console.log(`engine without PostgreSQL, inputs of ${BATCH_SIZE} orders, 8 in flight:`, JSON.stringify(batched));
  console.log(
    JSON.stringify({
      journaled_engine_cpu_us_per_order: journaled.cpuUsPerOrder,
      journaled_engine_wall_us_per_order: journaled.wallUsPerOrder,
      batched_engine_cpu_us_per_order: batched.cpuUsPerOrder,
      batched_engine_wall_us_per_order: batched.wallUsPerOrder,
      live_orders: liveOrders,
      heap_used_mb: heapMb,
    }),
  );
} finally {
  await engine.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
