// GET /account/market_stats: exposure and realized result per market, newest first (by when the
// account first acted in the market), keyset-paged. Field definitions: docs/MEMBER.md.

import { Router } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { marketStats, marketStatsCursor, type MarketStatsRow } from '../../../projections/member/queries.ts';
import { principalOf } from '../../auth/principal.ts';
import { pageOf, parseLimit } from '../../pagination.ts';
import { int64Param, lenientBoolean, lowercaseList, uuidList } from './query.ts';

const SETTLED_STATUSES: ReadonlySet<string> = new Set(['resulted', 'voided']);
const num = (value: string | null) => (value === null ? null : Number(value));

function renderMarketStats(row: MarketStatsRow): Record<string, unknown> {
  const values = row.doc;
  return {
    account_id: row.account_id,
    market_id: row.market_id,
    event_id: row.event_id,
    competition: row.competition,
    sport: row.sport,
    status: row.status,
    title: row.title,
    event_start_time: num(row.event_start_time),
    archived_at: num(row.archived_at),
    last_settled_at: num(row.last_settled_at),
    settled_at: row.market_status && SETTLED_STATUSES.has(row.market_status) ? num(row.market_settled_at) : null,
    inserted_at: Number(row.inserted_at),
    updated_at: Number(row.updated_at),
    ...values,
  };
}

export function marketStatsRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/account/market_stats', async (req, res) => {
    const principal = principalOf(req);
    const q = req.query;
    const limit = parseLimit(q.limit);
    const after = marketStatsCursor(q.cursor);
    const rows = await marketStats(
      ctx.pool,
      principal.account_id,
      {
        market_ids: uuidList('market_ids', q.market_ids),
        event_ids: uuidList('event_ids', q.event_ids),
        exclude_zero_settlements: lenientBoolean(q.exclude_zero_settlements),
        from_time: int64Param('from_time', q.from_time),
        to_time: int64Param('to_time', q.to_time),
        sports: lowercaseList('sports', q.sports),
        competitions: lowercaseList('competitions', q.competitions),
      },
      limit + 1,
      after,
    );
    const { page, cursor } = pageOf(rows, limit, (row) => [Number(row.inserted_at), row.market_id]);
    res.json({ cursor, market_stats: page.map(renderMarketStats) });
  });
  return router;
}
