// Engine replies → HTTP answers for the order writes. A write answers from the engine's outcome
// (the order as the engine left it); a refusal is 422 with the engine's reason.

import type { EngineReply, LegOutcome } from '../../../commands/engine/gateway.ts';
import { orderFromEvents } from '../../../commands/engine/gateway.ts';
import type { ErrorInfo } from '../../../domain/errors.ts';
import type { OrderView } from '../../../domain/views.ts';
import { HttpError } from '../../errors.ts';

export const ORDER_NOT_FOUND = 'Order not found';

/** A refusal of a whole input: 400 when the engine found it malformed, 422 otherwise. */
export function refusal(error: ErrorInfo | undefined): HttpError {
  const message = error?.message || 'Request refused';
  return new HttpError(error?.code === 'invalid' ? 400 : 422, message);
}

/** Each requested order id's outcome, from the reply's legs or, failing those, its events. */
export function legsOf(reply: EngineReply, orderIds: readonly string[]): LegOutcome[] {
  if (reply.legs && reply.legs.length === orderIds.length) return reply.legs;
  return orderIds.map((orderId) => {
    const leg = reply.legs?.find((l) => l.order_id === orderId);
    if (leg) return leg;
    const order = orderFromEvents(reply.events, orderId);
    return order ? { order_id: orderId, order } : { order_id: orderId, error: { code: 'not_found', message: ORDER_NOT_FOUND } };
  });
}

export function rejectionOf(order: OrderView): string {
  return order.rejection_reason ?? 'Order rejected';
}
