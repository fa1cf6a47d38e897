// /api/v1: authentication, the per-account request rate limit, then the trading routes (one table, also the OpenAPI document), the
// member routes, and 404 for every other path (GET /trades included: replaced by /fills).
// The order-entry routes are also offered to the direct lane (api/directLane.ts) with the same
// middleware instances and handlers, so both paths answer alike.

import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { AppContext } from '../../commands/context.ts';
import { requireRouteScope, requireWrite } from '../auth/guards.ts';
import { authenticate } from '../auth/middleware.ts';
import { errorHandler, notFound } from '../errors.ts';
import type { LaneRoute } from '../directLane.ts';
import { jsonBody } from '../jsonBody.ts';
import { refuseNul } from '../textGuard.ts';
import { buildOpenApiDocument, memberFragment } from '../openapi/document.ts';
import { announceDeprecation } from './deprecation.ts';
import { idempotentWrite } from './idempotency.ts';
import { rateLimit } from './rateLimit.ts';
import { getMeHandlers } from './member/me.ts';
import { memberRouter } from './member/router.ts';
import { expressPath, tradingRoutes, type RouteSpec } from './routes.ts';

const BODY_LIMIT = '1mb';
const BODY_LIMIT_BYTES = 1024 * 1024;

export interface V1Options {
  /** Extra routes (e.g. a deprecated one in tests); registered and documented like the rest. */
  extraRoutes?: (ctx: AppContext) => RouteSpec[];
}

/** Mount point of the v1 router. */
export const V1_BASE = '/api/v1';

interface V1Api {
  router: Router;
  /** The order-entry routes for the direct lane: full paths, the router's own middleware first. */
  laneRoutes: LaneRoute[];
}

export function v1Api(ctx: AppContext, options: V1Options = {}): V1Api {
  const router = Router();
  const routes = [...tradingRoutes(ctx), ...(options.extraRoutes?.(ctx) ?? [])];

  // The OpenAPI document is documentation: public, before authentication.
  const document = buildOpenApiDocument(routes, [memberFragment()]);
  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.json(document);
  });

  const authentication = authenticate(ctx);
  const body = jsonBody(BODY_LIMIT_BYTES, BODY_LIMIT);
  const scopes = requireRouteScope();
  router.use(authentication);
  router.use(scopes);
  router.use(body);
  router.use(refuseNul);
  const limited = rateLimit(ctx);
  router.use(limited);

  const laneRoutes: LaneRoute[] = [];
  for (const route of routes) {
    const handlers = routeHandlers(ctx, route);
    router[route.method](expressPath(route.path), ...handlers);
    // writes with a fixed path: the order-entry routes (reads need express's query parsing)
    if (route.write && !route.path.includes('{')) {
      laneRoutes.push({
        method: route.method,
        path: `${V1_BASE}${route.path}`,
        routerPath: route.path,
        chain: [authentication, scopes, body, refuseNul, limited, ...handlers],
      });
    }
  }

  // GET /me, the most frequent read of a member app, in the lane too (it takes no query)
  laneRoutes.push({
    method: 'GET',
    path: `${V1_BASE}/me`,
    routerPath: '/me',
    chain: [authentication, scopes, body, refuseNul, limited, ...getMeHandlers(ctx)],
  });
  router.use(memberRouter(ctx));
  router.use(() => {
    throw notFound('Not found');
  });
  router.use(errorHandler);
  return { router, laneRoutes };
}

/** A route-table entry's handlers: deprecation headers, write guard, idempotency, the handler. */
function routeHandlers(ctx: AppContext, route: RouteSpec): RequestHandler[] {
  const handlers: RequestHandler[] = [];
  if (route.deprecated) handlers.push(announceDeprecation(route.deprecated));
  if (route.write) handlers.push(requireWrite());
  const handler = route.handler;
  handlers.push(
    route.idempotent
      ? idempotentWrite(ctx, handler)
      : async (req: Request, res: Response) => {
          const answer = await handler(req);
          res.status(answer.status).json(answer.body);
        },
  );
  return handlers;
}

/** Registers route-table entries on a router (each with its handlers as in v1). */
export function mountRoutes(router: Router, ctx: AppContext, routes: readonly RouteSpec[]): Router {
  for (const route of routes) router[route.method](expressPath(route.path), ...routeHandlers(ctx, route));
  return router;
}

/**
 * The OpenAPI document of /api/v1 without a running service (the `exchange openapi` command, the
 * lint in `npm test`): the route table only describes routes here, so its handlers get a context
 * that refuses every use.
 */
export function v1OpenApiDocument(): ReturnType<typeof buildOpenApiDocument> {
  const unused = new Proxy(
    {},
    {
      get: () => {
        throw new Error('the route table was built for its description only');
      },
    },
  ) as AppContext;
  return buildOpenApiDocument(tradingRoutes(unused), [memberFragment()]);
}
