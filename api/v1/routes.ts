// The trading routes of /api/v1 as one table: the router registers them and the OpenAPI
// document describes them from the same entries, so the two cannot drift apart.

import type { Request } from 'express';
import type { AppContext } from '../../commands/context.ts';
import type { Answer } from './idempotency.ts';
import { balanceRoute, listFillsQuery, listFillsRoute, listPositionsQuery, listPositionsRoute } from './portfolio.ts';
import { listMarketsQuery, listMarketsRoute } from './markets.ts';
import { cancelOrdersRoute } from './orders/cancel.ts';
import { placeOrderRoute, placeOrdersRoute } from './orders/place.ts';
import { getOrderRoute, listOrdersQuery, listOrdersRoute } from './orders/read.ts';
import type { QuerySpec } from './query.ts';

export interface Deprecation {
  /** When the route was deprecated (ISO date-time); `Deprecation: @<unix seconds>`. */
  since: string;
  /** When it stops working (ISO date-time); `Sunset: <HTTP-date>`. */
  sunset: string;
  /** Where the replacement is documented (`Link: <...>; rel="deprecation"`). */
  link?: string;
}

export interface RouteSpec {
  method: 'get' | 'post' | 'delete';
  /** OpenAPI path relative to /api/v1, e.g. `/orders/{order_id}`. */
  path: string;
  operationId: string;
  summary: string;
  /** Places or cancels: needs a `read_write` key. */
  write?: boolean;
  /** Honours the Idempotency-Key header. */
  idempotent?: boolean;
  deprecated?: Deprecation;
  query?: QuerySpec;
  pathParams?: Array<{ name: string; schema: Record<string, unknown>; description: string }>;
  /** Component schema names. */
  body?: string;
  response: string;
  errors: number[];
  handler: (req: Request) => Promise<Answer>;
}

export function tradingRoutes(ctx: AppContext): RouteSpec[] {
  return [
    {
      method: 'post',
      path: '/orders',
      operationId: 'placeOrder',
      summary: 'Place one order',
      write: true,
      idempotent: true,
      body: 'PlaceOrderBody',
      response: 'OrderResponse',
      errors: [400, 401, 403, 422],
      handler: placeOrderRoute(ctx),
    },
    {
      method: 'post',
      path: '/orders/batched',
      operationId: 'placeOrders',
      summary: 'Place up to the batch limit of orders in one call',
      write: true,
      idempotent: true,
      body: 'PlaceOrdersBody',
      response: 'BatchPlaceResponse',
      errors: [400, 401, 403, 422],
      handler: placeOrdersRoute(ctx),
    },
    {
      method: 'delete',
      path: '/orders/batched',
      operationId: 'cancelOrders',
      summary: 'Cancel a set of orders',
      write: true,
      idempotent: true,
      body: 'CancelOrdersBody',
      response: 'BatchCancelResponse',
      errors: [400, 401, 403, 422],
      handler: cancelOrdersRoute(ctx),
    },
    {
      method: 'get',
      path: '/orders',
      operationId: 'listOrders',
      summary: 'Orders of the account, most recent first',
      query: listOrdersQuery,
      response: 'OrderList',
      errors: [400, 401, 403],
      handler: listOrdersRoute(ctx),
    },
    {
      method: 'get',
      path: '/orders/{order_id}',
      operationId: 'getOrder',
      summary: 'One order of the account',
      pathParams: [{ name: 'order_id', schema: { type: 'string', format: 'uuid' }, description: 'Order id' }],
      response: 'OrderResponse',
      errors: [400, 401, 403, 404],
      handler: getOrderRoute(ctx),
    },
    {
      method: 'get',
      path: '/markets',
      operationId: 'listMarkets',
      summary: 'Markets, tradeable first',
      query: listMarketsQuery,
      response: 'MarketList',
      errors: [400, 401, 403],
      handler: listMarketsRoute(ctx),
    },
    {
      method: 'get',
      path: '/fills',
      operationId: 'listFills',
      summary: 'Fills of the account, most recent first',
      query: listFillsQuery,
      response: 'FillList',
      errors: [400, 401, 403],
      handler: listFillsRoute(ctx),
    },
    {
      method: 'get',
      path: '/positions',
      operationId: 'listPositions',
      summary: 'Open positions, largest first',
      query: listPositionsQuery,
      response: 'PositionList',
      errors: [400, 401, 403],
      handler: listPositionsRoute(ctx),
    },
    {
      method: 'get',
      path: '/account/balance',
      operationId: 'getBalance',
      summary: 'Balance of the account',
      response: 'BalanceResponse',
      errors: [400, 401, 403],
      handler: balanceRoute(ctx),
    },
  ];
}

/** `/orders/{order_id}` → `/orders/:order_id` (express). */
export function expressPath(path: string): string {
  return path.replace(/\{([a-z_]+)\}/g, ':$1');
}
