// GET /markets. `market_ids` returns exactly those markets, unpaginated, and ignores every other
// parameter (even malformed ones). Otherwise: event_ids, status (lowercase list; uppercase is
// 400), trading (`true`/`false` only), sports and competitions (case-insensitive lists),
// sort_by[name]=event_start with sort_by[direction] asc|desc replacing the tiered default order.

import type { Request } from 'express';
import type { AppContext } from '../../commands/context.ts';
import type { MarketStatus } from '../../domain/views.ts';
import { MARKET_STATUSES } from '../openapi/schemas.ts';
import type { Answer } from './idempotency.ts';
import {
  csvOf,
  pageParamsOf,
  pagedQuerySpec,
  querySpec,
  readQuery,
  stringOf,
  uuidListParam,
  uuidsOf,
} from './query.ts';
import { listMarkets } from '../../projections/core/queries/markets.ts';

const MARKET_IDS_PARAM = uuidListParam(
  'market_ids',
  'Comma-separated market UUIDs; returns exactly these, unpaginated, ignoring every other parameter',
);
const marketIdsOnly = querySpec([MARKET_IDS_PARAM]);

export const listMarketsQuery = pagedQuerySpec([
  MARKET_IDS_PARAM,
  uuidListParam('event_ids', 'Comma-separated event UUIDs'),
  {
    name: 'status',
    kind: 'csv',
    schema: { enum: [...MARKET_STATUSES] },
    description: 'Comma-separated lowercase market statuses; omitted means every non-archived market',
  },
  {
    name: 'trading',
    kind: 'string',
    schema: { enum: ['true', 'false'] },
    description: '`true` or `false` only',
    published: { type: 'boolean' },
  },
  {
    name: 'sports',
    kind: 'csv',
    schema: { type: 'string', maxLength: 100 },
    description: 'Comma-separated sport names, case-insensitive',
  },
  {
    name: 'competitions',
    kind: 'csv',
    schema: { type: 'string', maxLength: 100 },
    description: 'Comma-separated competition codes, case-insensitive',
  },
  {
    name: 'sort_by[name]',
    kind: 'string',
    schema: { enum: ['event_start'] },
    description: 'Only `event_start`: a plain event-start sort replacing the default order',
  },
  {
    name: 'sort_by[direction]',
    kind: 'string',
    schema: { enum: ['asc', 'desc'] },
    description: '`asc` (default) or `desc`; meaningful only with sort_by[name]',
  },
]);

export function listMarketsRoute(ctx: AppContext) {
  return async (req: Request): Promise<Answer> => {
    const onlyIds = csvOf(readQuery(req, marketIdsOnly).market_ids);
    if (onlyIds) {
      const page = await listMarkets(
        ctx.pool,
        { marketIds: onlyIds.map((id) => id.toLowerCase()) },
        {},
        ctx.clock.nowUs(),
      );
      return { status: 200, body: { cursor: null, markets: page.markets } };
    }
    const query = readQuery(req, listMarketsQuery);
    const trading = stringOf(query.trading);
    const sortName = stringOf(query['sort_by[name]']);
    const page = await listMarkets(
      ctx.pool,
      {
        eventIds: uuidsOf(query.event_ids),
        statuses: csvOf(query.status) as MarketStatus[] | undefined,
        trading: trading === undefined ? undefined : trading === 'true',
        sports: csvOf(query.sports),
        competitions: csvOf(query.competitions),
        sortBy:
          sortName === 'event_start'
            ? { name: 'event_start', direction: stringOf(query['sort_by[direction]']) === 'desc' ? 'desc' : 'asc' }
            : undefined,
      },
      pageParamsOf(query),
      ctx.clock.nowUs(),
    );
    return { status: 200, body: { cursor: page.cursor, markets: page.markets } };
  };
}
