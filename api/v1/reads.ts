// Read-side queries of the trading routes over the core read models (projections/core tables).
// Markets use the core query module; orders, fills, positions and balance are queried here
// directly on the core tables until core query functions for them exist.
// Each returns wire-rendered objects and a keyset cursor ("most recent first" is the journal
// insertion order ins_pos/ins_idx, so paging is stable while rows are inserted).

import type { AppContext } from '../../commands/context.ts';
import type { BalanceView, FillView, OrderView, PositionView } from '../../domain/views.ts';
import type { MarketWire } from '../../projections/core/market.ts';
import { listMarkets as listCoreMarkets, type MarketFilters } from '../../projections/core/queries/markets.ts';
import { cursorParts, pageFrom, Where } from '../../projections/core/queries/db.ts';
import { renderBalance, renderFill, renderOrder, renderPosition, type BalanceWire, type FillWire, type OrderWire, type PositionWire } from '../../projections/core/render.ts';

export interface Page<T> {
  items: T[];
  cursor: string | null;
}

export interface PageParams {
  limit: number;
  cursor: string | undefined;
}

export interface OrderFilters {
  order_ids?: string[];
  client_order_ids?: string[];
  market_ids?: string[];
  statuses?: string[];
}

interface RecentRow<Doc> { doc: Doc; ins_pos: string; ins_idx: number }

/** Keyset page "most recent first" over a table with (account_id, ins_pos, ins_idx). */
async function recentPage<Doc>(ctx: AppContext, table: string, where: Where, page: PageParams): Promise<Page<Doc>> {
  const after = cursorParts(page.cursor, ['int', 'int']);
  if (after) where.and(`(ins_pos, ins_idx) < (${where.param(after[0])}::bigint, ${where.param(after[1])}::int)`);
  const limit = where.param(page.limit + 1);
  const result = await ctx.pool.query<RecentRow<Doc>>(
    `SELECT doc, ins_pos::text AS ins_pos, ins_idx FROM ${table} ${where.sql()} ORDER BY ins_pos DESC, ins_idx DESC LIMIT ${limit}`,
    where.values,
  );
  const { page: rows, cursor } = pageFrom(result.rows, page.limit, (row) => [row.ins_pos, row.ins_idx]);
  return { items: rows.map((row) => row.doc), cursor };
}

export async function listOrders(ctx: AppContext, accountId: string, filters: OrderFilters, page: PageParams): Promise<Page<OrderWire>> {
  const where = new Where();
  where.and(`account_id = ${where.param(accountId)}`);
  if (filters.order_ids) where.and(`id = ANY(${where.param(filters.order_ids)}::text[])`);
  if (filters.client_order_ids) where.and(`client_order_id = ANY(${where.param(filters.client_order_ids)}::text[])`);
  if (filters.market_ids) where.and(`market_id = ANY(${where.param(filters.market_ids)}::text[])`);
  if (filters.statuses) where.and(`status = ANY(${where.param(filters.statuses)}::text[])`);
  const result = await recentPage<OrderView>(ctx, 'core_orders', where, page);
  return { items: result.items.map(renderOrder), cursor: result.cursor };
}

export async function getOrder(ctx: AppContext, accountId: string, orderId: string): Promise<OrderWire | undefined> {
  const result = await ctx.pool.query<{ doc: OrderView }>('SELECT doc FROM core_orders WHERE id = $1 AND account_id = $2', [orderId, accountId]);
  const row = result.rows[0];
  return row ? renderOrder(row.doc) : undefined;
}

export interface FillFilters {
  market_ids?: string[];
  order_ids?: string[];
  status?: string;
}

export async function listFills(ctx: AppContext, accountId: string, filters: FillFilters, page: PageParams): Promise<Page<FillWire>> {
  const where = new Where();
  where.and(`account_id = ${where.param(accountId)}`);
  if (filters.market_ids) where.and(`market_id = ANY(${where.param(filters.market_ids)}::text[])`);
  if (filters.order_ids) where.and(`order_id = ANY(${where.param(filters.order_ids)}::text[])`);
  if (filters.status) where.and(`status = ${where.param(filters.status)}`);
  const result = await recentPage<FillView>(ctx, 'core_fills', where, page);
  return { items: result.items.map(renderFill), cursor: result.cursor };
}

/** Open positions, largest first (contracts desc, then market id). */
export async function listPositions(ctx: AppContext, accountId: string, page: PageParams): Promise<Page<PositionWire>> {
  const where = new Where();
  where.and(`account_id = ${where.param(accountId)}`).and('position <> 0');
  const after = cursorParts(page.cursor, ['text', 'text']);
  if (after) where.and(`(contracts, market_id) < (${where.param(after[0])}::numeric, ${where.param(after[1])})`);
  const limit = where.param(page.limit + 1);
  const result = await ctx.pool.query<{ doc: PositionView; contracts: string; market_id: string }>(
    `SELECT doc, contracts::text AS contracts, market_id FROM core_positions ${where.sql()} ORDER BY contracts DESC, market_id DESC LIMIT ${limit}`,
    where.values,
  );
  const { page: rows, cursor } = pageFrom(result.rows, page.limit, (row) => [row.contracts, row.market_id]);
  return { items: rows.map((row) => renderPosition(row.doc)), cursor };
}

export async function getBalance(ctx: AppContext, accountId: string): Promise<BalanceWire | undefined> {
  const result = await ctx.pool.query<{ doc: BalanceView }>('SELECT doc FROM core_balances WHERE account_id = $1', [accountId]);
  const row = result.rows[0];
  return row ? renderBalance(row.doc) : undefined;
}

export type { MarketFilters } from '../../projections/core/queries/markets.ts';

/** GET /markets: the core markets query (market_ids unpaginated and overriding the rest). */
export async function listMarkets(ctx: AppContext, filters: MarketFilters, page: PageParams): Promise<Page<MarketWire>> {
  const result = await listCoreMarkets(ctx.pool, filters, { limit: page.limit, cursor: page.cursor ?? null }, ctx.clock.nowUs());
  return { items: result.markets, cursor: result.cursor };
}
