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
import { errorTextOf, httpErrorOf } from '../../errors.ts';

const validateOrder = compile<OrderBody>(PlaceOrderBody);
const validateBatch = compile<{ orders: OrderBody[]; geo_location?: string | null }>(PlaceOrdersBody);

export const requestIpOf = (req: Request): string | null => normalizeIp(req.ip ?? req.socket.remoteAddress);

export function placeOrderRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const body = check(validateOrder, req.body);
    const result = await placeOrder(ctx, principalOf(req), body, { ip_address: requestIpOf(req) });
    if (!result.ok) throw httpErrorOf(result.refusal);
    return { status: 200, body: { order: renderOrder(result.order) } };
  };
}

export function placeOrdersRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const body = check(validateBatch, req.body);
    const result = await placeOrders(ctx, principalOf(req), body, { ip_address: requestIpOf(req) });
    if (!result.ok) throw httpErrorOf(result.refusal);
    const results = result.legs.map((leg) =>
      leg.ok
        ? { order: renderOrder(leg.order) }
        : { errors: [{ error: errorTextOf(leg.refusal) }], order_id: leg.order_id },
    );
    return { status: 200, body: { results } };
  };
}
