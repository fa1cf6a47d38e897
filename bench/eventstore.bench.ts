// Event store benchmark: the postgres adapter on a fresh embedded PostgreSQL with durable
// settings (fsync and synchronous_commit on). Single-event appends from 1 writer and from 50
// concurrent writers (group commit), and 100-event batches. Prints a table, then as its last
// line one JSON object of the figures.

import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { PostgresEventStore } from '../eventstore/postgres.ts';
import { startBenchPostgres } from './support/postgres.ts';
import type { NewEvent } from '../eventstore/port.ts';

const SINGLE_WRITER_APPENDS = Number(process.env.BENCH_SINGLE_APPENDS ?? 2000);
const CONCURRENT_WRITERS = 50;
const CONCURRENT_APPENDS_PER_WRITER = Number(process.env.BENCH_CONCURRENT_APPENDS ?? 200);
const BATCH_SIZE = 100;
const BATCH_APPENDS = Number(process.env.BENCH_BATCH_APPENDS ?? 300);
const BATCH_WRITERS = 4;

const payload = () => ({
  order_id: randomUUID(),
  account_id: randomUUID(),
  price: '0.55',
  quantity: '10',
  side: 'buy',
  time_in_force: 'good_til_cancel',
});
const newEvent = (): NewEvent => ({
  id: randomUUID(),
  type: 'OrderPlaced',
  data: payload(),
  metadata: { bench: true },
});

interface Figures {
  events_per_s: number;
  p50_ms: number;
  p99_ms: number;
}

function percentile(sortedMs: number[], fraction: number): number {
  if (sortedMs.length === 0) return 0;
  const index = Math.min(sortedMs.length - 1, Math.ceil(fraction * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)]!;
}

/** Runs `writers` loops of `appendsPerWriter` appends of `eventsPerAppend` events each. */
async function measure(
  store: PostgresEventStore,
  writers: number,
  appendsPerWriter: number,
  eventsPerAppend: number,
  tag: string,
): Promise<Figures> {
  const latenciesMs: number[] = [];
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: writers }, async (_, writer) => {
      const stream = `bench-${tag}-${writer}-${randomUUID()}`;
      let expected: bigint | 'no_stream' = 'no_stream';
      for (let i = 0; i < appendsPerWriter; i += 1) {
        const events = Array.from({ length: eventsPerAppend }, newEvent);
        const t0 = process.hrtime.bigint();
        const result = await store.append(stream, events, expected);
        latenciesMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
        expected = result.nextRevision;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latenciesMs.sort((a, b) => a - b);
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    events_per_s: Math.round((writers * appendsPerWriter * eventsPerAppend) / seconds),
    p50_ms: round(percentile(latenciesMs, 0.5)),
    p99_ms: round(percentile(latenciesMs, 0.99)),
  };
}

async function main(): Promise<void> {
  const database = await startBenchPostgres();
  try {
    const store = new PostgresEventStore({ pool: database.pool });
    console.log(
      `PostgreSQL fsync=${database.settings.fsync} synchronous_commit=${database.settings.synchronousCommit}, ${os.cpus().length} CPUs`,
    );

    await measure(store, 10, 50, 1, 'warmup');
    const append1 = await measure(store, 1, SINGLE_WRITER_APPENDS, 1, 'one');
    const append50 = await measure(store, CONCURRENT_WRITERS, CONCURRENT_APPENDS_PER_WRITER, 1, 'fifty');
    const batch100 = await measure(store, 1, BATCH_APPENDS, BATCH_SIZE, 'batch');
    const batch100Concurrent = await measure(store, BATCH_WRITERS, BATCH_APPENDS / BATCH_WRITERS, BATCH_SIZE, 'batchc');

    const rows: Array<[string, Figures]> = [
      ['single-event appends, 1 writer', append1],
      [`single-event appends, ${CONCURRENT_WRITERS} writers`, append50],
      [`${BATCH_SIZE}-event batches, 1 writer`, batch100],
      [`${BATCH_SIZE}-event batches, ${BATCH_WRITERS} writers`, batch100Concurrent],
    ];
    for (const [name, figures] of rows) {
      console.log(
        `${name.padEnd(40)} ${String(figures.events_per_s).padStart(8)} events/s   p50 ${figures.p50_ms} ms   p99 ${figures.p99_ms} ms (per append)`,
      );
    }
    await store.close();
    console.log(
      JSON.stringify({
        append1_events_per_s: append1.events_per_s,
        append1_p50_ms: append1.p50_ms,
        append1_p99_ms: append1.p99_ms,
        append50_events_per_s: append50.events_per_s,
        append50_p50_ms: append50.p50_ms,
        append50_p99_ms: append50.p99_ms,
        batch100_events_per_s: batch100.events_per_s,
        batch100_p50_ms: batch100.p50_ms,
        batch100_p99_ms: batch100.p99_ms,
        batch100_4writers_events_per_s: batch100Concurrent.events_per_s,
        batch100_4writers_p99_ms: batch100Concurrent.p99_ms,
      }),
    );
  } finally {
    await database.stop();
  }
}

await main();
