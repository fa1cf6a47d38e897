// GET /fills: the account's fills, most recent first (journal order; a trade's taker fill
// before its provider fill), keyset paged. `orderIds` of another account simply match nothing.

import type { FillStatus, FillView } from '../../../domain/views.ts';
import { renderFill, type FillWire } from '../render.ts';
import { cursorParts, limitOf, listFilter, pageFrom, Where, type PageRequest, type Queryable } from './db.ts';

interface FillFilters {
  marketIds?: readonly string[];
  orderIds?: readonly string[];
  status?: FillStatus;
}

interface FillPage {
  cursor: string | null;
  fills: FillWire[];
}

interface Row {
  doc: FillView;
  key_pos: string;
  key_idx: number;
}

export async function listFills(
  db: Queryable,
  accountId: string,
  filters: FillFilters,
  page: PageRequest = {},
): Promise<FillPage> {
  const limit = limitOf(page);
  const w = new Where();
  w.and(`account_id = ${w.param(accountId)}`);
  const marketIds = listFilter(filters.marketIds);
  if (marketIds) w.and(`market_id = ANY(${w.param(marketIds)}::text[])`);
  const orderIds = listFilter(filters.orderIds);
  if (orderIds) w.and(`order_id = ANY(${w.param(orderIds)}::text[])`);
  if (filters.status !== undefined) w.and(`status = ${w.param(filters.status)}`);
  const after = cursorParts(page.cursor, ['int', 'int4']);
  if (after) w.and(`(ins_pos, ins_idx) < (${w.param(after[0])}::bigint, ${w.param(after[1])}::integer)`);
  const result = await db.query<Row>(
    `SELECT doc, ins_pos::text AS key_pos, ins_idx AS key_idx FROM core_fills ${w.sql()} ORDER BY ins_pos DESC, ins_idx DESC LIMIT ${w.param(limit + 1)}`,
    w.values,
  );
  const { page: rows, cursor } = pageFrom(result.rows, limit, (row) => [row.key_pos, row.key_idx]);
  return { cursor, fills: rows.map((row) => renderFill(row.doc)) };
}
