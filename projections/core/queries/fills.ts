// GET /fills: the account's fills, most recent first (journal order; a trade's taker fill
// before its provider fill), keyset paged. `orderIds` of another account simply match nothing.

import type { FillStatus, FillView } from '../../../domain/views.ts';
import { renderFill, type FillWire } from '../render.ts';
import { pageByJournalPlace, Where, type PageRequest, type PlacedRow, type Queryable } from './db.ts';

interface FillFilters {
  marketIds?: readonly string[];
  orderIds?: readonly string[];
  status?: FillStatus;
}

interface FillPage {
  cursor: string | null;
  fills: FillWire[];
}

interface Row extends PlacedRow {
  doc: FillView;
}

export async function listFills(
  db: Queryable,
  accountId: string,
  filters: FillFilters,
  page: PageRequest = {},
): Promise<FillPage> {
  const w = new Where();
  w.and(`account_id = ${w.param(accountId)}`);
  w.anyOf('market_id', filters.marketIds);
  w.anyOf('order_id', filters.orderIds);
  if (filters.status !== undefined) w.and(`status = ${w.param(filters.status)}`);
  const { page: rows, cursor } = await pageByJournalPlace<Row>(db, 'doc', 'core_fills', w, page);
  return { cursor, fills: rows.map((row) => renderFill(row.doc)) };
}
