// Engine replies → each requested order's outcome, in request order.

import type { EngineReply, LegOutcome } from '../../engine/gateway.ts';

/** Each requested order id's outcome, from the reply's legs (the orders as the engine left them). */
export function legsOf(reply: EngineReply, orderIds: readonly string[]): LegOutcome[] {
  if (reply.legs && reply.legs.length === orderIds.length) return reply.legs;
  return orderIds.map((orderId) => {
    const leg = reply.legs?.find((l) => l.order_id === orderId);
    return leg ?? { order_id: orderId, error: { code: 'order_not_found' } };
  });
}
