// A market's public trade tape, newest first, keyset paged (recent_trades shows the first 15).

import { usToIso } from '../../../domain/clock.ts';
import { pageByJournalPlace, Where, type PageRequest, type PlacedRow, type Queryable } from './db.ts';

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

interface Row extends PlacedRow {
  trade_id: string;
  market_id: string;
  price: string;
  quantity: string;
  taker_action: string | null;
  executed_at_text: string;
}

export async function listMarketTrades(
  db: Queryable,
  marketId: string,
  page: PageRequest = {},
): Promise<{ cursor: string | null; trades: MarketTradeWire[] }> {
  const w = new Where();
  w.and(`market_id = ${w.param(marketId)}`);
  const { page: rows, cursor } = await pageByJournalPlace<Row>(
    db,
    'trade_id, market_id, price::text, trim_scale(quantity)::text AS quantity, taker_action, executed_at::text AS executed_at_text',
    'core_market_trades',
    w,
    page,
  );
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
