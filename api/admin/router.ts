// /admin/v1: the operator API (docs/OPERATOR.md), behind the admin token. Member credentials are
// never accepted here. Errors use the REST error body; unknown paths are 404.

import express, { Router } from 'express';
import type { AppContext } from '../../commands/context.ts';
import { errorHandler } from '../errors.ts';
import { onlyWithBody } from '../jsonBody.ts';
import { refuseNul } from '../textGuard.ts';
import { adminAuth } from './auth.ts';
import { accountRoutes } from './routes/accounts.ts';
import { catalogueRoutes } from './routes/catalogue.ts';
import { feeRoutes } from './routes/fees.ts';
import { operationRoutes } from './routes/operations.ts';
import { resolveAdminToken } from './token.ts';
import { SnapshotCache } from './upstream.ts';

const BODY_LIMIT = '1mb';

export function adminRouter(ctx: AppContext): Router {
  const router = Router();
  const adminToken = resolveAdminToken(ctx.config, ctx.logger);
  adminToken.catch((err: unknown) => ctx.logger.error({ err }, 'admin token could not be resolved'));

  router.use(adminAuth(adminToken));
  router.use(onlyWithBody(express.json({ limit: BODY_LIMIT })));
  router.use(refuseNul);

  const cache = new SnapshotCache(ctx);
  accountRoutes(router, cache);
  feeRoutes(router, cache);
  catalogueRoutes(router, cache);
  operationRoutes(router, cache);

  router.use((_req, res) => {
    res.status(404).json({ error: 'Not found' });
  });
  router.use(errorHandler);
  return router;
}
