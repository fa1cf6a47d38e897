// Hand-built engine journal records for the core read-model tests: a feed that numbers steps
// like the engine does (one EngineStep record per input, seq and position increasing), view
// builders with SPEC-shaped defaults, and a helper that runs the projector in a transaction.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { usToIso } from '../../../domain/clock.ts';
import type { EngineEvent } from '../../../domain/engine/events.ts';
import type {
  AccountView, BalanceView, FillView, LedgerEntryView, MarketStateView, OrderView, PositionView, SportEventView,
} from '../../../domain/views.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import { coreProjector } from '../../../projections/core/projector.ts';
import type { ProjectionChange, Projector } from '../../../projections/projector.ts';
import { testDatabase, type TestDatabase } from '../../support/pg.ts';

export const T0 = 1_767_225_600_000_000; // 2026-01-01T00:00:00Z in µs
export const HOUR_US = 3_600_000_000;

export class Journal {
  private position = 0n;
  seq = 0;
  nowUs = T0;

  /** One engine step: the next seq and position, at the journal's current time. */
  step(events: EngineEvent[], at?: { seq?: number; nowUs?: number; position?: bigint }): RecordedEvent {
    this.seq = at?.seq ?? this.seq + 1;
    this.position = at?.position ?? this.position + 1n;
    const nowUs = at?.nowUs ?? this.nowUs;
    return {
      id: randomUUID(),
      stream: 'engine',
      type: 'EngineStep',
      revision: this.position,
      position: this.position,
      data: { seq: this.seq, now_us: nowUs, input: { kind: 'Tick' }, events },
      metadata: {},
      recordedAt: new Date(Math.floor(nowUs / 1000)),
    };
  }
}

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

// ── view builders ─────────────────────────────────────────────────────────────────────────

export function account(over: Partial<AccountView> = {}): AccountView {
  return {
    account_id: randomUUID(), user_id: randomUUID(), status: 'active', first_name: 'Ada', last_name: 'Lovelace', email: null,
    jurisdiction: 'us', fee_schedule: 'fixed_percent', base_fee_percent: 1, maker_factor: null, taker_factor: null,
    loyalty_tier: 'rookie', created_at: T0, updated_at: T0, ...over,
  };
}

export function balance(of: AccountView, over: Partial<BalanceView> = {}): BalanceView {
  return {
    account_id: of.account_id, user_id: of.user_id, account_balance: '0', available_balance: '0', buy_order_liability: '0',
    sell_order_liability: '0', position_premium_liability: '0', escrow: '0', fee_schedule: of.fee_schedule,
    base_fee_percent: of.base_fee_percent, maker_factor: of.maker_factor, taker_factor: of.taker_factor, loyalty_tier: 'rookie',
    points: 0, total_adjustments: '0', total_deposits: '0', total_withdrawals: '0', total_fees: '0', total_settlement_pnl: '0',
    total_traded: '0', total_trade_count: 0, seq: 0, ...over,
  };
}

export function sportEvent(over: Partial<SportEventView> = {}): SportEventView {
  return {
    event_id: randomUUID(), title: 'Lions at Bears', short_title: 'DET @ CHI', event_type: 'game', sport: 'Football',
    competition: 'NFL', participants: ['Lions', 'Bears'], start: T0 + 48 * HOUR_US, status: 'scheduled', started_at: null, ...over,
  };
}

export function market(event: SportEventView, over: Partial<MarketStateView> = {}): MarketStateView {
  return {
    market_id: randomUUID(), event_id: event.event_id, title: 'Lions win', short_title: 'DET', question: 'Will the Lions win?',
    rules: 'Resolves on the official result.', symbol: null, grouping_id: randomUUID(), grouping_name: 'Moneyline', featured: false,
    status: 'open', trading: true, max_price: '1.00', in_play_delay_sec: 0, points_cost: 100, result: null, settled_at: null,
    last_traded_price: null, created_at: T0, updated_at: T0, seq: 0, ...over,
  };
}

export function order(of: AccountView, mkt: MarketStateView, over: Partial<OrderView> = {}): OrderView {
  const insertedAt = over.inserted_at ?? T0;
  return {
    id: randomUUID(), account_id: of.account_id, market_id: mkt.market_id, action: 'buy', order_type: 'limit', status: 'open',
    quantity: '10', filled: '0', filled_percentage: 0, price: '0.40', avg_price: null, total_value: '0', amount: null,
    filled_amount: null, client_order_id: null, device_id: null, ip_address: '203.0.113.7', expiration: null, expiration_time: null,
    expires_at: null, accepted_at: insertedAt, delayed_until: null, inserted_at: insertedAt, time: usToIso(insertedAt),
    placed_pre_start: true, fix_order: false, cancellation_reason: null, rejection_reason: null, odds_type: null, odds_value: null,
    cancel_on_disconnect: false, seq: 0, ...over,
  };
}

export function fill(of: OrderView, over: Partial<FillView> = {}): FillView {
  const at = over.inserted_at ?? T0;
  const price = over.price ?? of.price ?? '0.40';
  const filled = over.filled ?? '1';
  return {
    trade_id: randomUUID(), order_id: of.id, account_id: of.account_id, market_id: of.market_id, event_id: null,
    client_order_id: of.client_order_id, action: of.action, status: 'open', liquidity_action: 'taker', price, filled,
    traded_contracts: filled, original_filled: filled, original_price: price, original_premium: '0', original_risk: '0',
    original_to_win: '0', amended: false, last_modified_at: null, last_modified_by_admin_id: null, admin_log: null,
    closed_contracts: '0', expired_contracts: '0', settled_contracts: '0', remaining: filled, virtual_remaining: filled,
    closing: '0', closed_fee: '0', expired_fee: '0', closed_pnl: '0', expired_pnl: '0', closed_net_pnl: '0', expired_net_pnl: '0',
    gross_pnl: '0', pc_premium: price, pc_risk: price, pc_to_win: '0', remaining_potential_fee: '0', remaining_premium: '0',
    remaining_risk: '0', remaining_to_win: '0', trade_fee: '0', unrounded_trade_fee: '0', total_fee: '0', points: 0,
    settlements_count: 0, placed_pre_start: true, pre_start: true, device_id: null, ip_address: null, opened_at: at,
    expires_at: null, settled_at: null, inserted_at: at, updated_at: at, time: usToIso(at), seq: 0, ...over,
  };
}

/** A TradeExecuted between a resting (provider) order and an incoming (taker) order; as in the
 * engine, each side's fill has its own id (its `trade_id`), distinct from the trade's id. */
export function trade(provider: OrderView, taker: OrderView, price: string, quantity: string, executedAt: number): Extract<EngineEvent, { type: 'TradeExecuted' }> {
  const tradeId = randomUUID();
  return {
    type: 'TradeExecuted', trade_id: tradeId, market_id: provider.market_id, price, quantity, executed_at: executedAt,
    provider: fill(provider, { trade_id: randomUUID(), liquidity_action: 'provider', price, filled: quantity, inserted_at: executedAt }),
    taker: fill(taker, { trade_id: randomUUID(), liquidity_action: 'taker', price, filled: quantity, inserted_at: executedAt }),
  };
}

export function position(of: AccountView, mkt: MarketStateView, signed: string, over: Partial<PositionView> = {}): PositionView {
  const contracts = signed.startsWith('-') ? signed.slice(1) : signed;
  return {
    account_id: of.account_id, market_id: mkt.market_id, event_id: mkt.event_id, position: signed,
    side: signed === '0' ? 'flat' : signed.startsWith('-') ? 'short' : 'long', contracts, avg_price: '0.40', premium: '0',
    risk: '0', to_win: '0', realized_pnl: '0', fees: '0', market_max_price: mkt.max_price, updated_at: T0, seq: 0, ...over,
  };
}

export function ledgerEntry(of: AccountView, type: LedgerEntryView['type'], amount: string, over: Partial<LedgerEntryView> = {}): LedgerEntryView {
  const at = over.inserted_at ?? T0;
  return {
    id: randomUUID(), account_id: of.account_id, type, amount, points: 0, event_id: null, market_id: null, fee_id: null,
    payment_id: null, settlement_id: null, fee_source: null, trade_id: null, method: null, reason: null, sub_method: null,
    referee_account_id: null, referrer_account_id: null, inserted_at: at, time: usToIso(at), seq: 0, ...over,
  };
}
