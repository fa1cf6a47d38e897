// The engine as the benches run it: its clock steps one microsecond per reading from the benches'
// start time, it logs warnings only, notes no writes, and makes no periodic snapshot inside the
// timed runs (a bench that measures a snapshot makes one on its own).

import pino from 'pino';
import { startEngine, type RunningEngine } from '../../engine/process.ts';
import type { EventStore } from '../../eventstore/port.ts';
import { BENCH_START_US } from '../decider.bench.ts';

export function startBenchEngine(store: EventStore, dataDir: string): Promise<RunningEngine> {
  let nowUs = BENCH_START_US;
  return startEngine({
    store,
    dataDir,
    clock: { nowUs: () => (nowUs += 1) },
    logger: pino({ level: 'warn' }),
    writes: { note: () => undefined, lastFor: () => undefined },
    snapshotEverySteps: Number.POSITIVE_INFINITY,
  });
}
