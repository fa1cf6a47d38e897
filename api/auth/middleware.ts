// The /api/v1 authentication pipeline. Checks run in this order, each in one place:
//   1. User-Agent present                                  else 403 `User-Agent header is required`
//   2. any X-SVC-ACCESS-* header → signed API key rules     else 401 `Missing or invalid API key credentials`
//      otherwise Authorization: Bearer → resolver chain     else 401 `Unauthorized`
//      no credential at all                                 401 `Unauthorized`
//   3. read-your-writes (reads only): wait until projections passed the account's last write;
//      writes skip it, the engine being their authority (it refuses inactive accounts too)
//   4. account known (else 401 as in 2) and active          else 403 naming the status
// The principal is then attached to the request for the route guards.

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppContext } from '../../commands/context.ts';
import { HttpError } from '../errors.ts';
import { accountStatusOf, type AccountStatusRow } from './accounts.ts';
import { bearerToken, resolveBearer, sessionResolver, unauthorized, type BearerIdentity, type BearerResolver } from './bearer.ts';
import { setPrincipal, type Principal } from './principal.ts';
import { apiKeyError, hasSigningHeader, SignedKeyVerifier } from './signedKey.ts';

export const USER_AGENT_ERROR = 'User-Agent header is required';
export const READ_WRITE_SCOPES: ReadonlySet<string> = new Set(['read_only', 'read_write']);
export const READ_ONLY_SCOPES: ReadonlySet<string> = new Set(['read_only']);
/** Bound on the read-your-writes wait; a slower projection answers with what it has. */
const READ_YOUR_WRITES_WAIT_MS = 5_000;

export interface AuthOptions {
  /** Bearer resolvers in order; member sessions by default (OAuth access tokens slot in here). */
  bearerResolvers?: readonly BearerResolver[];
}

export function accountStatusError(status: string): HttpError {
  const text = status === 'pending' ? 'pending approval' : status;
  return new HttpError(403, `Account is ${text}`);
}

export function authenticate(ctx: AppContext, options: AuthOptions = {}): RequestHandler {
  const resolvers = options.bearerResolvers ?? [sessionResolver];
  const signedKeys = new SignedKeyVerifier(ctx);

  return async function authenticateRequest(req: Request, _res: Response, next: NextFunction): Promise<void> {
    const userAgent = req.headers['user-agent'];
    if (userAgent === undefined || userAgent.trim() === '') throw new HttpError(403, USER_AGENT_ERROR);

    let principal: Omit<Principal, 'user_id'>;
    let credentialError: () => HttpError;
    if (hasSigningHeader(req.headers)) {
      const key = await signedKeys.verify(req.headers, req.method, req.originalUrl);
      credentialError = apiKeyError;
      principal = {
        account_id: key.account_id,
        method: 'api_key',
        source: 'api_key',
        scopes: key.scope === 'read_write' ? READ_WRITE_SCOPES : READ_ONLY_SCOPES,
        key_scope: key.scope,
        key_id: key.key_id,
        client_id: null,
        token_id: null,
      };
    } else {
      const token = bearerToken(req.headers);
      if (token === undefined) throw unauthorized();
      const identity: BearerIdentity = await resolveBearer(ctx, resolvers, token);
      credentialError = unauthorized;
      principal = {
        account_id: identity.account_id,
        method: 'bearer',
        source: identity.source,
        scopes: identity.scopes,
        key_scope: null,
        key_id: null,
        client_id: identity.client_id,
        token_id: identity.token_id,
      };
    }

    const lastWrite = req.method === 'GET' ? ctx.writes.lastFor(principal.account_id) : undefined;
    if (lastWrite !== undefined) {
      await ctx.projections.waitFor(lastWrite, READ_YOUR_WRITES_WAIT_MS).catch((err: unknown) => {
        ctx.logger.warn({ err, account_id: principal.account_id }, 'read-your-writes wait timed out');
      });
    }
    const account: AccountStatusRow | undefined = await accountStatusOf(ctx, principal.account_id);
    if (!account) throw credentialError();
    if (account.status !== 'active') throw accountStatusError(account.status);

    setPrincipal(req, { ...principal, user_id: account.user_id });
    next();
  };
}
