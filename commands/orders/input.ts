// An order body (shape already checked by the transport) → the engine's OrderRequest, with the API's
// value rules (docs/TRADING.md "Orders"):
// - price: > 0 and whole cents; required for `limit`; validated whenever present, even on a
//   `market` order; `null` is the same as omission. Below `max_price` is the engine's rule (422),
//   for a market order's price too.
// - quantity: > 0; more than nine decimal places is rounded (half up).
// - expiration_time: required when expiration is `good_till_time`.

import type { OrderRequest } from '../../domain/engine/inputs.ts';
import { messageOf, type Refusal } from '../../domain/errors.ts';
import { parseOrderPrice, parseOrderQuantity } from '../../domain/money/decimal.ts';

export interface OrderBody {
  action: 'buy' | 'sell';
  market_id: string;
  order_type: 'limit' | 'market';
  price?: string | null;
  quantity: string;
  cancel_on_disconnect?: boolean | null;
  client_order_id?: string | null;
  device_id?: string | null;
  expiration?: 'good_till_start' | 'good_till_time' | null;
  expiration_time?: number | null;
  geo_location?: string | null;
}

/** Where the order came from, as the transport knows it. */
export interface RequestOrigin {
  ip_address: string | null;
}

/** A body value refused with 400; `field` carries the batch leg's prefix (`orders[3].price`). */
type InvalidOrderField = Extract<Refusal, { code: 'invalid_order_field' }>;

/** `prefix` names the leg in batch errors, e.g. `orders[3].`. */
export function orderRequestOf(
  body: OrderBody,
  orderId: string,
  origin: RequestOrigin,
  prefix = '',
): OrderRequest | InvalidOrderField {
  const invalid = (field: string, message: string): InvalidOrderField => ({
    code: 'invalid_order_field',
    field: `${prefix}${field}`,
    message: `${prefix}${message}`,
  });
  let price: string | null = null;
  if (body.price !== undefined && body.price !== null) {
    const parsed = parseOrderPrice(body.price);
    if (!parsed.ok) return invalid('price', messageOf(parsed.error));
    price = parsed.value;
  }
  if (body.order_type === 'limit' && price === null) return invalid('price', 'price is required for limit orders');
  const quantity = parseOrderQuantity(body.quantity);
  if (!quantity.ok) return invalid('quantity', messageOf(quantity.error));
  const expiration = body.expiration ?? null;
  const expirationTime = body.expiration_time ?? null;
  if (expiration === 'good_till_time' && expirationTime === null) {
    return invalid('expiration_time', 'expiration_time is required when expiration is good_till_time');
  }
  if (expirationTime !== null && !Number.isSafeInteger(expirationTime))
    return invalid('expiration_time', 'expiration_time is out of range');
  return {
    order_id: orderId,
    market_id: body.market_id.toLowerCase(),
    action: body.action,
    order_type: body.order_type,
    price, // a market order's too: the engine checks it against max_price (422), then does not use it
    quantity: quantity.value,
    client_order_id: body.client_order_id ?? null,
    device_id: body.device_id ?? null,
    ip_address: origin.ip_address,
    expiration,
    expiration_time: expiration === 'good_till_time' ? expirationTime : null,
    cancel_on_disconnect: body.cancel_on_disconnect ?? false,
  };
}

export const isInvalidField = (value: OrderRequest | InvalidOrderField): value is InvalidOrderField =>
  (value as InvalidOrderField).code === 'invalid_order_field';
