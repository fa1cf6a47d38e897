// POST /orders and POST /orders/batched.
// Single: validate (ajv + value rules) → location check → PlaceOrder → the order as the engine
// left it; a rejected order or a refused input is 422 with the reason.
// Batch: every leg is validated first (any bad leg is 400 and nothing is placed); at most
// `batch_limit` legs; one location check for the whole batch (codes inside legs are ignored);
// one PlaceOrders input; each leg answers `{order}` or `{errors: [{error}], order_id}`.

import { randomUUID } from 'node:crypto';
import type { Request } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import type { OrderRequest } from '../../../domain/engine/inputs.ts';
import { renderOrder } from '../../../projections/core/render.ts';
import { principalOf } from '../../auth/principal.ts';
import { PlaceOrderBody, PlaceOrdersBody } from '../../openapi/schemas.ts';
import { badRequest } from '../../errors.ts';
import { checkLocation, normalizeIp } from '../geofence.ts';
import type { Answer } from '../idempotency.ts';
import { check, compile } from '../validation.ts';
import { legsOf, refusal, rejectionOf } from './engineAnswers.ts';
import { orderRequestOf, type OrderBody } from './input.ts';

const validateOrder = compile<OrderBody>(PlaceOrderBody);
const validateBatch = compile<{ orders: OrderBody[]; geo_location?: string | null }>(PlaceOrdersBody);

export const requestIpOf = (req: Request): string | null => normalizeIp(req.ip ?? req.socket.remoteAddress);

export function placeOrder(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const principal = principalOf(req);
    const body = check(validateOrder, req.body);
    const ip = requestIpOf(req);
    const order = orderRequestOf(body, randomUUID(), { ip_address: ip });
    checkLocation(ctx.settings.get().geofencing, body.geo_location, ip);
    const reply = await ctx.engine.submit({ kind: 'PlaceOrder', account_id: principal.account_id, order });
    if (!reply.ok) throw refusal(reply.error);
    ctx.writes.note(principal.account_id, reply.position);
    const [leg] = legsOf(reply, [order.order_id]);
    if (!leg?.order) throw refusal(leg?.error);
    if (leg.order.status === 'rejected') throw refusal({ code: 'refused', message: rejectionOf(leg.order) });
    return { status: 200, body: { order: renderOrder(leg.order) } };
  };
}

export function placeOrders(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const principal = principalOf(req);
    const body = check(validateBatch, req.body);
    const batchLimit = ctx.settings.get().batch_limit;
    if (body.orders.length > batchLimit) throw badRequest(`orders must hold at most ${batchLimit} orders`);
    const ip = requestIpOf(req);
    const orders: OrderRequest[] = body.orders.map((leg, i) => orderRequestOf(leg, randomUUID(), { ip_address: ip }, `orders[${i}].`));
    checkLocation(ctx.settings.get().geofencing, body.geo_location, ip);
    const reply = await ctx.engine.submit({ kind: 'PlaceOrders', account_id: principal.account_id, orders });
    if (!reply.ok) throw refusal(reply.error);
    ctx.writes.note(principal.account_id, reply.position);
    const results = legsOf(reply, orders.map((o) => o.order_id)).map((leg) => {
      if (leg.order && leg.order.status !== 'rejected') return { order: renderOrder(leg.order) };
      const reason = leg.order ? rejectionOf(leg.order) : leg.error?.message ?? 'Order rejected';
      return { errors: [{ error: reason }], order_id: leg.order_id };
    });
    return { status: 200, body: { results } };
  };
}
