// The express application: request ids and structured request logs, Prometheus metrics, the
// health probes, the three routers (/api/v1, /admin/v1, public images at the root), a JSON 404
// and the one error mapping. Each router parses its own JSON body (v1 does so after
// authentication); the parser here covers every other route with the same limits. Beside it,
// the direct lane (api/directLane.ts) answers the order-entry routes with the same request id, log,
// metrics, middleware and handlers. JSON answers carry no generated ETag (the lane's would not;
// a conditional request on an order or a balance has no use): the images set their own.

import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';
import type { AppContext } from '../commands/context.ts';
import { adminRouter } from './admin/router.ts';
import { createLane, type Lane, type LaneHandler, type LaneRoute } from './directLane.ts';
import { errorHandler } from './errors.ts';
import { onlyWithBody } from './jsonBody.ts';
import { refuseNul } from './textGuard.ts';
import { docsRouter } from './public/docs.ts';
import { publicRouter } from './public/router.ts';
import { V1_BASE, v1Api } from './v1/router.ts';

const JSON_BODY_LIMIT = '1mb';
const REQUEST_ID_HEADER = 'X-Request-Id';
const REQUEST_ID_HEADER_LC = 'x-request-id';
/** A client's request id is echoed only when it is short and plain; otherwise we make one. */
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
const HTTP_DURATION_BUCKETS_S = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

interface AppOptions {
  /** Registry served at /metrics; the projection runner's lag gauge registers here too. */
  registry: Registry;
  /** Readiness: /healthz and /readyz answer 503 until it returns true. */
  isReady: () => boolean;
  /** This node's role and journal position, added to the probes' body once ready (several nodes). */
  node?: () => { role: 'writer' | 'follower'; position: string };
  /**
   * Serve /admin/v1 and /metrics from a separate app (`Api.adminApp`, for a listener of its own
   * on loopback) instead of the public one, which then answers them 404.
   */
  separateAdmin?: boolean;
  /** Routers of other transports served on the same port (the OAuth server), mounted by the composition root. */
  routers?: RequestHandler[];
  /**
   * Routes of those transports for the direct lane too (exact method and path; the chain answers
   * every outcome itself, its errors included, as their express routes do).
   */
  laneRoutes?: LaneRoute[];
}

declare module 'express-serve-static-core' {
  interface Request {
    id?: string;
    log?: Logger;
  }
}

/** Creates the service's metric registry with the process' default metrics. */
export function createMetricsRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Labelled request-duration children kept for reuse. */
const DURATION_CHILDREN_KEPT_MAX = 1_000;

function routeLabel(req: Request): string {
  const route = (req as { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return `${req.baseUrl}${route.path}`;
  return 'unmatched';
}

interface Api {
  app: express.Express;
  /** With `separateAdmin`: the operator's app (/admin/v1, /metrics, health probes). */
  adminApp: express.Express | null;
  /** Answers the order-entry routes without express; `app` answers everything else. */
  lane: Lane;
}

export function createApi(ctx: AppContext, options: AppOptions): Api {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', false);

  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: HTTP_DURATION_BUCKETS_S,
    registers: [options.registry],
  });

  // one labelled child per method, route and status, kept (routes are patterns, so the label sets
  // are few; past the bound a child is looked up each time, as prom-client does)
  const durations = new Map<string, Histogram.Internal<'method' | 'route' | 'status'>>();
  const durationOf = (method: string, route: string, status: number) => {
    const key = `${method} ${status} ${route}`;
    let child = durations.get(key);
    if (!child) {
      child = httpDuration.labels(method, route, String(status));
      if (durations.size < DURATION_CHILDREN_KEPT_MAX) durations.set(key, child);
    }
    return child;
  };

  // Request id, request log, metrics. The request's child logger is made on first use (most
  // requests log nothing at the configured level).
  const LOG = Symbol('log');
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Request & { [LOG]?: Logger }): Logger {
      return (this[LOG] ??= ctx.logger.child({ request_id: this.id }));
    },
    set(this: Request & { [LOG]?: Logger }, value: Logger) {
      this[LOG] = value;
    },
  });
  const requestContext = (req: Request, res: Response, next: NextFunction): void => {
    const presented = req.headers[REQUEST_ID_HEADER_LC];
    const id = typeof presented === 'string' && REQUEST_ID_PATTERN.test(presented) ? presented : randomUUID();
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    const startedNs = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - startedNs) / 1e9;
      durationOf(req.method, routeLabel(req), res.statusCode).observe(seconds);
      if (!ctx.logger.isLevelEnabled('info')) return;
      req.log?.info(
        {
          method: req.method,
          url: req.originalUrl,
          status: res.statusCode,
          duration_ms: Math.round(seconds * 1e4) / 10,
        },
        'request',
      );
    });
    next();
  };
  app.use(requestContext);

  app.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });
  const readiness = (_req: Request, res: Response) => {
    if (options.isReady()) res.json({ status: 'ok', ...options.node?.() });
    else res.status(503).json({ status: 'starting' });
  };
  app.get('/healthz', readiness);
  app.get('/readyz', readiness);
  const metrics = async (_req: Request, res: Response, next: NextFunction) => {
    try {
      res.set('Content-Type', options.registry.contentType).send(await options.registry.metrics());
    } catch (error) {
      next(error);
    }
  };

  let adminApp: express.Express | null = null;
  if (options.separateAdmin) {
    adminApp = express();
    adminApp.disable('x-powered-by');
    adminApp.disable('etag');
    adminApp.use(requestContext);
    adminApp.get('/healthz', readiness);
    adminApp.get('/readyz', readiness);
    adminApp.get('/metrics', metrics);
    adminApp.use('/admin/v1', adminRouter(ctx));
    adminApp.use((_req: Request, res: Response) => {
      res.status(404).json({ error: 'Not found' });
    });
    adminApp.use(errorHandler);
  } else {
    app.get('/metrics', metrics);
  }

  const v1 = v1Api(ctx);
  app.use(V1_BASE, v1.router);
  if (!options.separateAdmin) app.use('/admin/v1', adminRouter(ctx));
  // other transports' routers parse their own bodies (the OAuth server answers RFC-shaped errors)
  for (const router of options.routers ?? []) app.use(router);
  app.use(onlyWithBody(express.json({ limit: JSON_BODY_LIMIT, strict: true })));
  app.use(refuseNul);
  app.use(publicRouter(ctx));
  app.use(docsRouter());

  app.use((_req: Request, res: Response) => {
    res.status(404).json({ error: 'Not found' });
  });
  app.use(errorHandler);
  return {
    app,
    adminApp,
    lane: createLane(
      [...v1.laneRoutes, ...(options.laneRoutes ?? [])],
      errorHandler,
      [requestContext as LaneHandler],
      ctx.logger,
    ),
  };
}
