// Engine journal records for member projection tests: a small market's life (accounts, an
// event, two markets, orders, trades, fees and a refund, a settlement with loyalty points,
// transfers), run through the engine and journaled as it journals them.

import type pg from 'pg';
import type { EngineInput, OrderRequest } from '../../../domain/engine/inputs.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import type { Projector } from '../../../projections/projector.ts';
import { Desk } from '../core/fixtures.ts';
import { market, order, place as placeInput } from '../../domain/engine/support.ts';

export const ALICE = '00000000-0000-4000-8000-00000000000a';
export const BOB = '00000000-0000-4000-8000-00000000000b';
export const EVENT = '00000000-0000-4000-8000-0000000000e1';
export const MARKET = '00000000-0000-4000-8000-0000000000f1';
export const MARKET2 = '00000000-0000-4000-8000-0000000000f2';
export const T0 = Date.UTC(2026, 5, 1, 12) * 1000;
export const SETTLED_AT = T0 + 7_200_000_000;
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

/** The user id the member harness gives an account (its principal's). */
export const userIdOf = (accountId: string): string => accountId.replace(/^0/, '1');

export function openAccount(
  accountId: string,
  fields: Extract<EngineInput, { kind: 'OpenAccount' }>['fields'] = {},
): EngineInput {
  return {
    kind: 'OpenAccount',
    account_id: accountId,
    user_id: userIdOf(accountId),
    fields: { first_name: 'First', last_name: 'Last', created_at: T0, ...fields },
  };
}

export function scheduleEvent(
  eventId: string,
  over: Partial<Extract<EngineInput, { kind: 'ScheduleSportEvent' }>['event']> = {},
): EngineInput {
  return {
    kind: 'ScheduleSportEvent',
    event: {
      event_id: eventId,
      title: 'Home v Away',
      short_title: null,
      event_type: 'match',
      sport: 'Ice Hockey',
      competition: 'NHL',
      participants: [],
      start: T0 + 3_600_000_000,
      ...over,
    },
  };
}

export function listMarket(
  marketId: string,
  eventId: string,
  over: Partial<Extract<EngineInput, { kind: 'ListMarket' }>['market']> = {},
): EngineInput {
  return market(marketId, { event_id: eventId, title: `Market ${marketId.slice(-2)}`, ...over });
}

export function place(
  n: number,
  accountId: string,
  marketId: string,
  action: 'buy' | 'sell',
  price: string,
  quantity: string,
  extra: Partial<OrderRequest> = {},
): EngineInput {
  return placeInput(accountId, order(uuid(n), action, price, quantity, { market_id: marketId, ...extra }));
}

export const orderId = uuid;

/**
 * A small market life, step by step: Bob (who pays no fees) sells 5 to Alice at 0.40, Alice's
 * other orders are cancelled and refused, the market resolves for Alice (points credited), a
 * trade in the other market is amended down (a fee refund), then money moves in and out.
 */
export function marketLifeSteps(): Array<{ nowUs: number; inputs: EngineInput[] }> {
  return [
    {
      nowUs: T0,
      inputs: [
        openAccount(ALICE),
        openAccount(BOB, { jurisdiction: 'ca', base_fee_percent: 0 }),
        { kind: 'Deposit', account_id: ALICE, entry_id: uuid(5001), amount: '100' },
        { kind: 'Deposit', account_id: BOB, entry_id: uuid(5002), amount: '100' },
      ],
    },
    {
      nowUs: T0 + 1,
      inputs: [scheduleEvent(EVENT), listMarket(MARKET, EVENT, { points_cost: 0.5 }), listMarket(MARKET2, EVENT)],
    },
    { nowUs: T0 + 2, inputs: [place(1, BOB, MARKET, 'sell', '0.40', '5')] },
    { nowUs: T0 + 3, inputs: [place(2, ALICE, MARKET, 'buy', '0.40', '10')] },
    {
      nowUs: T0 + 4,
      inputs: [
        place(3, ALICE, MARKET2, 'buy', '0.30', '4'),
        { kind: 'CancelOrder', account_id: ALICE, order_id: uuid(3) },
        place(4, ALICE, MARKET2, 'buy', '0.99', '400'),
      ],
    },
    { nowUs: SETTLED_AT, inputs: [{ kind: 'ResultMarket', market_id: MARKET, result: 'win' }] },
    {
      nowUs: SETTLED_AT + 1,
      inputs: [place(5, BOB, MARKET2, 'sell', '0.50', '10'), place(6, ALICE, MARKET2, 'buy', '0.50', '10')],
    },
    {
      nowUs: SETTLED_AT + 2,
      inputs: [
        {
          kind: 'Withdraw',
          account_id: ALICE,
          entry_id: uuid(5005),
          amount: '10',
          method: 'interac',
          reason: 'cash out',
          sub_method: 'Send',
        },
      ],
    },
    {
      nowUs: SETTLED_AT + 3,
      inputs: [{ kind: 'Adjust', account_id: ALICE, entry_id: uuid(5008), amount: '5', reason: 'goodwill' }],
    },
    { nowUs: SETTLED_AT + 4, inputs: [{ kind: 'Deposit', account_id: ALICE, entry_id: uuid(5009), amount: '50' }] },
  ];
}

/** The trade of the other market, amended down after the fact: Alice's fee of 0.05 becomes 0.03. */
export function amendment(facts: ReadonlyArray<{ type: string; taker_fill_id?: string }>): EngineInput {
  const trade = facts.find((f) => f.type === 'Traded');
  if (!trade?.taker_fill_id) throw new Error('no trade to amend');
  return { kind: 'AmendFill', trade_id: trade.taker_fill_id, price: '0.30' };
}

/** When the operator archives the other market, after the market life. */
export const ARCHIVED_AT = SETTLED_AT + 10;

/**
 * The market life as journal records, one per step, then the operator's catalogue changes: the
 * event renamed, the other market given catalogue fields, then archived.
 */
export function marketLife(): { records: RecordedEvent[] } {
  const desk = new Desk();
  const records: RecordedEvent[] = [];
  for (const { nowUs, inputs } of marketLifeSteps()) {
    records.push(desk.record(inputs, { nowUs }));
    if (inputs.some((i) => i.kind === 'PlaceOrder' && i.order.order_id === uuid(6)))
      records.push(desk.record(amendment(desk.facts), { nowUs: nowUs + 1 }));
  }
  records.push(
    desk.record(
      [
        {
          kind: 'UpdateSportEvent',
          event_id: EVENT,
          changes: { title: 'Home v Away (renamed)', participants: ['Home', 'Away'] },
        },
        {
          kind: 'UpdateMarket',
          market_id: MARKET2,
          changes: { keywords: ['second'], stat_detail: { line: 1.5 }, description: 'The other market' },
        },
      ],
      { nowUs: ARCHIVED_AT - 1 },
    ),
  );
  records.push(
    desk.record({ kind: 'UpdateMarket', market_id: MARKET2, changes: {}, archived: true }, { nowUs: ARCHIVED_AT }),
  );
  return { records };
}

/** Creates a projector's tables in a schema and feeds it the records in batches, as the runner would. */
export async function project(
  pool: pg.Pool,
  schema: string,
  projector: Projector,
  records: readonly RecordedEvent[],
  batchSize: number,
): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`SET search_path TO ${schema}`);
    await client.query(projector.schemaSql);
    const wanted = records.filter(
      (r) =>
        (!projector.filter?.streamPrefixes || projector.filter.streamPrefixes.some((p) => r.stream.startsWith(p))) &&
        (!projector.filter?.eventTypes || projector.filter.eventTypes.includes(r.type)),
    );
    for (let i = 0; i < wanted.length; i += batchSize) {
      await client.query('BEGIN');
      await projector.handle(client, wanted.slice(i, i + batchSize));
      await client.query('COMMIT');
    }
  } finally {
    await client.query('RESET search_path').catch(() => undefined);
    client.release();
  }
}

/** Every row of the projector's tables, in a stable order, for comparing two builds. */
export async function dump(pool: pg.Pool, schema: string, projector: Projector): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const table of projector.tables) {
    const result = await pool.query(`SELECT to_jsonb(t) AS row FROM ${schema}.${table} t`);
    out[table] = result.rows.map((r) => JSON.stringify(r.row)).sort();
  }
  return out;
}
