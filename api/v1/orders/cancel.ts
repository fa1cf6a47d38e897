// DELETE /orders/batched: `orders` is a list of `{order_id}` objects (a flat `order_ids` list is
// 400 `orders is required`); one location check; one CancelOrders input. Each entry answers the
// order's status after cancelling, or the reason it was not cancelled (`Order not found` for an
// id that is unknown or not this account's).

import type { Request } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { principalOf } from '../../auth/principal.ts';
import { CancelOrdersBody } from '../../openapi/schemas.ts';
import { badRequest } from '../../errors.ts';
import { checkLocation } from '../geofence.ts';
import type { Answer } from '../idempotency.ts';
import { check, compile } from '../validation.ts';
import { legsOf, ORDER_NOT_FOUND, refusal } from './engineAnswers.ts';
import { requestIpOf } from './place.ts';

const validateCancel = compile<{ orders: Array<{ order_id: string }>; geo_location?: string | null }>(CancelOrdersBody);

export function cancelOrders(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const principal = principalOf(req);
    const body = check(validateCancel, req.body);
    const limit = ctx.settings.get().batch_limit;
    if (body.orders.length > limit) throw badRequest(`orders must hold at most ${limit} orders`);
    checkLocation(ctx.settings.get().geofencing, body.geo_location, requestIpOf(req));
    const orderIds = body.orders.map((o) => o.order_id.toLowerCase());
    const reply = await ctx.engine.submit({ kind: 'CancelOrders', account_id: principal.account_id, order_ids: orderIds });
    if (!reply.ok) throw refusal(reply.error);
    ctx.writes.note(principal.account_id, reply.position);
    const cancellations = legsOf(reply, orderIds).map((leg) => {
      if (leg.order && leg.order.account_id !== principal.account_id) return { order_id: leg.order_id, status: ORDER_NOT_FOUND };
      if (leg.error) return { order_id: leg.order_id, status: leg.error.code === 'not_found' ? ORDER_NOT_FOUND : leg.error.message };
      return { order_id: leg.order_id, status: leg.order ? leg.order.status : ORDER_NOT_FOUND };
    });
    return { status: 200, body: { cancellations } };
  };
}
