// /api/v1 member routes: profile, leaderboard, market stats, ledgers (behind the v1 auth middleware).
import { Router } from 'express';
import type { AppContext } from '../../../commands/context.ts';

export function memberRouter(_ctx: AppContext): Router {
  const router = Router();
  return router;
}
