// GET /leaderboard: one board of the latest snapshot, ranked among the members shown.
// Checks in order: leaderboard enabled (404 `Leaderboard is not enabled`), period and metric
// known (400), limit an integer (400; clamped to 1..100). A board hidden in the settings
// answers shown:false with no rows; an unknown category an empty board.

import { Router } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import type { Settings } from '../../../commands/settings/settings.ts';
import { usToIso } from '../../../domain/clock.ts';
import {
  LEADERBOARD_METRICS,
  LEADERBOARD_ROWS_MAX,
  denseRank,
  sportKey,
  wireValue,
  type Metric,
} from '../../../domain/leaderboard/board.ts';
import { LEADERBOARD_PERIODS, type Period } from '../../../domain/leaderboard/period.ts';
import {
  boardKey,
  currentSnapshot,
  refreshLeaderboards,
  snapshotIsStale,
} from '../../../projections/member/leaderboard/snapshot.ts';
import { optedInHandles } from '../../../projections/member/queries.ts';
import { badRequest, notFound } from '../../errors.ts';
import { parseLimit } from '../../pagination.ts';
import { avatarUrlOf } from './me.ts';

const LEADERBOARD_DISABLED_ERROR = 'Leaderboard is not enabled';
const DEFAULT_PERIOD: Period = 'weekly';
const DEFAULT_CATEGORY = 'all';
const FALLBACK_METRIC: Metric = 'volume';

const sportIconUrlOf = (sport: string | null) =>
  sport === null ? null : `/icons/sports/${encodeURIComponent(sport)}.svg`;

function oneOf<T extends string>(name: string, raw: unknown, allowed: readonly T[], fallback: T): T {
  if (raw === undefined || raw === '') return fallback;
  if (typeof raw !== 'string' || !(allowed as readonly string[]).includes(raw))
    throw badRequest(`${name} must be one of: ${allowed.join(', ')}`);
  return raw as T;
}

/** The board the service opens on: the first shown board configured for this period and category. */
function defaultMetric(settings: Settings, period: Period, category: string): Metric {
  const configured = settings.leaderboard_boards.find((b) => b.shown && b.period === period && b.category === category);
  return configured?.metric ?? FALLBACK_METRIC;
}

function isShown(settings: Settings, period: Period, category: string, metric: Metric): boolean {
  const configured = settings.leaderboard_boards.find(
    (b) => b.period === period && b.category === category && b.metric === metric,
  );
  return configured?.shown ?? true;
}

export function leaderboardRoutes(ctx: AppContext): Router {
  const router = Router();
  router.get('/leaderboard', async (req, res) => {
    const settings = ctx.settings.get();
    if (!settings.leaderboard_enabled) throw notFound(LEADERBOARD_DISABLED_ERROR);
    const period = oneOf('period', req.query.period, LEADERBOARD_PERIODS, DEFAULT_PERIOD);
    const rawCategory = req.query.category;
    if (rawCategory !== undefined && typeof rawCategory !== 'string') throw badRequest('category must be a string');
    // a sport name is accepted for its key (`Ice Hockey` → `ice_hockey`)
    const category = rawCategory === undefined ? DEFAULT_CATEGORY : (sportKey(rawCategory) ?? DEFAULT_CATEGORY);
    const metric = oneOf('metric', req.query.metric, LEADERBOARD_METRICS, defaultMetric(settings, period, category));
    const limit = parseLimit(req.query.limit, LEADERBOARD_ROWS_MAX, LEADERBOARD_ROWS_MAX);
    const shown = isShown(settings, period, category, metric);

    let snapshot = currentSnapshot(ctx);
    if (snapshot && snapshotIsStale(snapshot, ctx.clock.nowUs())) {
      await refreshLeaderboards(ctx);
      snapshot = currentSnapshot(ctx);
    }
    const periodSnapshot = snapshot?.periods.get(period);
    const body = {
      period,
      category,
      metric,
      shown,
      refreshed_at: snapshot ? usToIso(snapshot.refreshed_at_us) : null,
      next_reset_at: periodSnapshot?.bounds.next_reset_us ? usToIso(periodSnapshot.bounds.next_reset_us) : null,
      leaderboard: [] as unknown[],
    };
    if (!shown || !periodSnapshot) {
      res.json(body);
      return;
    }
    const entries = periodSnapshot.boards.get(boardKey(category, metric)) ?? [];
    const handles = await optedInHandles(
      ctx.pool,
      entries.map((e) => e.account_id),
    );
    const members = entries
      .filter((e) => handles.has(e.account_id))
      .map((e) => ({ ...e, handle: handles.get(e.account_id) ?? null }));
    const ranked = denseRank(members, (a, b) => {
      if (a.handle !== b.handle) {
        if (a.handle === null) return 1;
        if (b.handle === null) return -1;
        return a.handle < b.handle ? -1 : 1;
      }
      return a.account_id < b.account_id ? -1 : a.account_id > b.account_id ? 1 : 0;
    });
    body.leaderboard = ranked.slice(0, limit).map(({ rank, entry }) => ({
      rank,
      handle: entry.handle,
      avatar_url: avatarUrlOf(entry.handle),
      top_sport: entry.top_sport,
      top_sport_icon_url: sportIconUrlOf(entry.top_sport),
      value: wireValue(metric, entry.value),
    }));
    res.json(body);
  });
  return router;
}
