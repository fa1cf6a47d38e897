// Fills and the public trade tape: the fills the fold opened or changed (trades, closings,
// settlement, voids, amendments), one tape row per trade (Traded facts) with its market's totals.
// Totals grow only when a tape row is actually inserted, so a replayed trade counts once.
// A fill's own `trade_id` is the fill's id; the fill row remembers the trade it came from
// (`tape_trade_id`), so an amended taker fill corrects that tape row and the totals.

import { decimalOf, decimalText, isZero, minus, plus, ZERO, type Decimal } from '../../../domain/money/decimal.ts';
import { usToIso } from '../../../domain/clock.ts';
import { fillView } from '../../../domain/readModel/render.ts';
import { renderFill } from '../render.ts';
import { renderedOnRead, snapshotTable, upsertWritten, type Batch, type Slice } from './batch.ts';

interface TapeRow {
  trade_id: string;
  market_id: string;
  price: string;
  quantity: string;
  taker_action: string;
  executed_at: number;
  ins_pos: string;
  ins_idx: number;
}

/** core_fills: one row per side of a trade, keeping where it was first inserted. */
export const FILLS_TABLE = snapshotTable({
  table: 'core_fills',
  key: ['trade_id', 'liquidity_action'],
  columns: [
    ['trade_id', 'text'],
    ['liquidity_action', 'text'],
    ['account_id', 'text'],
    ['market_id', 'text'],
    ['order_id', 'text'],
    ['status', 'text'],
    ['tape_trade_id', 'text'],
    ['inserted_at', 'bigint'],
  ],
  placed: true,
  insertOnly: ['tape_trade_id', 'inserted_at'],
});

export const fillsSlice: Slice = {
  name: 'fills',
  async apply(batch: Batch): Promise<void> {
    const tape: TapeRow[] = [];
    const tapeIdOf = new Map<string, string>();
    const amended: string[] = [];
    for (const at of batch.events) {
      const e = at.event;
      if (e.type === 'Traded') {
        tapeIdOf.set(e.maker_fill_id, e.trade_id);
        tapeIdOf.set(e.taker_fill_id, e.trade_id);
        tape.push({
          trade_id: e.trade_id,
          market_id: e.market_id,
          price: e.price,
          quantity: e.quantity,
          taker_action: e.taker_side,
          executed_at: at.nowUs,
          ins_pos: at.pos,
          ins_idx: at.idx,
        });
      } else if (e.type === 'FillAmended') {
        amended.push(e.fill_id);
      }
    }
    if (batch.fold.fills.size === 0) return;

    const marketOf = (marketId: string) => batch.store.markets.get(marketId)?.record;
    const changed = [...batch.fold.fills.values()].map(({ record, created }) => ({
      item: fillView(record, marketOf(record.marketId)),
      created,
    }));
    for (const { item } of changed) batch.views.fills.set(item.trade_id, item);
    const written = await upsertWritten(batch.tx, FILLS_TABLE, changed, ({ item, created }) => ({
      trade_id: item.trade_id,
      liquidity_action: item.liquidity_action,
      account_id: item.account_id,
      market_id: item.market_id,
      order_id: item.order_id,
      status: item.status,
      tape_trade_id: tapeIdOf.get(item.trade_id) ?? null,
      inserted_at: item.inserted_at,
      seq: item.seq,
      ins_pos: created?.pos ?? '0',
      ins_idx: created?.idx ?? 0,
      doc: item,
    }));
    const writtenKeys = new Set(written.map(({ item }) => `${item.trade_id}|${item.liquidity_action}`));
    for (const { item } of written)
      batch.changes.push(
        renderedOnRead({ kind: 'fill', account_id: item.account_id, market_id: item.market_id }, () =>
          renderFill(item),
        ),
      );

    if (tape.length > 0) {
      const inserted = await batch.tx.query<{
        trade_id: string;
        market_id: string;
        quantity: string;
        executed_at: string;
      }>(
        `
        INSERT INTO core_market_trades (trade_id, market_id, price, quantity, taker_action, executed_at, ins_pos, ins_idx)
        SELECT trade_id, market_id, price, quantity, taker_action, executed_at, ins_pos, ins_idx
        FROM json_to_recordset($1::json) AS x(trade_id text, market_id text, price numeric, quantity numeric, taker_action text, executed_at bigint, ins_pos bigint, ins_idx integer)
        ON CONFLICT (trade_id) DO NOTHING
        RETURNING trade_id, market_id, quantity::text, executed_at::text`,
        [JSON.stringify(tape)],
      );
      await addToTotals(
        batch,
        inserted.rows.map((row) => ({
          market_id: row.market_id,
          volume: decimalOf(row.quantity),
          trades: 1,
          last_trade_at: Number(row.executed_at),
        })),
      );
      // kind `trade`: each new tape row once, in journal order, shaped as listMarketTrades renders it
      const fresh = new Set(inserted.rows.map((row) => row.trade_id));
      for (const row of tape) {
        if (!fresh.has(row.trade_id)) continue;
        batch.changes.push({
          kind: 'trade',
          market_id: row.market_id,
          doc: {
            trade_id: row.trade_id,
            market_id: row.market_id,
            price: row.price,
            quantity: row.quantity,
            taker_action: row.taker_action,
            executed_at: row.executed_at,
            time: usToIso(row.executed_at),
          },
        });
      }
    }

    for (const fillId of amended) {
      const record = batch.fold.fills.get(fillId)?.record;
      if (!record || record.liquidity !== 'taker') continue;
      const fill = fillView(record, marketOf(record.marketId));
      if (!writtenKeys.has(`${fill.trade_id}|taker`)) continue;
      const before = await batch.tx.query<{ trade_id: string; market_id: string; quantity: string }>(
        `
        SELECT x.trade_id, x.market_id, x.quantity::text FROM core_market_trades x
        JOIN core_fills f ON f.tape_trade_id = x.trade_id
        WHERE f.trade_id = $1 AND f.liquidity_action = 'taker'`,
        [fill.trade_id],
      );
      const row = before.rows[0];
      if (!row) continue;
      await batch.tx.query('UPDATE core_market_trades SET price = $2, quantity = $3 WHERE trade_id = $1', [
        row.trade_id,
        fill.price,
        fill.filled,
      ]);
      const change = minus(decimalOf(fill.filled), decimalOf(row.quantity));
      if (!isZero(change))
        await addToTotals(batch, [{ market_id: row.market_id, volume: change, trades: 0, last_trade_at: null }]);
      batch.touchedMarkets.add(row.market_id);
    }
  },
};

async function addToTotals(
  batch: Batch,
  additions: Array<{ market_id: string; volume: Decimal; trades: number; last_trade_at: number | null }>,
): Promise<void> {
  const byMarket = new Map<
    string,
    { market_id: string; volume: Decimal; trades: number; last_trade_at: number | null }
  >();
  for (const a of additions) {
    const sum = byMarket.get(a.market_id) ?? { market_id: a.market_id, volume: ZERO, trades: 0, last_trade_at: null };
    sum.volume = plus(sum.volume, a.volume);
    sum.trades += a.trades;
    if (a.last_trade_at !== null) sum.last_trade_at = Math.max(sum.last_trade_at ?? a.last_trade_at, a.last_trade_at);
    byMarket.set(a.market_id, sum);
  }
  if (byMarket.size === 0) return;
  await batch.tx.query(
    `
    INSERT INTO core_market_totals (market_id, total_volume, trade_count, last_trade_at)
    SELECT market_id, volume, trades, last_trade_at FROM json_to_recordset($1::json) AS x(market_id text, volume numeric, trades bigint, last_trade_at bigint)
    ON CONFLICT (market_id) DO UPDATE SET
      total_volume = core_market_totals.total_volume + excluded.total_volume,
      trade_count = core_market_totals.trade_count + excluded.trade_count,
      last_trade_at = greatest(core_market_totals.last_trade_at, excluded.last_trade_at)`,
    [JSON.stringify([...byMarket.values()].map((s) => ({ ...s, volume: decimalText(s.volume) })))],
  );
  for (const id of byMarket.keys()) batch.touchedMarkets.add(id);
}
