// Engine journal records for member projection tests: a small market's life (accounts, an
// event, a market, orders, a trade, fees, a settlement, transfers and loyalty entries), built
// from the shared wire views so the projectors see exactly what the engine writes.

import type pg from 'pg';
import type { EngineEvent } from '../../../domain/engine/events.ts';
import type {
  AccountView, BalanceView, FillView, LedgerEntryView, MarketStateView, OrderView, PositionView, SportEventView,
} from '../../../domain/views.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import type { Projector } from '../../../projections/projector.ts';

export const ALICE = '00000000-0000-4000-8000-00000000000a';
export const BOB = '00000000-0000-4000-8000-00000000000b';
export const EVENT = '00000000-0000-4000-8000-0000000000e1';
export const MARKET = '00000000-0000-4000-8000-0000000000f1';
export const MARKET2 = '00000000-0000-4000-8000-0000000000f2';
export const T0 = Date.UTC(2026, 5, 1, 12) * 1000;
const iso = (us: number) => new Date(us / 1000).toISOString();
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

export function account(account_id: string, fields: Partial<AccountView> = {}): AccountView {
  return {
    account_id, user_id: account_id.replace(/^0/, '1'), status: 'active', first_name: 'First', last_name: 'Last', email: null,
    jurisdiction: 'us', fee_schedule: 'fixed_percent', base_fee_percent: 1, maker_factor: null, taker_factor: null,
    loyalty_tier: 'rookie', created_at: T0, updated_at: T0, ...fields,
  };
}

export function balance(account_id: string, fields: Partial<BalanceView> = {}): BalanceView {
  return {
    account_id, user_id: account_id.replace(/^0/, '1'), account_balance: '100', available_balance: '100', buy_order_liability: '0',
    sell_order_liability: '0', position_premium_liability: '0', escrow: '0', fee_schedule: 'fixed_percent', base_fee_percent: 1,
    maker_factor: null, taker_factor: null, loyalty_tier: 'rookie', points: 0, total_adjustments: '0', total_deposits: '100',
    total_withdrawals: '0', total_fees: '0', total_settlement_pnl: '0', total_traded: '0', total_trade_count: 0, seq: 0, ...fields,
  };
}

export function sportEvent(fields: Partial<SportEventView> = {}): SportEventView {
  return {
    event_id: EVENT, title: 'Home v Away', short_title: null, event_type: 'match', sport: 'Ice Hockey', competition: 'NHL',
    participants: [], start: T0 + 3_600_000_000, status: 'scheduled', started_at: null, ...fields,
  };
}

export function market(market_id: string, fields: Partial<MarketStateView> = {}): MarketStateView {
  return {
    market_id, event_id: EVENT, title: `Market ${market_id.slice(-2)}`, short_title: null, question: null, rules: null, symbol: null,
    grouping_id: 'g', grouping_name: null, featured: false, status: 'open', trading: true, max_price: '1.00', in_play_delay_sec: 0,
    points_cost: 0, result: null, settled_at: null, last_traded_price: null, created_at: T0, updated_at: T0, seq: 0, ...fields,
  };
}

export function order(id: number, account_id: string, market_id: string, fields: Partial<OrderView> = {}): OrderView {
  return {
    id: uuid(id), account_id, market_id, action: 'buy', order_type: 'limit', status: 'open', quantity: '10', filled: '0',
    filled_percentage: 0, price: '0.40', avg_price: null, total_value: '0', amount: null, filled_amount: null, client_order_id: null,
    device_id: null, ip_address: null, expiration: null, expiration_time: null, expires_at: null, accepted_at: T0, delayed_until: null,
    inserted_at: T0, time: iso(T0), placed_pre_start: true, fix_order: false, cancellation_reason: null, rejection_reason: null,
    odds_type: null, odds_value: null, cancel_on_disconnect: false, seq: 0, ...fields,
  };
}

export function fill(trade: number, orderId: number, account_id: string, market_id: string, fields: Partial<FillView> = {}): FillView {
  return {
    trade_id: uuid(1000 + trade), order_id: uuid(orderId), account_id, market_id, event_id: EVENT, client_order_id: null, action: 'buy',
    status: 'open', liquidity_action: 'taker', price: '0.40', filled: '5', traded_contracts: '5', original_filled: '5', original_price: '0.40',
    original_premium: '2', original_risk: '2', original_to_win: '3', amended: false, last_modified_at: null, last_modified_by_admin_id: null,
    admin_log: null, closed_contracts: '0', expired_contracts: '0', settled_contracts: '0', remaining: '5', virtual_remaining: '5', closing: '0',
    closed_fee: '0', expired_fee: '0', closed_pnl: '0', expired_pnl: '0', closed_net_pnl: '0', expired_net_pnl: '0', gross_pnl: '0',
    pc_premium: '0.40', pc_risk: '0.40', pc_to_win: '0.60', remaining_potential_fee: '0.02', remaining_premium: '2', remaining_risk: '2',
    remaining_to_win: '3', trade_fee: '0.02', unrounded_trade_fee: '0.02', total_fee: '0.02', points: 0, settlements_count: 0,
    placed_pre_start: true, pre_start: true, device_id: null, ip_address: null, opened_at: T0, expires_at: null, settled_at: null,
    inserted_at: T0, updated_at: T0, time: iso(T0), seq: 0, ...fields,
  };
}

export function position(account_id: string, market_id: string, net: string): PositionView {
  return {
    account_id, market_id, event_id: EVENT, position: net, side: net.startsWith('-') ? 'short' : net === '0' ? 'flat' : 'long',
    contracts: net.replace('-', ''), avg_price: '0.40', premium: '2', risk: '2', to_win: '3', realized_pnl: '0', fees: '0',
    market_max_price: '1.00', updated_at: T0, seq: 0,
  };
}

export function entry(id: number, account_id: string, type: LedgerEntryView['type'], amount: string, at: number, fields: Partial<LedgerEntryView> = {}): LedgerEntryView {
  return {
    id: uuid(5000 + id), account_id, type, amount, points: 0, event_id: null, market_id: null, fee_id: null, payment_id: null,
    settlement_id: null, fee_source: null, trade_id: null, method: null, reason: null, sub_method: null, referee_account_id: null,
    referrer_account_id: null, inserted_at: at, time: iso(at), seq: 0, ...fields,
  };
}

/** Wraps engine events into journal records on stream `engine`, one per step. */
export class Journal {
  readonly records: RecordedEvent[] = [];
  private seq = 0;
  constructor(private positionBase = 0n) {}
  step(now_us: number, events: EngineEvent[]): this {
    this.seq += 1;
    const position = this.positionBase + BigInt(this.records.length);
    this.records.push({
      id: uuid(90000 + this.seq), stream: 'engine', type: 'EngineStep', revision: BigInt(this.seq - 1), position,
      data: { seq: this.seq, now_us, input: { kind: 'Tick' }, events: JSON.parse(JSON.stringify(events)) }, metadata: {}, recordedAt: new Date(0),
    });
    return this;
  }
}

/** A small market life: two accounts trade, fees are charged and refunded, the market resolves. */
export function marketLife(): Journal {
  const j = new Journal();
  const settledAt = T0 + 7_200_000_000;
  j.step(T0, [
    { type: 'AccountOpened', account: account(ALICE), balance: balance(ALICE) },
    { type: 'AccountOpened', account: account(BOB, { jurisdiction: 'ca' }), balance: balance(BOB) },
  ]);
  j.step(T0 + 1, [{ type: 'SportEventScheduled', event: sportEvent() }, { type: 'MarketListed', market: market(MARKET) }, { type: 'MarketListed', market: market(MARKET2) }]);
  j.step(T0 + 2, [{ type: 'OrderPlaced', order: order(1, BOB, MARKET, { action: 'sell', price: '0.40', quantity: '5' }) }]);
  j.step(T0 + 3, [
    { type: 'OrderPlaced', order: order(2, ALICE, MARKET, { quantity: '10', status: 'open' }) },
    { type: 'TradeExecuted', trade_id: uuid(1001), market_id: MARKET, price: '0.40', quantity: '5', executed_at: T0 + 3,
      provider: fill(1, 1, BOB, MARKET, { action: 'sell', liquidity_action: 'provider', remaining_risk: '3', remaining_to_win: '2', original_risk: '3', pc_risk: '0.60', pc_to_win: '0.40', inserted_at: T0 + 3 }),
      taker: fill(1, 2, ALICE, MARKET, { inserted_at: T0 + 3 }) },
    { type: 'OrderChanged', order: order(1, BOB, MARKET, { action: 'sell', quantity: '5', filled: '5', status: 'filled' }) },
    { type: 'OrderChanged', order: order(2, ALICE, MARKET, { quantity: '10', filled: '5', status: 'open' }) },
    { type: 'PositionChanged', position: position(ALICE, MARKET, '5') },
    { type: 'PositionChanged', position: position(BOB, MARKET, '-5') },
    { type: 'LedgerEntryRecorded', entry: entry(1, ALICE, 'fee', '-0.02', T0 + 3, { market_id: MARKET, event_id: EVENT, fee_source: 'trade' }) },
    { type: 'LedgerEntryRecorded', entry: entry(2, BOB, 'fee', '0', T0 + 3, { market_id: MARKET, event_id: EVENT, fee_source: 'trade' }) },
  ]);
  j.step(T0 + 4, [
    { type: 'OrderPlaced', order: order(3, ALICE, MARKET2, { quantity: '4', price: '0.30' }) },
    { type: 'OrderChanged', order: order(3, ALICE, MARKET2, { quantity: '4', price: '0.30', status: 'cancelled' }) },
    { type: 'OrderPlaced', order: order(4, ALICE, MARKET2, { quantity: '4', price: '0.99', status: 'rejected' }) },
  ]);
  j.step(settledAt, [
    { type: 'MarketChanged', market: market(MARKET, { status: 'resulted', result: 'win', settled_at: settledAt }) },
    { type: 'FillChanged', fill: fill(1, 2, ALICE, MARKET, { status: 'settled', remaining: '0', remaining_risk: '0', remaining_to_win: '0', remaining_premium: '0', remaining_potential_fee: '0', expired_contracts: '5', settled_contracts: '5', expired_pnl: '3', expired_net_pnl: '2.98', settlements_count: 1, settled_at: iso(settledAt), inserted_at: T0 + 3 }) },
    { type: 'FillChanged', fill: fill(1, 1, BOB, MARKET, { action: 'sell', liquidity_action: 'provider', status: 'settled', remaining: '0', remaining_risk: '0', remaining_to_win: '0', remaining_premium: '0', remaining_potential_fee: '0', expired_contracts: '5', settled_contracts: '5', expired_pnl: '-3', expired_net_pnl: '-3', settlements_count: 1, settled_at: iso(settledAt), inserted_at: T0 + 3 }) },
    { type: 'PositionChanged', position: position(ALICE, MARKET, '0') },
    { type: 'PositionChanged', position: position(BOB, MARKET, '0') },
    { type: 'LedgerEntryRecorded', entry: entry(3, ALICE, 'settlement', '3', settledAt, { market_id: MARKET }) },
    { type: 'LedgerEntryRecorded', entry: entry(4, ALICE, 'fee_refund', '0.01', settledAt, { market_id: MARKET, fee_source: 'settlement' }) },
    { type: 'MarketSettled', market_id: MARKET, result: 'win', settled_at: settledAt, settlement_id: uuid(7000) },
  ]);
  j.step(settledAt + 1, [
    { type: 'LedgerEntryRecorded', entry: entry(5, ALICE, 'withdrawal', '-10', settledAt + 1, { method: 'interac', reason: 'cash out', sub_method: 'Send' }) },
    { type: 'LedgerEntryRecorded', entry: entry(6, ALICE, 'rollup', '0', settledAt + 1, { points: 12 }) },
    { type: 'LedgerEntryRecorded', entry: entry(7, ALICE, 'referral', '0', settledAt + 2, { points: 50, referee_account_id: BOB, referrer_account_id: ALICE }) },
    { type: 'LedgerEntryRecorded', entry: entry(8, ALICE, 'adjustment', '5', settledAt + 3, { reason: 'goodwill' }) },
    { type: 'LedgerEntryRecorded', entry: entry(9, ALICE, 'deposit', '50', settledAt + 4) },
  ]);
  return j;
}

/** Creates a projector's tables in a schema and feeds it the records in batches, as the runner would. */
export async function project(pool: pg.Pool, schema: string, projector: Projector, records: readonly RecordedEvent[], batchSize: number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`SET search_path TO ${schema}`);
    await client.query(projector.schemaSql);
    const wanted = records.filter((r) =>
      (!projector.filter?.streamPrefixes || projector.filter.streamPrefixes.some((p) => r.stream.startsWith(p))) &&
      (!projector.filter?.eventTypes || projector.filter.eventTypes.includes(r.type)));
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
