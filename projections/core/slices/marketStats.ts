// Market stats (docs/MEMBER.md): one row per account and market, kept incrementally. Every order,
// fill and fee entry the batch changed adds its new contribution (projections/member/marketStats)
// to its pair's sums and takes back the one its stored view made; each touched pair's row is then
// derived again from its sums, its position and the market's max_price. Runs after the slices
// that write orders, fills, positions, balances and ledger entries: it reads their rows back in
// the same transaction, and reuses the views they rendered.

import { feeRates } from '../../../domain/engine/fees.ts';
import type { Decimal } from '../../../domain/money/decimal.ts';
import { ledgerEntryView, marketView } from '../../../domain/readModel/render.ts';
import type { BalanceView, PositionView } from '../../../domain/views.ts';
import { positionKey, type Stamp } from '../../facts/fold.ts';
import {
  addContribution,
  deriveMarketStats,
  feeContribution,
  fillContribution,
  fillSettledAtUs,
  orderContribution,
  storedOf,
  sumsFromStored,
  type Contribution,
  type StoredSums,
  type SumKey,
} from '../../member/marketStats/compute.ts';
import { prepared } from '../../runtime/prepared.ts';
import type { Batch, Slice } from './batch.ts';

/**
 * An (account, market) pair the batch touched: the engine times of its first and last change in
 * the batch, the change of its sums and the latest settlement time among its changed fills.
 */
interface TouchedPair {
  account_id: string;
  market_id: string;
  first_us: number;
  last_us: number;
  sums: Map<SumKey, Decimal>;
  last_settled_at: number | null;
}

/** The fee rate for unfilled orders: the engine's reserve rate for the account's schedule. */
function orderFeeRate(balance: BalanceView | undefined): string {
  return balance ? feeRates(balance).max.toString() : '0';
}

export const marketStatsSlice: Slice = {
  name: 'market_stats',
  async apply(batch: Batch): Promise<void> {
    const { fold, store } = batch;
    // keyed as the fold keys positions: one position per pair
    const pairs = new Map<string, TouchedPair>();
    const touch = (accountId: string, marketId: string | null, first: Stamp, last: Stamp) => {
      if (!marketId) return;
      const key = positionKey(accountId, marketId);
      const seen = pairs.get(key);
      // first and last touch of the batch: the row's inserted_at must not depend on batch size
      if (seen) {
        seen.first_us = Math.min(seen.first_us, first.nowUs);
        seen.last_us = Math.max(seen.last_us, last.nowUs);
      } else {
        pairs.set(key, {
          account_id: accountId,
          market_id: marketId,
          first_us: first.nowUs,
          last_us: last.nowUs,
          sums: new Map(),
          last_settled_at: null,
        });
      }
    };
    for (const { record, at, since } of fold.orders.values()) touch(record.accountId, record.marketId, since, at);
    for (const { record, at, since } of fold.fills.values()) touch(record.accountId, record.marketId, since, at);
    for (const { record, at, since } of fold.positions.values()) touch(record.accountId, record.marketId, since, at);
    const fees = fold.entries.filter(
      ({ entry }) => (entry.type === 'fee' || entry.type === 'fee_refund') && entry.marketId,
    );
    for (const { entry, at } of fees) touch(entry.accountId, entry.marketId ?? null, at, at);
    if (pairs.size === 0) return;

    // the markets as the batch left them (a cancelled order does not name its market: read it)
    const marketOf = new Map<string, { event_id: string; max_price: string }>();
    const unloaded: string[] = [];
    for (const { market_id: marketId } of pairs.values()) {
      if (marketOf.has(marketId)) continue;
      const record = store.markets.get(marketId)?.record;
      if (!record) {
        unloaded.push(marketId);
        continue;
      }
      const view = marketView(record);
      marketOf.set(marketId, { event_id: view.event_id, max_price: view.max_price });
    }
    if (unloaded.length > 0) {
      const rows = await batch.tx.query<{ market_id: string; event_id: string; max_price: string }>(
        prepared(
          "SELECT market_id, event_id, doc->>'max_price' AS max_price FROM core_markets WHERE market_id = ANY($1::text[])",
          [[...new Set(unloaded)]],
        ),
      );
      for (const row of rows.rows) marketOf.set(row.market_id, { event_id: row.event_id, max_price: row.max_price });
    }
    const marketOfPair = (marketId: string) => {
      const market = marketOf.get(marketId);
      if (!market) throw new Error(`market stats: market ${marketId} was never listed`);
      return market;
    };

    // each changed row adds its new contribution to its pair and takes back its old one (an
    // order or fill never changes account or market: both go to the pair the batch touched)
    const add = (
      accountId: string,
      marketId: string,
      contribution: Contribution,
      sign: 1 | -1,
      settledAt: number | null = null,
    ) => {
      const pair = pairs.get(positionKey(accountId, marketId));
      if (!pair)
        throw new Error(
          `market stats: a contribution to account ${accountId} in market ${marketId}, which the batch did not touch`,
        );
      addContribution(pair.sums, contribution, sign);
      if (sign === 1 && settledAt !== null)
        pair.last_settled_at = Math.max(pair.last_settled_at ?? settledAt, settledAt);
    };
    for (const [id, view] of batch.views.orders) {
      add(view.account_id, view.market_id, orderContribution(view, marketOfPair(view.market_id).max_price), 1);
      const old = store.orderDocs.get(id);
      if (old) add(old.account_id, old.market_id, orderContribution(old, marketOfPair(old.market_id).max_price), -1);
    }
    for (const [id, view] of batch.views.fills) {
      add(view.account_id, view.market_id, fillContribution(view), 1, fillSettledAtUs(view));
      const old = store.fillDocs.get(id);
      if (old) add(old.account_id, old.market_id, fillContribution(old), -1);
    }
    for (const { entry, at } of fees)
      add(entry.accountId, entry.marketId!, feeContribution(ledgerEntryView(entry, at.nowUs, at.seq)), 1);

    const list = [...pairs.values()];
    const accounts = list.map((p) => p.account_id);
    const marketIds = list.map((p) => p.market_id);
    const pairSql = 'SELECT * FROM unnest($1::text[], $2::text[]) AS p(account_id, market_id)';
    // one client runs one statement at a time: three awaits in turn (pg queues a concurrent query, deprecated)
    const stats = await batch.tx.query<{
      account_id: string;
      market_id: string;
      sums: StoredSums;
      last_settled_at: string | null;
    }>(
      prepared(
        `SELECT s.account_id, s.market_id, s.sums, s.last_settled_at::text FROM core_market_stats s JOIN (${pairSql}) p USING (account_id, market_id)`,
        [accounts, marketIds],
      ),
    );
    const positions = await batch.tx.query<{ account_id: string; market_id: string; doc: PositionView }>(
      prepared(
        `SELECT x.account_id, x.market_id, x.doc FROM core_positions x JOIN (${pairSql}) p USING (account_id, market_id)`,
        [accounts, marketIds],
      ),
    );
    const balances = await batch.tx.query<{ account_id: string; doc: BalanceView }>(
      prepared('SELECT account_id, doc FROM core_balances WHERE account_id = ANY($1::text[])', [
        [...new Set(accounts)],
      ]),
    );
    const statsBy = new Map(stats.rows.map((r) => [positionKey(r.account_id, r.market_id), r]));
    const positionBy = new Map(positions.rows.map((r) => [positionKey(r.account_id, r.market_id), r.doc]));
    const balanceBy = new Map(balances.rows.map((r) => [r.account_id, r.doc]));

    const rows: unknown[] = [];
    for (const [key, pair] of pairs) {
      const stored = statsBy.get(key);
      const sums = sumsFromStored(stored?.sums);
      addContribution(sums, Object.fromEntries(pair.sums), 1);
      const storedSettled = stored?.last_settled_at ? Number(stored.last_settled_at) : null;
      const lastSettledAt =
        storedSettled === null ? pair.last_settled_at : Math.max(storedSettled, pair.last_settled_at ?? storedSettled);
      const market = marketOfPair(pair.market_id);
      const doc = deriveMarketStats({
        sums,
        position: positionBy.get(key) ?? null,
        maxPrice: market.max_price,
        orderFeeRate: orderFeeRate(balanceBy.get(pair.account_id)),
      });
      rows.push({
        account_id: pair.account_id,
        market_id: pair.market_id,
        event_id: market.event_id,
        first_us: pair.first_us,
        last_us: pair.last_us,
        last_settled_at: lastSettledAt,
        settlements: doc.settlements,
        trade_count: doc.trade_count,
        sums: storedOf(sums),
        doc,
      });
    }
    await batch.tx.query(
      prepared(
        `
      INSERT INTO core_market_stats (account_id, market_id, event_id, inserted_at, updated_at, last_settled_at, settlements, trade_count, sums, doc)
      SELECT x.account_id, x.market_id, x.event_id, x.first_us, x.last_us, x.last_settled_at, x.settlements, x.trade_count, x.sums, x.doc
      FROM json_to_recordset($1::json) AS x(account_id text, market_id text, event_id text, first_us bigint, last_us bigint, last_settled_at bigint,
        settlements integer, trade_count integer, sums json, doc json)
      ON CONFLICT (account_id, market_id) DO UPDATE SET event_id = EXCLUDED.event_id, updated_at = GREATEST(core_market_stats.updated_at, EXCLUDED.updated_at),
        last_settled_at = EXCLUDED.last_settled_at, settlements = EXCLUDED.settlements, trade_count = EXCLUDED.trade_count, sums = EXCLUDED.sums, doc = EXCLUDED.doc`,
        [JSON.stringify(rows)],
      ),
    );
  },
};
