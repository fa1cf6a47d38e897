// The reads of live state: a live order by id, a list of orders whose status filter names only
// live statuses, the balance, the open positions. Each is answered from the engine's live view
// (engine/gateway.ts LiveView) when it can, exactly as the read model would (same fields, same
// order, same cursors: keys made and read by the same pagination code), and only once the view
// has passed the member's last write; when it cannot (no view, a status that may have ended, an
// order it does not hold, a live order whose journal place it does not know) from the read
// models, after the bounded read-your-writes wait.
//
// The authentication of these routes therefore does not wait for the projectors
// (`readsWaitInHandler`): the handler waits when it goes to PostgreSQL.

import { liveViewFor, readYourWrites } from '../../commands/readYourWrites.ts';
import type { AppContext } from '../../commands/context.ts';
import { compareTexts } from '../../domain/money/decimal.ts';
import { UUID_PATTERN_SOURCE } from '../../domain/uuid.ts';
import { LIVE_ORDER_STATUSES } from '../../domain/views.ts';
import { comparePlaces, type LiveOrder, type LivePosition } from '../../engine/gateway.ts';
import { pageOf } from '../../projections/pagination.ts';
import { getBalance } from '../../projections/core/queries/accounts.ts';
import { cursorParts, limitOf, listFilter, type PageRequest } from '../../projections/core/queries/db.ts';
import { getOrder, listOrders, type OrderFilters } from '../../projections/core/queries/orders.ts';
import { listPositions } from '../../projections/core/queries/positions.ts';
import {
  renderBalance,
  renderOrder,
  renderPosition,
  type BalanceWire,
  type OrderWire,
  type PositionWire,
} from '../../projections/core/render.ts';

const LIVE: ReadonlySet<string> = new Set(LIVE_ORDER_STATUSES);
/** The routes whose handlers may answer from the live view, spelled exactly as the router serves them (query aside). */
const LIVE_READ_PATHS = new RegExp(`^/api/v1/(?:orders|orders/${UUID_PATTERN_SOURCE}|account/balance|positions)$`);

/**
 * Whether a read's handler does its own read-your-writes wait (it may answer from the live view
 * without one): the credential check then does not wait for the projectors first.
 */
export function readsWaitInHandler(method: string, pathWithQuery: string): boolean {
  if (method !== 'GET') return false;
  const query = pathWithQuery.indexOf('?');
  return LIVE_READ_PATHS.test(query < 0 ? pathWithQuery : pathWithQuery.slice(0, query));
}

/** The account's live order, or undefined when the view cannot tell (not live there, another account's, or behind). */
export function liveOrderOf(
  ctx: Pick<AppContext, 'writes' | 'engine'>,
  accountId: string,
  orderId: string,
): OrderWire | undefined {
  const order = liveViewFor(ctx, accountId)?.order(accountId, orderId);
  return order ? renderOrder(order.view) : undefined;
}

/**
 * GET /orders from the live view when the status filter names live statuses only: most recent
 * first by journal place, keyset paged with the read model's cursor. Undefined: ask the read model.
 */
export function liveOrdersOf(
  ctx: Pick<AppContext, 'writes' | 'engine'>,
  accountId: string,
  filters: OrderFilters,
  page: PageRequest,
): { cursor: string | null; orders: OrderWire[] } | undefined {
  const statuses = listFilter(filters.statuses);
  if (!statuses || !statuses.every((status) => LIVE.has(status))) return undefined;
  const view = liveViewFor(ctx, accountId);
  const account = view?.account(accountId);
  if (!view || !account || account.unkeyedOrders > 0) return undefined;
  const limit = limitOf(page);
  const parts = cursorParts(page.cursor, ['int', 'int4']);
  const after: readonly [bigint, number] | null = parts ? [BigInt(parts[0] as string), Number(parts[1])] : null;
  const wanted = (values: readonly string[] | undefined) => (values ? new Set(values) : undefined);
  const ids = wanted(listFilter(filters.orderIds));
  const clientIds = wanted(listFilter(filters.clientOrderIds));
  const marketIds = wanted(listFilter(filters.marketIds));
  const statusSet = new Set<string>(statuses);
  const rows: LiveOrder[] = [];
  const take = (order: LiveOrder): boolean => {
    const view = order.view;
    if (clientIds && (view.client_order_id === null || !clientIds.has(view.client_order_id))) return true;
    if (marketIds && !marketIds.has(view.market_id)) return true;
    if (statusSet.has(view.status)) rows.push(order);
    return rows.length <= limit;
  };
  if (ids) {
    // a few ids: look each up rather than walk every live order
    const named: LiveOrder[] = [];
    for (const id of ids) {
      const order = view.order(accountId, id);
      if (order && (after === null || comparePlaces(order.key!, after) < 0)) named.push(order); // unkeyedOrders is 0
    }
    named.sort((a, b) => comparePlaces(b.key!, a.key!));
    for (const order of named) if (!take(order)) break;
  } else {
    account.orders.newestFirst(after, take);
  }
  const { page: shown, cursor } = pageOf(rows, limit, (order) => [order.key![0].toString(), order.key![1]]);
  return { cursor, orders: shown.map((order) => renderOrder(order.view)) };
}

/** GET /account/balance from the live view; undefined: ask the read model. */
export function liveBalanceOf(ctx: Pick<AppContext, 'writes' | 'engine'>, accountId: string): BalanceWire | undefined {
  const account = liveViewFor(ctx, accountId)?.account(accountId);
  return account ? renderBalance(account.balance) : undefined;
}

/** GET /positions from the live view (largest first, ties by market id, the read model's cursor); undefined: ask the read model. */
export function livePositionsOf(
  ctx: Pick<AppContext, 'writes' | 'engine'>,
  accountId: string,
  page: PageRequest,
): { cursor: string | null; positions: PositionWire[] } | undefined {
  const account = liveViewFor(ctx, accountId)?.account(accountId);
  if (!account) return undefined;
  const limit = limitOf(page);
  const after = cursorParts(page.cursor, ['dec', 'text']);
  const rows: LivePosition[] = [];
  for (const position of account.positions) {
    if (rows.length > limit) break;
    if (after) {
      const order = compareTexts(position.contracts, after[0] as string);
      if (order > 0 || (order === 0 && !(position.view.market_id > (after[1] as string)))) continue;
    }
    rows.push(position);
  }
  const { page: shown, cursor } = pageOf(rows, limit, (position) => [position.contracts, position.view.market_id]);
  return { cursor, positions: shown.map((position) => renderPosition(position.view)) };
}

/** GET /orders/{order_id}: the live view's order, else the read model's (undefined: not this account's). */
export async function readOrder(ctx: AppContext, accountId: string, orderId: string): Promise<OrderWire | undefined> {
  const live = liveOrderOf(ctx, accountId, orderId);
  if (live) return live;
  await readYourWrites(ctx, accountId);
  return (await getOrder(ctx.pool, accountId, orderId)) ?? undefined;
}

/** GET /orders: from the live view when it can answer, else from the read model. */
export async function readOrders(
  ctx: AppContext,
  accountId: string,
  filters: OrderFilters,
  page: PageRequest,
): Promise<{ cursor: string | null; orders: OrderWire[] }> {
  const live = liveOrdersOf(ctx, accountId, filters, page);
  if (live) return live;
  await readYourWrites(ctx, accountId);
  return listOrders(ctx.pool, accountId, filters, page);
}

/** GET /positions: from the live view when it can answer, else from the read model. */
export async function readPositions(
  ctx: AppContext,
  accountId: string,
  page: PageRequest,
): Promise<{ cursor: string | null; positions: PositionWire[] }> {
  const live = livePositionsOf(ctx, accountId, page);
  if (live) return live;
  await readYourWrites(ctx, accountId);
  return listPositions(ctx.pool, accountId, page);
}

/** GET /account/balance: the live view's, else the read model's (undefined: no such account). */
export async function readBalance(ctx: AppContext, accountId: string): Promise<BalanceWire | undefined> {
  const live = liveBalanceOf(ctx, accountId);
  if (live) return live;
  await readYourWrites(ctx, accountId);
  return (await getBalance(ctx.pool, accountId)) ?? undefined;
}
