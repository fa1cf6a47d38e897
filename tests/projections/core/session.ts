// A seeded random trading session run through the real engine: accounts with deposits, one
// sport event, a few open markets, then limit and market orders that cross, cancels, trading
// halts, operator catalogue changes (event and market fields, one market listed with them),
// and finally one market resulted and then archived. Each accepted input becomes one record,
// as the engine journals it (an `EngineSteps` record of facts). Same seed, same session.

import { randomUUID } from 'node:crypto';
import { decimalOf, plus, ZERO, type Decimal } from '../../../domain/money/decimal.ts';
import {
  encodeStep,
  ENGINE_STEPS_TYPE,
  engineStepsData,
  newRecordContext,
  type EngineStepsData,
} from '../../../domain/engine/journal/journal.ts';
import { FoldedViews } from '../../support/views.ts';
import type { EngineEvent } from '../../../domain/engine/events.ts';
import { Engine } from '../../../domain/engine/engine.ts';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import type { BalanceView, OrderView, PositionView } from '../../../domain/views.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import { seededRandom } from '../../../domain/random.ts';
import { HOUR_US, T0 } from './fixtures.ts';

/** Small seeded generator (mulberry32). */
export const seeded = seededRandom;

export function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export interface EngineStepData {
  seq: number;
  now_us: number;
  input: EngineInput;
  events: EngineEvent[];
}

export interface Session {
  steps: EngineStepData[];
  accountIds: string[];
  marketIds: string[];
  /** The engine time of the last step. */
  nowUs: number;
}

export function engineSession(options: {
  seed: number;
  accounts?: number;
  markets?: number;
  inputs?: number;
}): Session {
  const random = seeded(options.seed);
  const engine = new Engine();
  const steps: EngineStepData[] = [];
  let seq = 0;
  let nowUs = T0;
  const run = (input: EngineInput): void => {
    nowUs += 1_000_000;
    const outcome = engine.step({ seq: seq + 1, now_us: nowUs, input });
    if (!outcome.ok || outcome.events.length === 0) return; // refused inputs are not journaled
    seq += 1;
    steps.push({ seq, now_us: nowUs, input, events: outcome.events });
  };
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

  const accountIds = Array.from({ length: options.accounts ?? 6 }, () => uuidFrom(random));
  const marketIds = Array.from({ length: options.markets ?? 3 }, () => uuidFrom(random));
  const eventId = uuidFrom(random);
  for (const accountId of accountIds) {
    run({ kind: 'OpenAccount', account_id: accountId, user_id: uuidFrom(random), fields: {} });
    run({ kind: 'Deposit', account_id: accountId, entry_id: uuidFrom(random), amount: '1000' });
  }
  run({
    kind: 'ScheduleSportEvent',
    event: {
      event_id: eventId,
      title: 'Lions at Bears',
      start: T0 + 48 * HOUR_US,
      short_title: null,
      event_type: 'game',
      sport: 'Football',
      competition: 'NFL',
      participants: ['Lions', 'Bears'],
    },
  });
  marketIds.forEach((marketId, i) => {
    run({
      kind: 'ListMarket',
      market: {
        market_id: marketId,
        event_id: eventId,
        title: 'Lions win',
        max_price: '1.00',
        status: 'open',
        trading: true,
        in_play_delay_sec: 0,
        points_cost: 100,
        grouping_id: uuidFrom(random),
        grouping_name: 'Moneyline',
        symbol: null,
        question: null,
        rules: null,
        short_title: null,
        featured: false,
      },
      ...(i === 0
        ? {
            details: {
              filters: ['nfl', 'moneyline'],
              keywords: ['lions'],
              stat_detail: { stat: 'points', line: 2.5 },
              featured_home: true,
            },
          }
        : {}),
    });
  });
  run({
    kind: 'UpdateSportEvent',
    event_id: eventId,
    changes: {
      title: 'Lions at Bears (rescheduled)',
      participants: ['Detroit Lions', 'Chicago Bears'],
      start: T0 + 72 * HOUR_US,
    },
  });
  run({
    kind: 'UpdateMarket',
    market_id: marketIds[0] as string,
    changes: {
      symbol: 'LIONS-BEARS',
      description: 'Detroit win outright',
      position: 'home',
      trading_filters: ['live'],
    },
  });
  const placed: Array<{ orderId: string; accountId: string }> = [];
  for (let i = 0; i < (options.inputs ?? 600); i++) {
    const roll = random();
    if (roll < 0.75) {
      const orderId = uuidFrom(random);
      const accountId = pick(accountIds);
      placed.push({ orderId, accountId });
      const isMarket = random() < 0.1;
      run({
        kind: 'PlaceOrder',
        account_id: accountId,
        order: {
          order_id: orderId,
          market_id: pick(marketIds),
          action: random() < 0.5 ? 'buy' : 'sell',
          order_type: isMarket ? 'market' : 'limit',
          price: isMarket ? null : (0.3 + Math.floor(random() * 40) / 100).toFixed(2),
          quantity: String(1 + Math.floor(random() * 15)),
          client_order_id: `c-${i}`,
          device_id: null,
          ip_address: null,
          expiration: null,
          expiration_time: null,
          cancel_on_disconnect: false,
        },
      });
    } else if (roll < 0.95 && placed.length > 0) {
      const { orderId, accountId } = pick(placed);
      run({ kind: 'CancelOrder', account_id: accountId, order_id: orderId });
    } else {
      run({ kind: 'ChangeMarketStatus', market_id: pick(marketIds), trading: random() < 0.6 });
    }
  }
  run({
    kind: 'UpdateMarket',
    market_id: marketIds[0] as string,
    changes: { keywords: ['lions', 'bears'], manual_probability: true },
    trading: true,
  });
  run({ kind: 'ResultMarket', market_id: marketIds[marketIds.length - 1] as string, result: 'win' });
  run({
    kind: 'UpdateMarket',
    market_id: marketIds[marketIds.length - 1] as string,
    changes: { powered_by: 'Opta' },
    archived: true,
  });
  return { steps, accountIds, marketIds, nowUs };
}

/** One step as the engine journals it: an `EngineSteps` record (version 4, facts) holding that step. */
export function stepRecordData(step: EngineStepData): EngineStepsData {
  return engineStepsData([encodeStep(step.seq, step.now_us, step.input, step.events, newRecordContext())]);
}

/** The steps as recorded events at positions 0, 1, 2, … (what a subscription would deliver). */
export function recordsOf(steps: readonly EngineStepData[]): RecordedEvent[] {
  return steps.map((step, i) => ({
    id: randomUUID(),
    stream: 'engine',
    type: ENGINE_STEPS_TYPE,
    revision: BigInt(i),
    position: BigInt(i),
    data: stepRecordData(step),
    metadata: {},
    recordedAt: new Date(0),
  }));
}

/** The last state of every entity in the session, folded from its facts: what the read models must show. */
export function finalSnapshots(steps: readonly EngineStepData[]) {
  const views = new FoldedViews();
  const volume = new Map<string, Decimal>();
  for (const step of steps) {
    views.step(step.seq, step.now_us, step.events);
    for (const event of step.events)
      if (event.type === 'Traded')
        volume.set(event.market_id, plus(volume.get(event.market_id) ?? ZERO, decimalOf(event.quantity)));
  }
  const orders = new Map<string, OrderView>([...views.store.orders.keys()].map((id) => [id, views.order(id)]));
  const balances = new Map<string, BalanceView>([...views.store.accounts.keys()].map((id) => [id, views.balance(id)]));
  const positions = new Map<string, PositionView>();
  for (const { record } of views.store.positions.values())
    positions.set(`${record.accountId}|${record.marketId}`, views.position(record.accountId, record.marketId)!);
  return { orders, balances, positions, volume };
}
