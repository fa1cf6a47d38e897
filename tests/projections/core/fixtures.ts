// The core read-model tests' journal: histories run through the real engine and journaled as it
// journals them (`EngineSteps` records of facts, record positions increasing), input builders
// with readable defaults, and a helper that runs the projector in a transaction.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type pg from 'pg';
import { Engine, type StepOutcome } from '../../../domain/engine/engine.ts';
import type { EngineEvent } from '../../../domain/engine/events.ts';
import type {
  AccountFields,
  EngineInput,
  MarketFields,
  OrderRequest,
  SportEventFields,
} from '../../../domain/engine/inputs.ts';
import {
  encodeStep,
  ENGINE_STEPS_TYPE,
  engineStepsData,
  newRecordContext,
} from '../../../domain/engine/journal/journal.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import { coreProjector } from '../../../projections/core/projector.ts';
import { CORE_TABLES } from '../../../projections/core/schema.ts';
import type { ProjectionChange, Projector } from '../../../projections/projector.ts';
import { testDatabase, type TestDatabase } from '../../support/pg.ts';
import { order, place as placeInput } from '../../domain/engine/support.ts';

export const T0 = 1_767_225_600_000_000; // 2026-01-01T00:00:00Z in µs
export const HOUR_US = 3_600_000_000;

/** The engine, and its journal: each call to `record` journals the steps of its inputs as one record. */
export class Desk {
  readonly engine = new Engine();
  private position = -1n;
  nowUs = T0;
  /** The outcomes of the last record's inputs. */
  outcomes: StepOutcome[] = [];

  /** One record holding one step per input (every input must be accepted), each a millisecond after the last unless `at` is given. */
  record(inputs: EngineInput | EngineInput[], at?: { nowUs?: number }): RecordedEvent {
    const list = Array.isArray(inputs) ? inputs : [inputs];
    const context = newRecordContext();
    this.outcomes = [];
    const steps = list.map((input) => {
      this.nowUs = at?.nowUs ?? this.nowUs + 1000;
      const seq = this.engine.nextSeq;
      const outcome = this.engine.step({ seq, now_us: this.nowUs, input });
      if (!outcome.ok) throw new Error(`${input.kind} refused: ${JSON.stringify(outcome.error)}`);
      this.outcomes.push(outcome);
      return encodeStep(seq, this.nowUs, input, outcome.events, context);
    });
    this.position += 1n;
    return {
      id: randomUUID(),
      stream: 'engine',
      type: ENGINE_STEPS_TYPE,
      revision: this.position,
      position: this.position,
      data: engineStepsData(steps),
      metadata: {},
      recordedAt: new Date(Math.floor(this.nowUs / 1000)),
    };
  }

  /** The facts of the last record. */
  get facts(): EngineEvent[] {
    return this.outcomes.flatMap((o) => o.events);
  }

  /** The trades of the last record. */
  get trades(): Array<Extract<EngineEvent, { type: 'Traded' }>> {
    return this.facts.filter((e): e is Extract<EngineEvent, { type: 'Traded' }> => e.type === 'Traded');
  }
}

export interface Opened {
  account_id: string;
  user_id: string;
  input: EngineInput;
}

export function openAccount(fields: AccountFields = {}): Opened {
  const account_id = randomUUID();
  const user_id = randomUUID();
  return {
    account_id,
    user_id,
    input: {
      kind: 'OpenAccount',
      account_id,
      user_id,
      fields: { first_name: 'Ada', last_name: 'Lovelace', ...fields },
    },
  };
}

export const deposit = (accountId: string, amount: string): EngineInput => ({
  kind: 'Deposit',
  account_id: accountId,
  entry_id: randomUUID(),
  amount,
});

export function scheduleEvent(over: Partial<SportEventFields> = {}): SportEventFields & { input: EngineInput } {
  const event: SportEventFields = {
    event_id: randomUUID(),
    title: 'Lions at Bears',
    short_title: 'DET @ CHI',
    event_type: 'game',
    sport: 'Football',
    competition: 'NFL',
    participants: ['Lions', 'Bears'],
    start: T0 + 48 * HOUR_US,
    ...over,
  };
  return { ...event, input: { kind: 'ScheduleSportEvent', event } };
}

export function listMarket(eventId: string, over: Partial<MarketFields> = {}): MarketFields & { input: EngineInput } {
  const market: MarketFields = {
    market_id: randomUUID(),
    event_id: eventId,
    title: 'Lions win',
    short_title: 'DET',
    question: 'Will the Lions win?',
    rules: 'Resolves on the official result.',
    symbol: null,
    grouping_id: randomUUID(),
    grouping_name: 'Moneyline',
    featured: false,
    status: 'open',
    trading: true,
    max_price: '1.00',
    in_play_delay_sec: 0,
    points_cost: 100,
    ...over,
  };
  return { ...market, input: { kind: 'ListMarket', market } };
}

export interface Placed {
  id: string;
  input: EngineInput;
}

/** A limit order (a market order when `price` is null). */
export function place(
  accountId: string,
  marketId: string,
  action: 'buy' | 'sell',
  price: string | null,
  quantity: string,
  extra: Partial<OrderRequest> = {},
): Placed {
  const request = order(randomUUID(), action, price, quantity, {
    market_id: marketId,
    ip_address: '203.0.113.7',
    ...extra,
  });
  return { id: request.order_id, input: placeInput(accountId, request) };
}

export const cancel = (accountId: string, orderId: string): EngineInput => ({
  kind: 'CancelOrder',
  account_id: accountId,
  order_id: orderId,
});

export interface ProjectedDb {
  db: TestDatabase;
  projector: Projector;
  project(...records: RecordedEvent[]): Promise<ProjectionChange[]>;
}

/** A fresh database with the core tables, and a way to feed the projector one batch at a time. */
export async function projectedDatabase(): Promise<ProjectedDb> {
  const db = await testDatabase();
  const projector = coreProjector();
  await db.pool.query(projector.schemaSql);
  return {
    db,
    projector,
    async project(...records) {
      const client = await db.pool.connect();
      try {
        await client.query('BEGIN');
        const changes = (await projector.handle(client, records)) ?? [];
        await client.query('COMMIT');
        return changes;
      } catch (err) {
        await client.query('ROLLBACK');
        throw err;
      } finally {
        client.release();
      }
    },
  };
}

/** Every core table's rows, for before/after comparisons. */
export async function dumpTables(pool: pg.Pool, tables: readonly string[]): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of tables) {
    const result = await pool.query(`SELECT to_jsonb(t) AS row FROM ${table} t ORDER BY to_jsonb(t)::text`);
    out[table] = result.rows.map((r: { row: unknown }) => r.row);
  }
  return out;
}

/**
 * Projects the whole journal `records` into fresh tables, and then again: after each pass every
 * core table holds the very rows it holds in `livePool`.
 */
export async function expectReplayedAlike(records: RecordedEvent[], livePool: pg.Pool): Promise<void> {
  const live = await dumpTables(livePool, CORE_TABLES);
  const fresh = await projectedDatabase();
  try {
    await fresh.project(...records);
    expect(await dumpTables(fresh.db.pool, CORE_TABLES)).to.deep.equal(live);
    await fresh.project(...records);
    expect(await dumpTables(fresh.db.pool, CORE_TABLES)).to.deep.equal(live);
  } finally {
    await fresh.db.drop();
  }
}

/**
 * A suite's trading desk: members alice (with `alice`'s fields) and bob, 1000 each, one sport
 * event and a market on it for each entry of `markets`, journaled and projected into a fresh database before the
 * suite; the database is dropped after it. `run` journals inputs as one record and projects it;
 * `feed` projects records and keeps them in `records` (what a replay starts from).
 */
export function useTwoMemberDesk<const M extends readonly Partial<MarketFields>[]>(options: {
  /** One entry a market, its fields over the defaults. */
  markets: M;
  alice?: AccountFields;
}) {
  const desk = new Desk();
  const event = scheduleEvent();
  const suite = {
    /** The projected database, set before the suite runs. */
    p: undefined as unknown as ProjectedDb,
    desk,
    records: [] as RecordedEvent[],
    alice: openAccount(options.alice),
    bob: openAccount(),
    event,
    markets: options.markets.map((over) => listMarket(event.event_id, over)) as {
      [K in keyof M]: ReturnType<typeof listMarket>;
    },
    async feed(...steps: RecordedEvent[]): Promise<ProjectionChange[]> {
      suite.records.push(...steps);
      return suite.p.project(...steps);
    },
    async run(input: Parameters<Desk['record']>[0]): Promise<ProjectionChange[]> {
      return suite.feed(desk.record(input));
    },
  };
  before(async () => {
    const { alice, bob, markets } = suite;
    suite.p = await projectedDatabase();
    await suite.run([alice.input, bob.input, deposit(alice.account_id, '1000'), deposit(bob.account_id, '1000')]);
    await suite.run([event.input, ...markets.map((m) => m.input)]);
  });
  after(async () => suite.p.db.drop());
  return suite;
}
