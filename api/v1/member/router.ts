// /api/v1 member routes: profile, leaderboard, market stats, ledgers (behind the v1 auth middleware).
import { Router } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { leaderboardRoutes } from './leaderboard.ts';
import { ledgerRoutes } from './ledgers.ts';
import { marketStatsRoutes } from './marketStats.ts';
import { meRoutes } from './me.ts';

export function memberRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(meRoutes(ctx));
  router.use(leaderboardRoutes(ctx));
  router.use(marketStatsRoutes(ctx));
  router.use(ledgerRoutes(ctx));
  return router;
}
