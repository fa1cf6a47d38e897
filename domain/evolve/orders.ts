// How facts change an order's record (domain/readModel/records.ts OrderRecord). The engine calls
// these on its live orders as it states each fact, and every read model folds the journal with
// them (projections/facts/fold.ts): one rule for both. Deterministic, no I/O, and they never
// throw: whether a change is allowed was decided before the fact was stated.

import { centsOf, nanosOf, plusContractsTimesCents, ZERO } from '../money/decimal.ts';
import type { OrderRecord } from '../readModel/records.ts';
import type { EngineEvent } from '../engine/events.ts';

type Placed = Extract<EngineEvent, { type: 'OrderAccepted' | 'OrderRejected' }>;

/** `rejection_reason` of an order refused for funds (the API answers 422 with it). */
export const REJECTION_TEXT = 'Insufficient funds';

/** What an order's status is after a fill leaves `remainingNanos` of it: filled when nothing is left. */
export function statusAfterFill(remainingNanos: number): 'open' | 'filled' {
  return remainingNanos === 0 ? 'filled' : 'open';
}

/** What an order's status is once cancelled: partially cancelled when something was filled. */
export function cancelledStatus(filledNanos: number): 'cancelled' | 'partially_cancelled' {
  return filledNanos > 0 ? 'partially_cancelled' : 'cancelled';
}

/** A placed order's record as its placement fact states it, before that fact's outcome (orderPlaced). */
export function orderRecordOf(fact: Placed, nowUs: number, seq: number): OrderRecord {
  return {
    id: fact.order_id,
    accountId: fact.account_id,
    marketId: fact.market_id,
    action: fact.action,
    orderType: fact.order_type,
    status: 'created',
    quantityNanos: nanosOf(fact.quantity),
    filledNanos: 0,
    priceCents: fact.price === null ? null : centsOf(fact.price),
    totalValue: ZERO,
    clientOrderId: fact.client_order_id,
    deviceId: fact.device_id,
    ipAddress: fact.ip_address,
    expiration: fact.expiration,
    expirationTime: fact.expiration_time,
    expiresAt: fact.expires_at,
    acceptedAt: null,
    delayedUntil: null,
    insertedAt: nowUs,
    placedPreStart: fact.placed_pre_start,
    cancellationReason: null,
    rejectionReason: null,
    cancelOnDisconnect: fact.cancel_on_disconnect,
    seq,
  };
}

/** OrderAccepted / OrderRejected: the order's first status. */
export function orderPlaced(order: OrderRecord, fact: Placed, nowUs: number): void {
  if (fact.type === 'OrderAccepted') {
    order.status = fact.status;
    if (fact.status === 'delayed') order.delayedUntil = fact.delayed_until;
    else order.acceptedAt = nowUs;
  } else if (fact.reason === 'insufficient_funds') {
    order.status = 'rejected';
    order.rejectionReason = REJECTION_TEXT;
  } else {
    order.status = 'cancelled';
    order.cancellationReason = 'no_liquidity';
  }
}

/** OrderReleased: into matching; accepted then unless it was already (a pre-open order was accepted when placed). */
export function orderReleased(order: OrderRecord, nowUs: number): void {
  order.status = 'open';
  if (order.acceptedAt === null) order.acceptedAt = nowUs;
}

/** OrderCancelled. */
export function orderCancelled(order: OrderRecord, status: 'cancelled' | 'partially_cancelled', reason: string): void {
  order.status = status;
  order.cancellationReason = reason;
}

/**
 * One side of a Traded fact applied to its order, as the fact states it: what is left and the
 * status; a fact of a record before version 6 leaves both null (upcast.ts completedV5), and they
 * follow from the order and the fill.
 */
export function orderTradedAs(
  order: OrderRecord,
  fact: Extract<EngineEvent, { type: 'Traded' }>,
  maker: boolean,
  nanos: number,
  priceCents: number,
): void {
  const remainingText = maker ? fact.maker_remaining : fact.taker_remaining;
  const remaining = remainingText === null ? order.quantityNanos - order.filledNanos - nanos : nanosOf(remainingText);
  orderTraded(
    order,
    nanos,
    priceCents,
    remaining,
    (maker ? fact.maker_status : fact.taker_status) ?? statusAfterFill(remaining),
  );
}

/** One side of a Traded fact: `nanos` at `priceCents`, leaving `remainingNanos` and `status`. */
export function orderTraded(
  order: OrderRecord,
  nanos: number,
  priceCents: number,
  remainingNanos: number,
  status: 'open' | 'filled',
): void {
  order.filledNanos = order.quantityNanos - remainingNanos;
  order.totalValue = plusContractsTimesCents(order.totalValue, nanos, priceCents);
  order.status = status;
}
