// The direct lane: the order-entry routes (POST /api/v1/orders, POST and DELETE
// /api/v1/orders/batched) answered without passing through express. Express costs tens of
// microseconds per request before a route runs (it swaps the prototypes of every request and
// response and walks its router stacks), which on the order-entry path was a large share of a
// request's CPU. The lane runs the very same middleware and handlers as the express routes (the
// v1 router builds both from one list), on request and response classes that give them the few
// express members they use (`ip`, `originalUrl`, `path`, `status`, `set`, `json`), and ends in
// the same error handler. It takes only an exact method and path (the query string aside);
// anything else (other letter case, a trailing slash, encoded characters) goes to express, whose
// answer for it is unchanged.

import http from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { notFound } from './errors.ts';

/** An express-style middleware or handler (it may return a promise; a rejection is an error). */
export type LaneHandler = (req: Request, res: Response, next: NextFunction) => unknown;
type LaneErrorHandler = (err: unknown, req: Request, res: Response, next: NextFunction) => void;

export interface LaneRoute {
  method: string;
  /** Full path, e.g. `/api/v1/orders`. */
  path: string;
  /** The path as the route's router sees it (express `req.path` inside the router), e.g. `/orders`. */
  routerPath: string;
  chain: readonly LaneHandler[];
}

/** Answers a request when it is one of the lane's routes; false leaves it to express. */
export type Lane = (req: http.IncomingMessage, res: http.ServerResponse) => boolean;

const LOGGER = Symbol('logger');
const LOG = Symbol('log');

/** The service's request class: what express handlers read, for requests express never sees. */
class LaneRequest extends http.IncomingMessage {
  declare body: unknown;
  declare id: string | undefined;
  declare path: string;
  declare route: { path: string } | undefined;
  declare baseUrl: string;
  declare [LOGGER]: Logger | undefined;
  declare [LOG]: Logger | undefined;

  /** The peer address (the service trusts no proxy headers, like express with `trust proxy` off). */
  get ip(): string | undefined {
    return this.socket.remoteAddress;
  }

  get originalUrl(): string {
    return this.url ?? '';
  }

  /** The request's logger, made on first use (most requests log nothing). */
  get log(): Logger | undefined {
    return (this[LOG] ??= this[LOGGER]?.child({ request_id: this.id }));
  }

  set log(value: Logger | undefined) {
    this[LOG] = value;
  }
}

/** The service's response class: the express response members the lane's handlers call. */
class LaneResponse extends http.ServerResponse {
  status(code: number): this {
    this.statusCode = code;
    return this;
  }

  set(field: string | Record<string, string>, value?: string): this {
    if (typeof field === 'string') this.setHeader(field, value ?? '');
    else for (const name of Object.keys(field)) this.setHeader(name, field[name]!);
    return this;
  }

  /** As express's `res.json` for a request that is not HEAD: JSON text, type, length. */
  json(body: unknown): this {
    const text = JSON.stringify(body);
    if (!this.hasHeader('Content-Type')) this.setHeader('Content-Type', 'application/json; charset=utf-8');
    this.setHeader('Content-Length', Buffer.byteLength(text));
    this.end(text);
    return this;
  }
}

/** Server options that give every request and response the lane's classes. */
export const laneServerOptions = { IncomingMessage: LaneRequest, ServerResponse: LaneResponse } as http.ServerOptions;

/**
 * Runs `chain` as express would: each handler calls `next()` to pass on, `next(err)` or a throw
 * or a rejected promise goes to `onError`; a handler that answers simply does not call next.
 */
function run(chain: readonly LaneHandler[], onError: LaneErrorHandler, req: Request, res: Response): void {
  let index = 0;
  let failed = false;
  const fail = (err: unknown): void => {
    if (failed) return;
    failed = true;
    try {
      onError(err, req, res, () => undefined);
    } catch {
      // the answer had already begun (e.g. a handler threw after sending): as express does, end
      // the connection rather than leave the client waiting on a half answer
      res.destroy();
    }
  };
  const next: NextFunction = (err?: unknown) => {
    if (err !== undefined && err !== 'route' && err !== 'router') {
      fail(err);
      return;
    }
    const handler = chain[index++];
    if (!handler) {
      // every handler passed on: no route answered, as express's routers end (the lane's chains
      // always end in a handler that answers; this only keeps a request from hanging)
      fail(notFound('Not found'));
      return;
    }
    try {
      const result = handler(req, res, next);
      if (result instanceof Promise) result.catch(fail);
    } catch (error) {
      fail(error);
    }
  };
  next();
}

/**
 * The lane over `routes`, each chain preceded by `before` (request id, logs, metrics) and failing
 * into `onError`; `logger` is the root of the requests' lazy loggers.
 */
export function createLane(
  routes: readonly LaneRoute[],
  onError: LaneErrorHandler,
  before: readonly LaneHandler[] = [],
  logger?: Logger,
): Lane {
  const byKey = new Map<string, LaneRoute & { full: readonly LaneHandler[] }>();
  for (const route of routes)
    byKey.set(`${route.method.toUpperCase()} ${route.path}`, { ...route, full: [...before, ...route.chain] });
  return (req, res) => {
    if (!(req instanceof LaneRequest) || !(res instanceof LaneResponse)) return false;
    const url = req.url ?? '';
    const queryAt = url.indexOf('?');
    const route = byKey.get(`${req.method} ${queryAt < 0 ? url : url.slice(0, queryAt)}`);
    if (!route) return false;
    req.body = undefined;
    req.path = route.routerPath;
    req.baseUrl = route.path.slice(0, route.path.length - route.routerPath.length);
    req.route = { path: route.routerPath };
    req[LOGGER] = logger;
    run(route.full, onError, req as unknown as Request, res as unknown as Response);
    return true;
  };
}
