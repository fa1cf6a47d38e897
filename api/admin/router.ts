// /admin/v1: the operator API (OPERATOR_API.md), behind the admin token.
import { Router } from 'express';
import type { AppContext } from '../../commands/context.ts';

export function adminRouter(_ctx: AppContext): Router {
  const router = Router();
  return router;
}
