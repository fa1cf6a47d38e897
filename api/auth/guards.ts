// Route guards that read only the principal; the rules are commands/auth/access.ts, their
// refusals become REST answers through the one table (api/errors.ts).

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { orderWriteRefusal, routeAccessRefusal } from '../../commands/auth/access.ts';
import { httpErrorOf } from '../errors.ts';
import { anyPrincipalOf } from './principal.ts';

/** Write routes (place, cancel). */
export function requireWrite(oauthScope?: string): RequestHandler {
  return function requireWriteAccess(req: Request, _res: Response, next: NextFunction): void {
    const refusal = orderWriteRefusal(anyPrincipalOf(req), oauthScope);
    if (refusal) throw httpErrorOf(refusal);
    next();
  };
}

/** OAuth tokens: the route's scope (paths below the router's mount point). */
export function requireRouteScope(): RequestHandler {
  return function requireOAuthScope(req: Request, _res: Response, next: NextFunction): void {
    const refusal = routeAccessRefusal(anyPrincipalOf(req), req.method, req.path);
    if (refusal) throw httpErrorOf(refusal);
    next();
  };
}
