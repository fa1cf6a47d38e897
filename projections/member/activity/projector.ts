// The member activity projector: the engine's facts, folded onto its own rows (load.ts), give the
// views market stats and leaderboards read (sport events, markets, orders, fills, positions,
// balances, fee entries of a market); then each touched (account, market) pair's market_stats
// row moves by the changed rows' contributions.

import type pg from 'pg';
import type { Decimal } from '../../../domain/money/decimal.ts';
import { ENGINE_RECORD_TYPES, ENGINE_STREAM } from '../../../domain/engine/journal/journal.ts';
import { balanceView, fillView, ledgerEntryView, marketView, positionView, sportEventView } from '../../../domain/readModel/render.ts';
import { journaledEventsOf } from '../../core/engineEvents.ts';
import { FactFold, namedBy, type Stamp } from '../../facts/fold.ts';
import { loadMember } from './load.ts';
import { feeRates } from '../../../domain/engine/fees.ts';
import { sportKey } from '../../../domain/leaderboard/board.ts';
import type {
  BalanceView, FillView, LedgerEntryView, MarketStateView, PositionView, SportEventView,
} from '../../../domain/views.ts';
import type { ProjectionChange, Projector } from '../../projector.ts';
import {
  addContribution, deriveMarketStats, feeContribution, fillContribution, fillSettledAtUs, orderContribution, orderFactsOfRecord, storedOf, sumsFromStored,
  type Contribution, type OrderFacts, type StoredSums, type SumKey,
} from '../marketStats/compute.ts';
import { MEMBER_ACTIVITY_SCHEMA_SQL, MEMBER_ACTIVITY_TABLES } from './schema.ts';
import { prepared } from '../../runtime/prepared.ts';

interface Stamped<T> { seq: number; now_us: number; view: T }

/** Latest snapshot per key within a batch (later steps, and later events of a step, win). */
class Latest<T> {
  readonly rows = new Map<string, Stamped<T>>();
  put(key: string, seq: number, now_us: number, view: T) {
    this.rows.set(key, { seq, now_us, view });
  }
  get size() {
    return this.rows.size;
  }
  json() {
    return JSON.stringify([...this.rows.values()].map(({ seq, view }) => ({ seq, doc: view })));
  }
}

/**
 * A fill as member_fills keeps it: without the copies of its order's client id, device, address,
 * expiry and pre-start flag (member_orders keeps no more of an order than market stats read, so a
 * fill could not always copy them; a row must not depend on how records were batched).
 */
function memberFillOf(fill: FillView): FillView {
  const { client_order_id: _c, device_id: _d, ip_address: _i, expires_at: _e, placed_pre_start: _p, ...rest } = fill;
  return rest as FillView;
}

const pairKey = (accountId: string, marketId: string) => `${accountId}\u0000${marketId}`;

interface Batch {
  events: Latest<SportEventView>; markets: Latest<MarketStateView>; orders: Latest<OrderFacts>;
  fills: Latest<FillView>; positions: Latest<PositionView>; balances: Latest<BalanceView>;
  /** Fee and fee refund entries of a market (the ledger lists themselves read the core read model). */
  fees: Latest<LedgerEntryView>;
}

const run = async (tx: pg.PoolClient, size: number, sql: string, json: string) => {
  if (size > 0) await tx.query(prepared(sql, [json]));
};

async function upsertCatalogue(tx: pg.PoolClient, batch: Batch) {
  await run(tx, batch.events.size, `
    INSERT INTO member_sport_events (event_id, sport, sport_key, competition, start_us, seq, doc)
    SELECT x.doc->>'event_id', x.doc->>'sport', x.doc->>'sport_key', x.doc->>'competition', (x.doc->>'start')::bigint, x.seq, x.doc
    FROM json_to_recordset($1::json) AS x(seq bigint, doc json)
    ON CONFLICT (event_id) DO UPDATE SET sport = EXCLUDED.sport, sport_key = EXCLUDED.sport_key, competition = EXCLUDED.competition,
      start_us = EXCLUDED.start_us, seq = EXCLUDED.seq, doc = EXCLUDED.doc
    WHERE member_sport_events.seq <= EXCLUDED.seq`, JSON.stringify([...batch.events.rows.values()].map(({ seq, view }) => ({ seq, doc: { ...view, sport_key: sportKey(view.sport) } }))));
  await run(tx, batch.markets.size, `
    INSERT INTO member_markets (market_id, event_id, status, result, max_price, settled_at, seq, doc)
    SELECT x.doc->>'market_id', x.doc->>'event_id', x.doc->>'status', x.doc->>'result', (x.doc->>'max_price')::numeric, (x.doc->>'settled_at')::bigint, x.seq, x.doc
    FROM json_to_recordset($1::json) AS x(seq bigint, doc json)
    ON CONFLICT (market_id) DO UPDATE SET event_id = EXCLUDED.event_id, status = EXCLUDED.status, result = EXCLUDED.result,
      max_price = EXCLUDED.max_price, settled_at = EXCLUDED.settled_at, seq = EXCLUDED.seq, doc = EXCLUDED.doc
    WHERE member_markets.seq <= EXCLUDED.seq`, batch.markets.json());
}

async function upsertActivity(tx: pg.PoolClient, batch: Batch) {
  await run(tx, batch.orders.size, `
    INSERT INTO member_orders (order_id, account_id, market_id, seq, doc)
    SELECT x.doc->>'id', x.doc->>'account_id', x.doc->>'market_id', x.seq, x.doc
    FROM json_to_recordset($1::json) AS x(seq bigint, doc json)
    ON CONFLICT (order_id) DO UPDATE SET seq = EXCLUDED.seq, doc = EXCLUDED.doc
    WHERE member_orders.seq <= EXCLUDED.seq`, batch.orders.json());
  await run(tx, batch.fills.size, `
    INSERT INTO member_fills (trade_id, order_id, account_id, market_id, status, filled, inserted_at, seq, doc)
    SELECT x.doc->>'trade_id', x.doc->>'order_id', x.doc->>'account_id', x.doc->>'market_id', x.doc->>'status',
      (x.doc->>'filled')::numeric, (x.doc->>'inserted_at')::bigint, x.seq, x.doc
    FROM json_to_recordset($1::json) AS x(seq bigint, doc json)
    ON CONFLICT (trade_id, order_id) DO UPDATE SET status = EXCLUDED.status, filled = EXCLUDED.filled, seq = EXCLUDED.seq, doc = EXCLUDED.doc
    WHERE member_fills.seq <= EXCLUDED.seq`, batch.fills.json());
  await run(tx, batch.positions.size, `
    INSERT INTO member_positions (account_id, market_id, seq, doc)
    SELECT x.doc->>'account_id', x.doc->>'market_id', x.seq, x.doc
    FROM json_to_recordset($1::json) AS x(seq bigint, doc json)
    ON CONFLICT (account_id, market_id) DO UPDATE SET seq = EXCLUDED.seq, doc = EXCLUDED.doc
    WHERE member_positions.seq <= EXCLUDED.seq`, batch.positions.json());
  await run(tx, batch.balances.size, `
    INSERT INTO member_balances (account_id, seq, doc)
    SELECT x.doc->>'account_id', x.seq, x.doc
    FROM json_to_recordset($1::json) AS x(seq bigint, doc json)
    ON CONFLICT (account_id) DO UPDATE SET seq = EXCLUDED.seq, doc = EXCLUDED.doc
    WHERE member_balances.seq <= EXCLUDED.seq`, batch.balances.json());
  await run(tx, batch.fees.size, `
    INSERT INTO member_fee_entries (id, account_id, market_id, seq, doc)
    SELECT x.doc->>'id', x.doc->>'account_id', x.doc->>'market_id', x.seq, x.doc
    FROM json_to_recordset($1::json) AS x(seq bigint, doc json)
    ON CONFLICT (id) DO UPDATE SET seq = EXCLUDED.seq, doc = EXCLUDED.doc
    WHERE member_fee_entries.seq <= EXCLUDED.seq`, batch.fees.json());
}

/** The fee rate for unfilled orders: the engine's reserve rate for the account's schedule. */
function orderFeeRate(balance: BalanceView | undefined): string {
  if (!balance) return '0';
  return feeRates(balance).max.toString();
}

interface TouchedPair { account_id: string; market_id: string; first_us: number; last_us: number }

/** Per pair: the change of its sums in this batch and the latest settlement time seen. */
interface PairDelta { sums: Map<SumKey, Decimal>; last_settled_at: number | null }

class Deltas {
  readonly byPair = new Map<string, PairDelta>();
  of(accountId: string, marketId: string): PairDelta {
    const key = pairKey(accountId, marketId);
    let delta = this.byPair.get(key);
    if (!delta) {
      delta = { sums: new Map(), last_settled_at: null };
      this.byPair.set(key, delta);
    }
    return delta;
  }
}

async function maxPrices(tx: pg.PoolClient, marketIds: string[]): Promise<Map<string, { event_id: string; max_price: string }>> {
  if (marketIds.length === 0) return new Map();
  const rows = await tx.query<{ market_id: string; event_id: string; max_price: string }>(
    prepared('SELECT market_id, event_id, max_price::text FROM member_markets WHERE market_id = ANY($1::text[])', [marketIds]));
  return new Map(rows.rows.map((r) => [r.market_id, { event_id: r.event_id, max_price: r.max_price }]));
}

async function updateStats(tx: pg.PoolClient, pairs: Map<string, TouchedPair>, deltas: Deltas, markets: Map<string, { event_id: string; max_price: string }>): Promise<ProjectionChange[]> {
  if (pairs.size === 0) return [];
  const accounts = [...pairs.values()].map((p) => p.account_id);
  const marketIds = [...pairs.values()].map((p) => p.market_id);
  const pairSql = 'SELECT * FROM unnest($1::text[], $2::text[]) AS p(account_id, market_id)';
  const statsRows = await tx.query<{ account_id: string; market_id: string; sums: StoredSums; last_settled_at: string | null }>(
    prepared(`SELECT s.account_id, s.market_id, s.sums, s.last_settled_at::text FROM member_market_stats s JOIN (${pairSql}) p USING (account_id, market_id)`, [accounts, marketIds]));
  const positions = await tx.query<{ account_id: string; market_id: string; doc: PositionView }>(
    prepared(`SELECT x.account_id, x.market_id, x.doc FROM member_positions x JOIN (${pairSql}) p USING (account_id, market_id)`, [accounts, marketIds]));
  const balances = await tx.query<{ account_id: string; doc: BalanceView }>(prepared('SELECT account_id, doc FROM member_balances WHERE account_id = ANY($1::text[])', [accounts]));
  const statsBy = new Map(statsRows.rows.map((r) => [pairKey(r.account_id, r.market_id), r]));
  const positionBy = new Map(positions.rows.map((r) => [pairKey(r.account_id, r.market_id), r.doc]));
  const balanceBy = new Map(balances.rows.map((b) => [b.account_id, b.doc]));

  const rows: unknown[] = [];
  const changes: ProjectionChange[] = [];
  for (const [key, pair] of pairs) {
    const stored = statsBy.get(key);
    const delta = deltas.byPair.get(key);
    const sums = sumsFromStored(stored?.sums);
    if (delta) addContribution(sums, Object.fromEntries(delta.sums), 1);
    const storedSettled = stored?.last_settled_at ? Number(stored.last_settled_at) : null;
    const newSettled = delta?.last_settled_at ?? null;
    const lastSettledAt = storedSettled === null ? newSettled : newSettled === null ? storedSettled : Math.max(storedSettled, newSettled);
    const market = markets.get(pair.market_id);
    const doc = deriveMarketStats({
      sums, position: positionBy.get(key) ?? null, maxPrice: market?.max_price ?? '1', orderFeeRate: orderFeeRate(balanceBy.get(pair.account_id)),
    });
    rows.push({
      account_id: pair.account_id, market_id: pair.market_id, event_id: market?.event_id ?? null, first_us: pair.first_us, last_us: pair.last_us,
      last_settled_at: lastSettledAt, settlements: doc.settlements, trade_count: doc.trade_count, sums: storedOf(sums), doc,
    });
    changes.push({ projector: 'member_activity', kind: 'market_stats', keys: { account_id: pair.account_id, market_id: pair.market_id } });
  }
  await tx.query(prepared(`
    INSERT INTO member_market_stats (account_id, market_id, event_id, inserted_at, updated_at, last_settled_at, settlements, trade_count, sums, doc)
    SELECT x.account_id, x.market_id, x.event_id, x.first_us, x.last_us, x.last_settled_at, x.settlements, x.trade_count, x.sums, x.doc
    FROM json_to_recordset($1::json) AS x(account_id text, market_id text, event_id text, first_us bigint, last_us bigint, last_settled_at bigint, settlements integer, trade_count integer, sums json, doc json)
    ON CONFLICT (account_id, market_id) DO UPDATE SET event_id = EXCLUDED.event_id, updated_at = GREATEST(member_market_stats.updated_at, EXCLUDED.updated_at),
      last_settled_at = EXCLUDED.last_settled_at, settlements = EXCLUDED.settlements, trade_count = EXCLUDED.trade_count, sums = EXCLUDED.sums, doc = EXCLUDED.doc`,
  [JSON.stringify(rows)]));
  return changes;
}

export const memberActivityProjector: Projector = {
  name: 'member_activity',
  version: 6,
  tables: [...MEMBER_ACTIVITY_TABLES],
  schemaSql: MEMBER_ACTIVITY_SCHEMA_SQL,
  filter: { streamPrefixes: [ENGINE_STREAM], eventTypes: [...ENGINE_RECORD_TYPES] },
  async handle(tx, records) {
    const facts = journaledEventsOf(records);
    if (facts.length === 0) return [];
    const feeEntryIds: string[] = [];
    for (const { event } of facts) if (event.type === 'Transferred' && event.id !== null && (event.kind === 'fee' || event.kind === 'fee_refund')) feeEntryIds.push(event.id);
    const store = await loadMember(tx, namedBy(facts), feeEntryIds);
    const fold = new FactFold(store);
    for (const fact of facts) fold.apply(fact);

    const batch: Batch = {
      events: new Latest<SportEventView>(), markets: new Latest<MarketStateView>(), orders: new Latest<OrderFacts>(),
      fills: new Latest<FillView>(), positions: new Latest<PositionView>(), balances: new Latest<BalanceView>(), fees: new Latest<LedgerEntryView>(),
    };
    const pairs = new Map<string, TouchedPair>();
    const touch = (account_id: string, market_id: string | null, first: Stamp, last: Stamp) => {
      if (!market_id) return;
      const key = pairKey(account_id, market_id);
      const seen = pairs.get(key);
      // first and last touch of the batch: the row's inserted_at must not depend on batch size
      pairs.set(key, {
        account_id, market_id, first_us: seen ? Math.min(seen.first_us, first.nowUs) : first.nowUs, last_us: seen ? Math.max(seen.last_us, last.nowUs) : last.nowUs,
      });
    };
    for (const { record, at } of fold.sportEvents.values()) batch.events.put(record.id, at.seq, at.nowUs, sportEventView(record));
    for (const { record, at } of fold.markets.values()) batch.markets.put(record.id, at.seq, at.nowUs, marketView(record));
    for (const { record, at, since } of fold.orders.values()) {
      batch.orders.put(record.id, record.seq, at.nowUs, orderFactsOfRecord(record));
      touch(record.accountId, record.marketId, since, at);
    }
    for (const { record, at, since } of fold.fills.values()) {
      batch.fills.put(record.id, record.seq, at.nowUs, memberFillOf(fillView(record, store.markets.get(record.marketId)?.record)));
      touch(record.accountId, record.marketId, since, at);
    }
    for (const { record, at, since } of fold.positions.values()) {
      const market = store.markets.get(record.marketId)?.record;
      if (!market) throw new Error(`position in market ${record.marketId}, never listed`);
      batch.positions.put(pairKey(record.accountId, record.marketId), at.seq, at.nowUs, positionView(record, market, at.seq));
      touch(record.accountId, record.marketId, since, at);
    }
    for (const { record, at } of fold.balances.values()) batch.balances.put(record.id, at.seq, at.nowUs, balanceView(record, record.funds, at.seq));
    for (const { entry, at } of fold.entries) {
      if ((entry.type !== 'fee' && entry.type !== 'fee_refund') || !entry.marketId) continue;
      batch.fees.put(entry.id, at.seq, at.nowUs, ledgerEntryView(entry, at.nowUs, at.seq));
      touch(entry.accountId, entry.marketId, at, at);
    }

    await upsertCatalogue(tx, batch);
    const marketIds = new Set<string>([...pairs.values()].map((p) => p.market_id));
    for (const { view } of batch.orders.rows.values()) marketIds.add(view.market_id);
    const markets = await maxPrices(tx, [...marketIds]);
    const maxPriceOf = (marketId: string) => markets.get(marketId)?.max_price ?? '1';
    // each changed row adds its new contribution to its market stats and takes back its old one
    const deltas = new Deltas();
    const add = (accountId: string, marketId: string, contribution: Contribution, sign: 1 | -1, settledAt: number | null = null) => {
      const delta = deltas.of(accountId, marketId);
      addContribution(delta.sums, contribution, sign);
      if (sign === 1 && settledAt !== null) delta.last_settled_at = Math.max(delta.last_settled_at ?? settledAt, settledAt);
    };
    for (const [id, { view }] of batch.orders.rows) {
      add(view.account_id, view.market_id, orderContribution(view, maxPriceOf(view.market_id)), 1);
      const old = store.orderDocs.get(id);
      if (old) add(old.account_id, old.market_id, orderContribution(old, maxPriceOf(old.market_id)), -1);
    }
    for (const [id, { view }] of batch.fills.rows) {
      add(view.account_id, view.market_id, fillContribution(view), 1, fillSettledAtUs(view));
      const old = store.fillDocs.get(id);
      if (old) add(old.account_id, old.market_id, fillContribution(old), -1);
    }
    for (const { view } of batch.fees.rows.values()) add(view.account_id, view.market_id!, feeContribution(view), 1);
    await upsertActivity(tx, batch);
    return updateStats(tx, pairs, deltas, markets);
  },
};
