// POST /orders and POST /orders/batched: parse (the body's shape) → the order command → render.
// A batch leg answers `{order}` or `{errors: [{error}], order_id}`.

import type { Request } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { placeOrder, placeOrders, type OrderBody } from '../../../commands/orders/orders.ts';
import { normalizeIp } from '../../../domain/address.ts';
import { renderOrder } from '../../../projections/core/render.ts';
import { principalOf } from '../../auth/principal.ts';
import { PlaceOrderBody, PlaceOrdersBody } from '../../openapi/schemas.ts';
import type { Answer } from '../idempotency.ts';
import { check, compile } from '../validation.ts';
import { errorTextOf, valueOrRefuse } from '../../errors.ts';

const validateOrder = compile<OrderBody>(PlaceOrderBody);
const validateBatch = compile<{ orders: OrderBody[]; geo_location?: string | null }>(PlaceOrdersBody);

export const requestIpOf = (req: Request): string | null => normalizeIp(req.ip ?? req.socket.remoteAddress);

export function placeOrderRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const body = check(validateOrder, req.body);
    const order = valueOrRefuse(await placeOrder(ctx, principalOf(req), body, { ip_address: requestIpOf(req) }));
    return { status: 200, body: { order: renderOrder(order) } };
  };
}

export function placeOrdersRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const body = check(validateBatch, req.body);
    const legs = valueOrRefuse(await placeOrders(ctx, principalOf(req), body, { ip_address: requestIpOf(req) }));
    const results = legs.map((leg) =>
      leg.ok
        ? { order: renderOrder(leg.order) }
        : { errors: [{ error: errorTextOf(leg.refusal) }], order_id: leg.order_id },
    );
    return { status: 200, body: { results } };
  };
}
