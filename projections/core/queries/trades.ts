// A market's public trade tape, newest first, keyset paged (recent_trades shows the first 15).

import { usToIso } from '../../../domain/clock.ts';
import { cursorParts, limitOf, pageFrom, Where, type PageRequest, type Queryable } from './db.ts';

export interface MarketTradeWire {
  trade_id: string;
  market_id: string;
  price: string;
  quantity: string;
  /** `buy` when the taker bought (the trade lifted an offer), `sell` when it hit a bid. */
  taker_action: string | null;
  executed_at: number;
  time: string;
}

interface Row {
  trade_id: string;
  market_id: string;
  price: string;
  quantity: string;
  taker_action: string | null;
  executed_at_text: string;
  key_pos: string;
  key_idx: number;
}

export async function listMarketTrades(
  db: Queryable,
  marketId: string,
  page: PageRequest = {},
): Promise<{ cursor: string | null; trades: MarketTradeWire[] }> {
  const limit = limitOf(page);
  const w = new Where();
  w.and(`market_id = ${w.param(marketId)}`);
  const after = cursorParts(page.cursor, ['int', 'int4']);
  if (after) w.and(`(ins_pos, ins_idx) < (${w.param(after[0])}::bigint, ${w.param(after[1])}::integer)`);
  const result = await db.query<Row>(
    `SELECT trade_id, market_id, price::text, trim_scale(quantity)::text AS quantity, taker_action, executed_at::text AS executed_at_text, ins_pos::text AS key_pos, ins_idx AS key_idx
     FROM core_market_trades ${w.sql()} ORDER BY ins_pos DESC, ins_idx DESC LIMIT ${w.param(limit + 1)}`,
    w.values,
  );
  const { page: rows, cursor } = pageFrom(result.rows, limit, (row) => [row.key_pos, row.key_idx]);
  return {
    cursor,
    trades: rows.map((row) => ({
      trade_id: row.trade_id,
      market_id: row.market_id,
      price: row.price,
      quantity: row.quantity,
      taker_action: row.taker_action,
      executed_at: Number(row.executed_at_text),
      time: usToIso(Number(row.executed_at_text)),
    })),
  };
}
