// GET /fills (most recent first; market_ids, order_ids, a single status), GET /positions (open
// positions, largest first) and GET /account/balance.

import type { Request } from 'express';
import type { AppContext } from '../../commands/context.ts';
import { principalOf } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import { FILL_STATUSES } from '../openapi/schemas.ts';
import type { Answer } from './idempotency.ts';
import { NO_SUCH_RECORD } from './orders/read.ts';
import { pageParamsOf, pagedQuerySpec, readQuery, stringOf, uuidListParam, uuidsOf } from './query.ts';
import type { FillStatus } from '../../domain/views.ts';
import { listFills } from '../../projections/core/queries/fills.ts';
import { readBalance, readPositions } from './liveReads.ts';

export const listFillsQuery = pagedQuerySpec([
  uuidListParam('market_ids', 'Comma-separated market UUIDs'),
  uuidListParam('order_ids', "Comma-separated order UUIDs; another account's order matches nothing"),
  {
    name: 'status',
    kind: 'string',
    schema: { enum: [...FILL_STATUSES] },
    description: 'A single fill status, not a list',
  },
]);

export const listPositionsQuery = pagedQuerySpec([]);

export function listFillsRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const query = readQuery(req, listFillsQuery);
    const page = await listFills(
      ctx.pool,
      principalOf(req).account_id,
      {
        marketIds: uuidsOf(query.market_ids),
        orderIds: uuidsOf(query.order_ids),
        status: stringOf(query.status) as FillStatus | undefined,
      },
      pageParamsOf(query),
    );
    return { status: 200, body: { cursor: page.cursor, fills: page.fills } };
  };
}

export function listPositionsRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const query = readQuery(req, listPositionsQuery);
    const page = await readPositions(ctx, principalOf(req).account_id, pageParamsOf(query));
    return { status: 200, body: { cursor: page.cursor, positions: page.positions } };
  };
}

export function balanceRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const balance = await readBalance(ctx, principalOf(req).account_id);
    if (!balance) throw notFound(NO_SUCH_RECORD);
    return { status: 200, body: { balance } };
  };
}
