// Read side of the trading routes: thin adapters over the core read-model queries
// (projections/core/queries), taking the route's parsed filters and page parameters. Live
// orders, the balance and positions are answered from the engine's live view when it can
// (liveReads.ts); otherwise from the read models once they passed the member's last write.

import type { AppContext } from '../../commands/context.ts';
import { readYourWrites } from '../../commands/readYourWrites.ts';
import type { FillStatus, OrderStatus } from '../../domain/views.ts';
import type { MarketWire } from '../../projections/core/market.ts';
import { getBalance as getCoreBalance } from '../../projections/core/queries/accounts.ts';
import { listFills as listCoreFills } from '../../projections/core/queries/fills.ts';
import { listMarkets as listCoreMarkets, type MarketFilters } from '../../projections/core/queries/markets.ts';
import { getOrder as getCoreOrder, listOrders as listCoreOrders } from '../../projections/core/queries/orders.ts';
import { listPositions as listCorePositions } from '../../projections/core/queries/positions.ts';
import type { BalanceWire, FillWire, OrderWire, PositionWire } from '../../projections/core/render.ts';
import { liveBalanceOf, liveOrderOf, liveOrdersOf, livePositionsOf } from './liveReads.ts';

interface Page<T> {
  items: T[];
  cursor: string | null;
}

interface PageParams {
  limit: number;
  cursor: string | undefined;
}

interface OrderFilters {
  order_ids?: string[];
  client_order_ids?: string[];
  market_ids?: string[];
  statuses?: string[];
}

interface FillFilters {
  market_ids?: string[];
  order_ids?: string[];
  status?: string;
}

const pageRequest = (page: PageParams) => ({ limit: page.limit, cursor: page.cursor ?? null });

export async function listOrders(
  ctx: AppContext,
  accountId: string,
  filters: OrderFilters,
  page: PageParams,
): Promise<Page<OrderWire>> {
  const coreFilters = {
    orderIds: filters.order_ids,
    clientOrderIds: filters.client_order_ids,
    marketIds: filters.market_ids,
    statuses: filters.statuses as OrderStatus[] | undefined,
  };
  const live = liveOrdersOf(ctx, accountId, coreFilters, pageRequest(page));
  if (live) return { items: live.orders, cursor: live.cursor };
  await readYourWrites(ctx, accountId);
  const result = await listCoreOrders(ctx.pool, accountId, coreFilters, pageRequest(page));
  return { items: result.orders, cursor: result.cursor };
}

export async function getOrder(ctx: AppContext, accountId: string, orderId: string): Promise<OrderWire | undefined> {
  const live = liveOrderOf(ctx, accountId, orderId);
  if (live) return live;
  await readYourWrites(ctx, accountId);
  return (await getCoreOrder(ctx.pool, accountId, orderId)) ?? undefined;
}

export async function listFills(
  ctx: AppContext,
  accountId: string,
  filters: FillFilters,
  page: PageParams,
): Promise<Page<FillWire>> {
  const result = await listCoreFills(
    ctx.pool,
    accountId,
    {
      marketIds: filters.market_ids,
      orderIds: filters.order_ids,
      status: filters.status as FillStatus | undefined,
    },
    pageRequest(page),
  );
  return { items: result.fills, cursor: result.cursor };
}

export async function listPositions(ctx: AppContext, accountId: string, page: PageParams): Promise<Page<PositionWire>> {
  const live = livePositionsOf(ctx, accountId, pageRequest(page));
  if (live) return { items: live.positions, cursor: live.cursor };
  await readYourWrites(ctx, accountId);
  const result = await listCorePositions(ctx.pool, accountId, pageRequest(page));
  return { items: result.positions, cursor: result.cursor };
}

export async function getBalance(ctx: AppContext, accountId: string): Promise<BalanceWire | undefined> {
  const live = liveBalanceOf(ctx, accountId);
  if (live) return live;
  await readYourWrites(ctx, accountId);
  return (await getCoreBalance(ctx.pool, accountId)) ?? undefined;
}

/** GET /markets: the core markets query (market_ids unpaginated and overriding the rest). */
export async function listMarkets(
  ctx: AppContext,
  filters: MarketFilters,
  page: PageParams,
): Promise<Page<MarketWire>> {
  const result = await listCoreMarkets(ctx.pool, filters, pageRequest(page), ctx.clock.nowUs());
  return { items: result.markets, cursor: result.cursor };
}
