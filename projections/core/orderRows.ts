// An order's `core_orders` row: the columns its queries filter, sort and lock on (id, account,
// market, client order id, status, the engine step that last changed it, its book share and its
// journal place) and, in `doc`, the rest of the order's record, each field once: nothing a
// column holds, nothing the view derives (filled percentage, average price, time) or always
// states alike (amount, filled amount, odds, fix_order), and no field that is null. Read back,
// the row renders to the very view the order had (domain/readModel/render.ts `orderView`).

import { orderView } from '../../domain/readModel/render.ts';
import type { OrderView } from '../../domain/views.ts';
import { orderRecordOf, type OrderViewFields } from '../facts/records.ts';

/** The fields of an order's record its row keeps in `doc` (the others are columns). */
const DOC_FIELDS = [
  'action',
  'order_type',
  'quantity',
  'filled',
  'price',
  'total_value',
  'device_id',
  'ip_address',
  'expiration',
  'expiration_time',
  'expires_at',
  'accepted_at',
  'delayed_until',
  'inserted_at',
  'placed_pre_start',
  'cancellation_reason',
  'rejection_reason',
  'cancel_on_disconnect',
] as const satisfies ReadonlyArray<keyof OrderViewFields>;

type DocField = (typeof DOC_FIELDS)[number];
/** The fields of `doc` that are never null. */
type AlwaysSet =
  | 'action'
  | 'order_type'
  | 'quantity'
  | 'filled'
  | 'total_value'
  | 'inserted_at'
  | 'placed_pre_start'
  | 'cancel_on_disconnect';

/** What `doc` holds: the record's fields that are not columns, those that are null left out. */
export type OrderDoc = Pick<OrderViewFields, AlwaysSet> & Partial<Pick<OrderViewFields, Exclude<DocField, AlwaysSet>>>;

/** The columns an order's view is rendered from besides `doc` (seq as a number or, read from a bigint column, its text). */
export interface OrderColumns {
  id: string;
  account_id: string;
  market_id: string;
  client_order_id: string | null;
  status: OrderView['status'];
  seq: number | string;
}

/** The `doc` of an order's row. */
export function orderDocOf(view: OrderView): OrderDoc {
  const doc: Record<string, unknown> = {};
  for (const field of DOC_FIELDS) {
    const value = view[field];
    if (value !== null) doc[field] = value;
  }
  return doc as unknown as OrderDoc;
}

/** The order's fields, from its row's columns and `doc`. */
export function orderFieldsOf(row: OrderColumns & { doc: OrderDoc }): OrderViewFields {
  const doc = row.doc;
  return {
    id: row.id,
    account_id: row.account_id,
    market_id: row.market_id,
    client_order_id: row.client_order_id,
    status: row.status,
    seq: Number(row.seq),
    action: doc.action,
    order_type: doc.order_type,
    quantity: doc.quantity,
    filled: doc.filled,
    price: doc.price ?? null,
    total_value: doc.total_value,
    device_id: doc.device_id ?? null,
    ip_address: doc.ip_address ?? null,
    expiration: doc.expiration ?? null,
    expiration_time: doc.expiration_time ?? null,
    expires_at: doc.expires_at ?? null,
    accepted_at: doc.accepted_at ?? null,
    delayed_until: doc.delayed_until ?? null,
    inserted_at: doc.inserted_at,
    placed_pre_start: doc.placed_pre_start,
    cancellation_reason: doc.cancellation_reason ?? null,
    rejection_reason: doc.rejection_reason ?? null,
    cancel_on_disconnect: doc.cancel_on_disconnect,
  };
}

/** The view of the order a row holds. */
export function orderViewOfRow(row: OrderColumns & { doc: OrderDoc }): OrderView {
  return orderView(orderRecordOf(orderFieldsOf(row)));
}

/** The columns an order's row is read back with (a SELECT list, `o` the row). */
export const ORDER_ROW_COLUMNS =
  'o.id, o.account_id, o.market_id, o.client_order_id, o.status, o.seq::text AS seq, o.doc';
