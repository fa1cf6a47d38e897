// /api/v1: authentication, then the trading routes (one table, also the OpenAPI document), the
// member routes, and 404 for every other path (GET /trades included: replaced by /fills).

import { Router, type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
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

  const authentication = authenticate(ctx, options.auth);
  const body = jsonBody(BODY_LIMIT_BYTES, BODY_LIMIT);
  const handlersOf = new Map(routes.map((route) => [route, routeHandlers(ctx, route)]));
  const direct = new Map<string, DirectRoute>();
  for (const route of routes) {
    if (!direct.has(route.path) && isDirectWrite(route)) {
      direct.set(route.path, { path: route.path, handlers: [authentication, body, ...(handlersOf.get(route) as RequestHandler[])] });
    }
  }
  router.use(directWrites(router, direct, errorHandler));
  router.use(authentication);
  router.use(body);

  const document = buildOpenApiDocument(routes, [memberFragment()]);
  router.get('/openapi.json', (_req: Request, res: Response) => {
    res.json(document);
  });

  for (const route of routes) router[route.method](expressPath(route.path), ...(handlersOf.get(route) as RequestHandler[]));

  router.use(memberRouter(ctx));
  router.use(() => {
    throw notFound('Not found');
  });
  router.use(errorHandler);
  return router;
}

/** Registers route-table entries: deprecation headers, write guard, idempotency, the handler. */
export function mountRoutes(router: Router, ctx: AppContext, routes: readonly RouteSpec[]): Router {
  for (const route of routes) router[route.method](expressPath(route.path), ...routeHandlers(ctx, route));
  return router;
}

/** A route's handlers after authentication and body parsing: deprecation, write guard, idempotency, handler. */
function routeHandlers(ctx: AppContext, route: RouteSpec): RequestHandler[] {
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
  return handlers;
}

/** The order placements: the first routes of the table, static paths, matched by POST and path alone. */
const DIRECT_PATHS: ReadonlySet<string> = new Set(['/orders', '/orders/batched']);
const isDirectWrite = (route: RouteSpec): boolean => route.method === 'post' && DIRECT_PATHS.has(route.path);

interface DirectRoute { path: string; handlers: RequestHandler[] }

/**
 * POST /orders and POST /orders/batched (exact lower-case paths, no query) run their chain
 * (authentication, body, then the route's handlers) without walking the router: the same
 * handlers in the same order as the router would call them, `req.route` and `req.params` as the
 * router sets them, a throw or rejection passed to the same error handler. Every other request,
 * those two paths spelt any other way included, goes through the router.
 */
function directWrites(router: Router, byPath: ReadonlyMap<string, DirectRoute>, onError: ErrorRequestHandler): RequestHandler {
  /** The router's own Route object of a path (its layers are mounted after this one). */
  const routeObjects = new Map<string, unknown>();
  const routeObjectOf = (path: string): unknown => {
    let found = routeObjects.get(path);
    if (found === undefined) {
      const layers = (router as unknown as { stack: Array<{ route?: { path?: string; methods?: Record<string, boolean> } }> }).stack;
      found = layers.find((layer) => layer.route?.path === path && layer.route.methods?.post)?.route ?? { path, stack: [], methods: { post: true } };
      routeObjects.set(path, found);
    }
    return found;
  };
  return function directWrite(req: Request, res: Response, next: NextFunction): void {
    const route = req.method === 'POST' ? byPath.get(req.url) : undefined;
    if (route === undefined) {
      next();
      return;
    }
    const { handlers } = route;
    const routeAt = 2; // authentication and body run before the route is matched
    let i = 0;
    let failed = false;
    const fail = (err: unknown): void => {
      if (failed) return;
      failed = true;
      try {
        onError(err, req, res, next);
      } catch (error) {
        next(error);
      }
    };
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) {
        fail(err);
        return;
      }
      if (i === handlers.length) {
        fail(notFound('Not found'));
        return;
      }
      if (i === routeAt) {
        (req as { route?: unknown }).route = routeObjectOf(route.path);
        req.params = {};
      }
      const handler = handlers[i++] as RequestHandler;
      try {
        const result = handler(req, res, step) as unknown;
        if (result instanceof Promise) result.then(undefined, (error: unknown) => step(error || new Error('Rejected promise')));
      } catch (error) {
        step(error);
      }
    };
    step();
  };
}
