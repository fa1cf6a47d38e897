// POST /orders and POST /orders/batched: parse (the body's shape) → the order command → render.
// A batch leg answers `{order}` or `{errors: [{error}], order_id}`. Under an Idempotency-Key the
// order ids come from the claim (api/v1/idempotency.ts), so a retry taking over the claim of a
// node that stopped answers the orders the first attempt journaled instead of placing them twice.

import type { Request } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { placeOrder, placeOrders, type OrderBody } from '../../../commands/orders/orders.ts';
import { normalizeIp } from '../../../domain/address.ts';
import { renderOrder, type OrderWire } from '../../../projections/core/render.ts';
import { principalOf } from '../../auth/principal.ts';
import { PlaceOrderBody, PlaceOrdersBody } from '../../openapi/schemas.ts';
import { claimedOrderIds, tookOverClaim, type Answer } from '../idempotency.ts';
import { readOrder } from '../liveReads.ts';
import { check, compile } from '../validation.ts';
import { errorTextOf, valueOrRefuse } from '../../errors.ts';

const validateOrder = compile<OrderBody>(PlaceOrderBody);
const validateBatch = compile<{ orders: OrderBody[]; geo_location?: string | null }>(PlaceOrdersBody);

export const requestIpOf = (req: Request): string | null => normalizeIp(req.ip ?? req.socket.remoteAddress);

/** How long a retry that took over a claim waits for the read models to reach the journal's head. */
const TAKEN_OVER_READ_WAIT_MS = 5_000;

/**
 * A retry that took over the Idempotency-Key claim of a node that stopped before answering
 * placed the same order ids again: an id the engine refuses as existing was journaled by the
 * first attempt, and is answered as the order is now (from the live view, else the read models
 * once they reach the journal's head). Undefined when the order is not found (the caller answers
 * the refusal as it is).
 */
async function journaledBefore(ctx: AppContext, req: Request, orderId: string): Promise<OrderWire | undefined> {
  const accountId = principalOf(req).account_id;
  await ctx.projections.waitFor(await ctx.store.headPosition(), TAKEN_OVER_READ_WAIT_MS).catch(() => undefined);
  return readOrder(ctx, accountId, orderId);
}

export function placeOrderRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const body = check(validateOrder, req.body);
    const orderIdOf = claimedOrderIds(req);
    const result = await placeOrder(ctx, principalOf(req), body, { ip_address: requestIpOf(req) }, orderIdOf);
    if (!result.ok && result.refusal.code === 'order_exists' && orderIdOf && tookOverClaim(req)) {
      const order = await journaledBefore(ctx, req, orderIdOf(0));
      if (order) return { status: 200, body: { order } };
    }
    return { status: 200, body: { order: renderOrder(valueOrRefuse(result)) } };
  };
}

export function placeOrdersRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const body = check(validateBatch, req.body);
    const orderIdOf = claimedOrderIds(req);
    const legs = valueOrRefuse(
      await placeOrders(ctx, principalOf(req), body, { ip_address: requestIpOf(req) }, orderIdOf),
    );
    const takenOver = tookOverClaim(req);
    const results = [];
    for (const leg of legs) {
      if (leg.ok) results.push({ order: renderOrder(leg.order) });
      else {
        const order =
          takenOver && leg.refusal.code === 'order_exists' ? await journaledBefore(ctx, req, leg.order_id) : undefined;
        results.push(order ? { order } : { errors: [{ error: errorTextOf(leg.refusal) }], order_id: leg.order_id });
      }
    }
    return { status: 200, body: { results } };
  };
}
