// DELETE /orders/batched: `orders` is a list of `{order_id}` objects (a flat `order_ids` list is
// 400 `orders is required`) → the cancel command → each entry's status after cancelling, or the
// reason it was not cancelled (`Order not found` for an id that is unknown or not this account's).

import type { Request } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { cancelOrders } from '../../../commands/orders/orders.ts';
import { principalOf } from '../../auth/principal.ts';
import { CancelOrdersBody } from '../../openapi/schemas.ts';
import type { Answer } from '../idempotency.ts';
import { check, compile } from '../validation.ts';
import { requestIpOf } from './place.ts';
import { errorTextOf, valueOrRefuse } from '../../errors.ts';

const validateCancel = compile<{ orders: Array<{ order_id: string }>; geo_location?: string | null }>(CancelOrdersBody);

export function cancelOrdersRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const body = check(validateCancel, req.body);
    const result = await cancelOrders(
      ctx,
      principalOf(req),
      { order_ids: body.orders.map((o) => o.order_id), geo_location: body.geo_location },
      { ip_address: requestIpOf(req) },
    );
    const cancellations = valueOrRefuse(result).map((entry) => ({
      order_id: entry.order_id,
      status: entry.outcome === 'cancelled' ? entry.status : errorTextOf(entry.refusal),
    }));
    return { status: 200, body: { cancellations } };
  };
}
