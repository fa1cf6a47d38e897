// The order commands, for every transport (REST, the WebSocket feed, a later FIX gateway): a
// member and plain input in, a typed result out. Each validates the body's values, checks the
// location rules, submits one engine input, and answers from the engine's outcome (the order as
// the engine left it). The engine notes the write of every account a step touched for
// read-your-writes before it answers. Refusals are typed; transports map them to their wire form.

import { randomUUID } from 'node:crypto';
import type { EngineInput, OrderLimits, OrderRequest } from '../../domain/engine/inputs.ts';
import type { Refusal } from '../../domain/errors.ts';
import type { OrderView } from '../../domain/views.ts';
import type { MemberPrincipal } from '../auth/principal.ts';
import type { EngineGateway, EngineReply } from '../../engine/gateway.ts';
import type { SettingsStore } from '../settings/settings.ts';
import { isInvalidField, orderRequestOf, type OrderBody, type RequestOrigin } from './input.ts';
import { legsOf } from './legs.ts';
import { checkLocation } from './location.ts';
import { accepted, refused, type CommandResult } from '../result.ts';

export type { OrderBody } from './input.ts';

export interface OrderCommandDeps {
  engine: EngineGateway;
  settings: SettingsStore;
}

// Each command answers a CommandResult. Refused as a whole (nothing was placed or cancelled): a
// field value (invalid_order_field), the batch size, the location check, the engine's refusal of
// the input (e.g. price at or above max_price, unknown market) or of the order it made
// (order_rejected). A batch's legs and a cancel's entries carry their own outcomes.

/** The engine answered without saying why (it always says; this is the fallback). */
const REQUEST_REFUSED: Refusal = { code: 'request_refused' };
const ORDER_NOT_FOUND: Refusal = { code: 'order_not_found' };

const ORDER_REJECTED_DEFAULT = 'Order rejected';
/** The least an order may risk, in cents: an order risking less costs the book more than it brings. */
const ORDER_RISK_MIN_CENTS = 1;

/** The limits every new order is judged under (stamped on the engine input, so replay judges alike). */
function orderLimitsOf(deps: OrderCommandDeps): OrderLimits {
  return { live_orders_max: deps.settings.get().max_live_orders_per_account, risk_min_cents: ORDER_RISK_MIN_CENTS };
}

/** The engine's reply, or its refusal of the input. */
const replyOf = (reply: EngineReply): CommandResult<EngineReply> =>
  reply.ok ? accepted(reply) : refused(reply.error ?? REQUEST_REFUSED);

/** The location rules, then the engine input: the engine's reply, or the refusal. */
async function submitFrom(
  deps: OrderCommandDeps,
  geoLocation: string | null | undefined,
  origin: RequestOrigin,
  input: EngineInput,
): Promise<CommandResult<EngineReply>> {
  const location = checkLocation(deps.settings.get().geofencing, geoLocation, origin.ip_address);
  if (location) return refused(location);
  return replyOf(await deps.engine.submit(input));
}

/** One leg of a batch: the order, or why that order alone was not placed. */
type PlacedLeg = { ok: true; order: OrderView } | { ok: false; order_id: string; refusal: Refusal };

/** One entry of a cancel request: the order's status after cancelling, or why it was not (order_not_found for another member's). */
type CancelOutcome =
  | { order_id: string; outcome: 'cancelled'; status: OrderView['status'] }
  | { order_id: string; outcome: 'refused'; refusal: Refusal };

interface CancelAllOptions {
  /** Only this market's orders; null for every market. */
  market_id: string | null;
  /** Only orders placed with `cancel_on_disconnect: true`. */
  cancel_on_disconnect_only: boolean;
}

function batchLimitRefusal(deps: OrderCommandDeps, count: number): { ok: false; refusal: Refusal } | null {
  const limit = deps.settings.get().batch_limit;
  return count > limit ? refused({ code: 'batch_too_large', limit }) : null;
}

export async function placeOrder(
  deps: OrderCommandDeps,
  member: MemberPrincipal,
  body: OrderBody,
  origin: RequestOrigin,
  orderIdOf: (leg: number) => string = () => randomUUID(),
): Promise<CommandResult<OrderView>> {
  const order = orderRequestOf(body, orderIdOf(0), origin);
  if (isInvalidField(order)) return refused(order);
  const submitted = await submitFrom(deps, body.geo_location, origin, {
    kind: 'PlaceOrder',
    account_id: member.account_id,
    order,
    limits: orderLimitsOf(deps),
  });
  if (!submitted.ok) return submitted;
  const [leg] = legsOf(submitted.value, [order.order_id]);
  if (!leg?.order) return refused(leg?.error ?? REQUEST_REFUSED);
  if (leg.order.status === 'rejected')
    return refused({ code: 'order_rejected', reason: leg.order.rejection_reason ?? ORDER_REJECTED_DEFAULT });
  return accepted(leg.order);
}

/** A batch: every leg is validated first (any bad leg refuses the whole batch); one location check; one engine input. */
export async function placeOrders(
  deps: OrderCommandDeps,
  member: MemberPrincipal,
  body: { orders: OrderBody[]; geo_location?: string | null },
  origin: RequestOrigin,
  orderIdOf: (leg: number) => string = () => randomUUID(),
): Promise<CommandResult<PlacedLeg[]>> {
  const tooLarge = batchLimitRefusal(deps, body.orders.length);
  if (tooLarge) return tooLarge;
  const orders: OrderRequest[] = [];
  for (const [i, leg] of body.orders.entries()) {
    const order = orderRequestOf(leg, orderIdOf(i), origin, `orders[${i}].`);
    if (isInvalidField(order)) return refused(order);
    orders.push(order);
  }
  const submitted = await submitFrom(deps, body.geo_location, origin, {
    kind: 'PlaceOrders',
    account_id: member.account_id,
    orders,
    limits: orderLimitsOf(deps),
  });
  if (!submitted.ok) return submitted;
  const legs = legsOf(
    submitted.value,
    orders.map((o) => o.order_id),
  ).map((leg): PlacedLeg => {
    if (leg.order && leg.order.status !== 'rejected') return { ok: true, order: leg.order };
    const refusal: Refusal =
      leg.order || !leg.error
        ? { code: 'order_rejected', reason: leg.order?.rejection_reason ?? ORDER_REJECTED_DEFAULT }
        : leg.error;
    return { ok: false, order_id: leg.order_id, refusal };
  });
  return accepted(legs);
}

/** Cancels the listed orders (one is a list of one); another member's order is not found. */
export async function cancelOrders(
  deps: OrderCommandDeps,
  member: MemberPrincipal,
  body: { order_ids: string[]; geo_location?: string | null },
  origin: RequestOrigin,
): Promise<CommandResult<CancelOutcome[]>> {
  const tooLarge = batchLimitRefusal(deps, body.order_ids.length);
  if (tooLarge) return tooLarge;
  const orderIds = body.order_ids.map((id) => id.toLowerCase());
  const submitted = await submitFrom(deps, body.geo_location, origin, {
    kind: 'CancelOrders',
    account_id: member.account_id,
    order_ids: orderIds,
  });
  if (!submitted.ok) return submitted;
  const cancellations = legsOf(submitted.value, orderIds).map((leg): CancelOutcome => {
    if (leg.order && leg.order.account_id !== member.account_id)
      return { order_id: leg.order_id, outcome: 'refused', refusal: ORDER_NOT_FOUND };
    if (leg.error) return { order_id: leg.order_id, outcome: 'refused', refusal: leg.error };
    return leg.order
      ? { order_id: leg.order_id, outcome: 'cancelled', status: leg.order.status }
      : { order_id: leg.order_id, outcome: 'refused', refusal: ORDER_NOT_FOUND };
  });
  return accepted(cancellations);
}

/**
 * Cancels every live order of the member (in one market or all; optionally only those placed with
 * cancel_on_disconnect). The engine chooses the orders, in the same step that cancels them, so an
 * order placed just before is never missed; the step is journaled and replayed like any cancel.
 */
export async function cancelAllOrders(
  deps: Pick<OrderCommandDeps, 'engine'>,
  member: Pick<MemberPrincipal, 'account_id'>,
  options: CancelAllOptions,
): Promise<CommandResult<OrderView[]>> {
  const submitted = replyOf(
    await deps.engine.submit({
      kind: 'CancelAccountOrders',
      account_id: member.account_id,
      market_id: options.market_id === null ? null : options.market_id.toLowerCase(),
      cancel_on_disconnect_only: options.cancel_on_disconnect_only,
    }),
  );
  if (!submitted.ok) return submitted;
  const cancelled = (submitted.value.legs ?? []).flatMap((leg) => (leg.order ? [leg.order] : []));
  return accepted(cancelled);
}
