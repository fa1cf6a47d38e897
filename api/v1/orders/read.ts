// GET /orders (most recent first; filters order_ids, client_order_ids, market_ids, status) and
// GET /orders/{order_id} (another account's order is 404, never 403).

import { isUuid } from '../../../domain/uuid.ts';
import type { Request } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { principalOf } from '../../auth/principal.ts';
import { badRequest, notFound } from '../../errors.ts';
import { ORDER_STATUSES } from '../../openapi/schemas.ts';
import type { Answer } from '../idempotency.ts';
import { csvOf, pageParamsOf, pagedQuerySpec, readQuery, uuidListParam, uuidsOf } from '../query.ts';
import type { OrderStatus } from '../../../domain/views.ts';
import { readOrder, readOrders } from '../liveReads.ts';

export const NO_SUCH_RECORD = 'No such record on this account';

export const listOrdersQuery = pagedQuerySpec([
  uuidListParam('order_ids', 'Comma-separated order UUIDs'),
  {
    name: 'client_order_ids',
    kind: 'csv',
    verbatim: true,
    schema: { type: 'string', maxLength: 256 },
    description: 'Comma-separated client order ids',
  },
  uuidListParam('market_ids', 'Comma-separated market UUIDs'),
  {
    name: 'status',
    kind: 'csv',
    schema: { enum: [...ORDER_STATUSES] },
    description: 'Comma-separated lowercase order statuses; an unknown value is 400',
  },
]);

export function listOrdersRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const query = readQuery(req, listOrdersQuery);
    const page = await readOrders(
      ctx,
      principalOf(req).account_id,
      {
        orderIds: uuidsOf(query.order_ids),
        clientOrderIds: csvOf(query.client_order_ids),
        marketIds: uuidsOf(query.market_ids),
        statuses: csvOf(query.status) as OrderStatus[] | undefined,
      },
      pageParamsOf(query),
    );
    return { status: 200, body: { cursor: page.cursor, orders: page.orders } };
  };
}

export function getOrderRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const orderId = String(req.params.order_id ?? '');
    if (orderId === 'batched') throw notFound('Not found');
    if (!isUuid(orderId)) throw badRequest('order_id must be a UUID');
    const order = await readOrder(ctx, principalOf(req).account_id, orderId.toLowerCase());
    if (!order) throw notFound(NO_SUCH_RECORD);
    return { status: 200, body: { order } };
  };
}
