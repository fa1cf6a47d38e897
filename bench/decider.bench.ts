// Engine decider benchmark: the domain engine alone (no journal, no I/O) on the same kind of
// order stream the journaled engine benchmark uses (resting and crossing limit orders from 200
// funded accounts in one market). Reports orders/s, the journal JSON bytes per order (records of
// 256 delta-encoded steps, as the engine writes them) and the events per order. The last line is one JSON object.
//
// Environment: BENCH_DECIDER_ORDERS (default 200,000).

import { encodeStep, engineStepsData, newRecordContext, type EncodedStep } from '../domain/engine/journal/journal.ts';
import { RECORD_EVENTS_MAX, STEPS_PER_RECORD } from '../engine/batch.ts';
import { Engine } from '../domain/engine/engine.ts';
import { seededRandom } from '../domain/random.ts';
import { market, order, place } from '../tests/domain/engine/support.ts';
import type { EngineInput } from '../domain/engine/inputs.ts';

const ORDERS = Number(process.env.BENCH_DECIDER_ORDERS ?? 200_000);
const SEED = 20_261_123;

export const BENCH_START_US = 1_800_000_000_000_000;

/** The setup inputs (an event, an open market, funded accounts) and an order stream. */
export function benchInputs(
  orders: number,
  seed: number,
  accountCount = 200,
): { setup: EngineInput[]; orders: EngineInput[] } {
  const accounts = Array.from({ length: accountCount }, (_, i) => `acct-${i}`);
  const setup: EngineInput[] = [
    {
      kind: 'ScheduleSportEvent',
      event: {
        event_id: 'ev',
        title: 'Bench',
        start: BENCH_START_US + 3.6e9,
        short_title: null,
        event_type: null,
        sport: null,
        competition: null,
        participants: [],
      },
    },
    market('m', { title: 'Bench', points_cost: 1 }),
    ...accounts.flatMap((id): EngineInput[] => [
      { kind: 'OpenAccount', account_id: id, user_id: `u-${id}`, fields: {} },
      { kind: 'Deposit', account_id: id, entry_id: `dep-${id}`, amount: '1000000.00' },
    ]),
  ];
  const random = seededRandom(seed);
  const stream: EngineInput[] = Array.from({ length: orders }, (_, i) => {
    const side = random() < 0.5 ? 'buy' : 'sell';
    const aggressive = random() < 0.1;
    const offset = 1 + Math.floor(random() * 20);
    const price = side === 'buy' ? (aggressive ? 50 + offset : 50 - offset) : aggressive ? 50 - offset : 50 + offset;
    const accountId = accounts[Math.floor(random() * accounts.length)]!;
    const cents = String(Math.min(99, Math.max(1, price))).padStart(2, '0');
    return place(accountId, order(`bench-${i}`, side, `0.${cents}`, String(1 + Math.floor(random() * 10))));
  });
  return { setup, orders: stream };
}

export function benchDecider(orders: number): {
  ordersPerS: number;
  recordBytes: number;
  eventsPerOrder: number;
  trades: number;
} {
  const { setup, orders: stream } = benchInputs(orders, SEED);
  const engine = new Engine();
  let nowUs = BENCH_START_US;
  for (const input of setup) engine.step({ seq: engine.nextSeq, now_us: (nowUs += 1), input });
  // Warm-up on a throwaway engine with the same setup.
  const warm = new Engine();
  let warmUs = BENCH_START_US;
  for (const input of setup) warm.step({ seq: warm.nextSeq, now_us: (warmUs += 1), input });
  for (const input of benchInputs(Math.min(20_000, orders), SEED + 7).orders)
    warm.step({ seq: warm.nextSeq, now_us: (warmUs += 1), input });

  // Timed pass: only the decider (outcomes are dropped as they come, as the journal would).
  let events = 0;
  let trades = 0;
  const started = performance.now();
  for (let i = 0; i < stream.length; i++) {
    const outcome = engine.step({ seq: engine.nextSeq, now_us: (nowUs += 1), input: stream[i]! });
    events += outcome.events.length;
  }
  const elapsedMs = performance.now() - started;
  // Untimed pass on a fresh engine: journal JSON bytes per order, with the steps cut into records
  // as the engine cuts them (STEPS_PER_RECORD steps or RECORD_EVENTS_MAX events; delta-encoded
  // within a record).
  const sizing = new Engine();
  let sizeUs = BENCH_START_US;
  for (const input of setup) sizing.step({ seq: sizing.nextSeq, now_us: (sizeUs += 1), input });
  let bytes = 0;
  let steps: EncodedStep[] = [];
  let stepEvents = 0;
  let context = newRecordContext();
  const seal = () => {
    if (steps.length > 0) bytes += Buffer.byteLength(JSON.stringify(engineStepsData(steps)));
    steps = [];
    stepEvents = 0;
    context = newRecordContext();
  };
  for (const input of stream) {
    const seq = sizing.nextSeq;
    const outcome = sizing.step({ seq, now_us: (sizeUs += 1), input });
    for (const event of outcome.events) if (event.type === 'Traded') trades++;
    steps.push(encodeStep(seq, sizeUs, input, outcome.events, context));
    stepEvents += outcome.events.length;
    if (steps.length >= STEPS_PER_RECORD || stepEvents >= RECORD_EVENTS_MAX) seal();
  }
  seal();
  return {
    ordersPerS: Math.round(stream.length / (elapsedMs / 1000)),
    recordBytes: Math.round(bytes / stream.length),
    eventsPerOrder: Math.round((events / stream.length) * 100) / 100,
    trades,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = benchDecider(ORDERS);
  console.log(`engine decider alone, ${ORDERS} limit orders, 200 accounts:`, JSON.stringify(result));
  console.log(
    JSON.stringify({
      decider_orders_per_s: result.ordersPerS,
      journal_record_bytes: result.recordBytes,
      events_per_order: result.eventsPerOrder,
      trades: result.trades,
    }),
  );
}
