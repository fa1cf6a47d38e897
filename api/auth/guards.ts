// Route guards that read only the principal.
// - Write routes (place, cancel): an API key needs scope `read_write` (else 403); a member
//   session may always write; an OAuth token needs the route's write scope.
// - Every route, for OAuth tokens: the scope the route → scope table (domain/auth/routeScopes.ts)
//   names; catalogue routes take any member token too; a route no scope covers is 403 without
//   `scope`. API keys and member sessions are not judged by scopes.

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { routeScopeOf } from '../../domain/auth/routeScopes.ts';
import { HttpError } from '../errors.ts';
import { anyPrincipalOf, principalOf } from './principal.ts';

export const READ_ONLY_KEY_ERROR = 'This API key is read-only; placing and cancelling orders needs a read_write key';
export const INSUFFICIENT_SCOPE_ERROR = 'insufficient scope for this operation';

export function insufficientScope(scope: string | null): HttpError {
  if (scope === null) return new HttpError(403, INSUFFICIENT_SCOPE_ERROR, {}, { 'WWW-Authenticate': 'Bearer error=insufficient_scope' });
  return new HttpError(403, INSUFFICIENT_SCOPE_ERROR, { scope }, { 'WWW-Authenticate': `Bearer error=insufficient_scope, scope=${scope}` });
}

export function requireWrite(oauthScope = 'orders.write'): RequestHandler {
  return function requireWriteAccess(req: Request, _res: Response, next: NextFunction): void {
    const principal = anyPrincipalOf(req);
    if (principal.source === 'oauth' && !(principal.kind === 'member' && principal.scopes.has(oauthScope))) throw insufficientScope(oauthScope);
    if (principalOf(req).source === 'api_key' && principal.key_scope !== 'read_write') throw new HttpError(403, READ_ONLY_KEY_ERROR);
    next();
  };
}

/** OAuth tokens: the route's scope (paths below the router's mount point). */
export function requireRouteScope(): RequestHandler {
  return function requireOAuthScope(req: Request, _res: Response, next: NextFunction): void {
    const principal = anyPrincipalOf(req);
    if (principal.source !== 'oauth') return next();
    const rule = routeScopeOf(req.method, req.path);
    if (rule === undefined) return next(); // not a route: 404 follows
    if (rule.scope === null) throw insufficientScope(null);
    if (principal.scopes.has(rule.scope)) return next();
    if (rule.anyMemberToken && principal.kind === 'member') return next();
    throw insufficientScope(rule.scope);
  };
}
