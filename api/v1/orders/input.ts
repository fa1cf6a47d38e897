// A validated order body → the engine's OrderRequest. ajv has checked shapes (strings, enums,
// uuid); this adds SPEC's value rules:
// - price: > 0 and whole cents (`0.42` and `0.4200` are equal, `0.001` is refused); required
//   for `limit`; validated whenever present, even on a `market` order (which does not use it);
//   `null` is the same as omission. Below `max_price` is the engine's check (422), for a
//   market order's price too.
// - quantity: > 0; more than nine decimal places is rounded (half up).
// - expiration_time: required when expiration is `good_till_time`.

import Big from 'big.js';
import type { OrderRequest } from '../../../domain/engine/inputs.ts';
import { badRequest } from '../../errors.ts';

export const QUANTITY_DECIMALS_MAX = 9;

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

export interface RequestOrigin {
  ip_address: string | null;
}

function wholeCents(field: string, raw: string): string {
  const price = new Big(raw);
  if (price.lte(0)) throw badRequest(`${field} must be greater than 0`);
  if (!price.round(2, Big.roundDown).eq(price)) throw badRequest(`${field} must be a whole number of cents (at most two decimal places)`);
  return price.toFixed(2);
}

function contracts(field: string, raw: string): string {
  const quantity = new Big(raw).round(QUANTITY_DECIMALS_MAX, Big.roundHalfUp);
  if (quantity.lte(0)) throw badRequest(`${field} must be greater than 0`);
  return quantity.toFixed();
}

/** `prefix` names the leg in batch errors, e.g. `orders[3].`. */
export function orderRequestOf(body: OrderBody, orderId: string, origin: RequestOrigin, prefix = ''): OrderRequest {
  const price = body.price === undefined || body.price === null ? null : wholeCents(`${prefix}price`, body.price);
  if (body.order_type === 'limit' && price === null) throw badRequest(`${prefix}price is required for limit orders`);
  const quantity = contracts(`${prefix}quantity`, body.quantity);
  const expiration = body.expiration ?? null;
  const expirationTime = body.expiration_time ?? null;
  if (expiration === 'good_till_time' && expirationTime === null) {
    throw badRequest(`${prefix}expiration_time is required when expiration is good_till_time`);
  }
  if (expirationTime !== null && !Number.isSafeInteger(expirationTime)) throw badRequest(`${prefix}expiration_time is out of range`);
  return {
    order_id: orderId,
    market_id: body.market_id.toLowerCase(),
    action: body.action,
    order_type: body.order_type,
    price, // a market order's too: the engine checks it against max_price (422), then does not use it
    quantity,
    client_order_id: body.client_order_id ?? null,
    device_id: body.device_id ?? null,
    ip_address: origin.ip_address,
    expiration,
    expiration_time: expiration === 'good_till_time' ? expirationTime : null,
    cancel_on_disconnect: body.cancel_on_disconnect ?? false,
  };
}
