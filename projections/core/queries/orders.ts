// GET /orders and GET /orders/{id}: the account's orders, most recent first (the order in which
// the engine placed them, i.e. journal position then position inside the step), keyset paged.

import type { OrderStatus } from '../../../domain/views.ts';
import { ORDER_ROW_COLUMNS, orderViewOfRow, type OrderColumns, type OrderDoc } from '../orderRows.ts';
import { renderOrder, type OrderWire } from '../render.ts';
import { pageByJournalPlace, Where, type PageRequest, type PlacedRow, type Queryable } from './db.ts';

export interface OrderFilters {
  orderIds?: readonly string[];
  clientOrderIds?: readonly string[];
  marketIds?: readonly string[];
  statuses?: readonly OrderStatus[];
}

interface OrderPage {
  cursor: string | null;
  orders: OrderWire[];
}

interface Row extends OrderColumns, PlacedRow {
  doc: OrderDoc;
}

export async function listOrders(
  db: Queryable,
  accountId: string,
  filters: OrderFilters,
  page: PageRequest = {},
): Promise<OrderPage> {
  const w = new Where();
  w.and(`account_id = ${w.param(accountId)}`);
  w.anyOf('id', filters.orderIds);
  w.anyOf('client_order_id', filters.clientOrderIds);
  w.anyOf('market_id', filters.marketIds);
  w.anyOf('status', filters.statuses);
  const { page: rows, cursor } = await pageByJournalPlace<Row>(db, ORDER_ROW_COLUMNS, 'core_orders o', w, page, 'o.');
  return { cursor, orders: rows.map((row) => renderOrder(orderViewOfRow(row))) };
}

/** The account's order, or null when it does not exist or belongs to another account. */
export async function getOrder(db: Queryable, accountId: string, orderId: string): Promise<OrderWire | null> {
  const result = await db.query<OrderColumns & { doc: OrderDoc }>(
    `SELECT ${ORDER_ROW_COLUMNS} FROM core_orders o WHERE o.id = $1 AND o.account_id = $2`,
    [orderId, accountId],
  );
  const row = result.rows[0];
  return row ? renderOrder(orderViewOfRow(row)) : null;
}
