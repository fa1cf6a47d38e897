// /api/v1: authentication, then the trading routes (one table, also the OpenAPI document), the
// member routes, and 404 for every other path (GET /trades included: replaced by /fills).

import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { AppContext } from '../../commands/context.ts';
import { requireWrite } from '../auth/guards.ts';
import { authenticate, type AuthOptions } from '../auth/middleware.ts';
import { errorHandler, notFound } from '../errors.ts';
import { jsonBody } from '../jsonBody.ts';
import { buildOpenApiDocument, memberFragment } from '../openapi/document.ts';
import { announceDeprecation } from './deprecation.ts';
import { idempotentWrite } from './idempotency.ts';
import { memberRouter } from './member/router.ts';
import { expressPath, tradingRoutes, type RouteSpec } from './routes.ts';

export const BODY_LIMIT = '1mb';
const BODY_LIMIT_BYTES = 1024 * 1024;

export interface V1Options {
  auth?: AuthOptions;
  /** Extra routes (e.g. a deprecated one in tests); registered and documented like the rest. */
  extraRoutes?: (ctx: AppContext) => RouteSpec[];
}

export function v1Router(ctx: AppContext, options: V1Options = {}): Router {
  const router = Router();
  const routes = [...tradingRoutes(ctx), ...(options.extraRoutes?.(ctx) ?? [])];

  router.use(authenticate(ctx, options.auth));
  router.use(jsonBody(BODY_LIMIT_BYTES, BODY_LIMIT));

  const document = buildOpenApiDocument(routes, [memberFragment()]);
  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.json(document);
  });

  mountRoutes(router, ctx, routes);

  router.use(memberRouter(ctx));
  router.use(() => {
    throw notFound('Not found');
  });
  router.use(errorHandler);
  return router;
}

/** Registers route-table entries: deprecation headers, write guard, idempotency, the handler. */
export function mountRoutes(router: Router, ctx: AppContext, routes: readonly RouteSpec[]): Router {
  for (const route of routes) {
    const handlers: RequestHandler[] = [];
    if (route.deprecated) handlers.push(announceDeprecation(route.deprecated));
    if (route.write) handlers.push(requireWrite());
    const handler = route.handler;
    handlers.push(route.idempotent
      ? idempotentWrite(ctx, handler)
      : async (req: Request, res: Response) => {
        const answer = await handler(req);
        res.status(answer.status).json(answer.body);
      });
    router[route.method](expressPath(route.path), ...handlers);
  }
  return router;
}
