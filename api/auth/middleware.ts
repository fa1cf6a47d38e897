// The /api/v1 authentication middleware: the transport-free resolver (commands/auth) decides (and,
// for reads, waits until the read models passed the account's last write); this file maps its
// typed refusals to HTTP in one table.

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { BlockList } from 'node:net';
import type { CredentialRefusal, CredentialRequest } from '../../commands/auth/credentials.ts';
import { baseUrlOf, trustedProxies } from '../../commands/auth/origin.ts';
import type { AppContext } from '../../commands/context.ts';
import { HttpError } from '../errors.ts';
import { setPrincipal } from './principal.ts';

export const USER_AGENT_ERROR = 'User-Agent header is required';
export const API_KEY_ERROR = 'Missing or invalid API key credentials';
export const BEARER_ERROR = 'Unauthorized';
export const OAUTH_TOKEN_ERROR = 'Missing or invalid OAuth access token';
const UNAVAILABLE_RETRY_AFTER_S = '1';

export function accountStatusError(status: string): HttpError {
  const text = status === 'pending' ? 'pending approval' : status;
  return new HttpError(403, `Account is ${text}`);
}

/** The one table from credential refusals to REST answers. */
export function httpErrorOfRefusal(refusal: CredentialRefusal, resourceMetadataUrl: string): HttpError {
  switch (refusal.code) {
    case 'user_agent_required':
      return new HttpError(403, USER_AGENT_ERROR);
    case 'api_key_invalid':
      return new HttpError(401, API_KEY_ERROR);
    case 'unauthorized':
      return new HttpError(401, BEARER_ERROR);
    case 'oauth_token_invalid':
      return new HttpError(401, OAUTH_TOKEN_ERROR, {}, {
        'WWW-Authenticate': `Bearer error=invalid_token, resource_metadata=${resourceMetadataUrl}`,
      });
    case 'ip_not_allowed':
      return new HttpError(403, 'ip_not_allowed', { error_description: 'This application may not be used from this address' });
    case 'account_inactive':
      return accountStatusError(refusal.status);
    case 'unavailable':
      return new HttpError(503, 'Service temporarily unavailable; retry shortly', {}, { 'Retry-After': UNAVAILABLE_RETRY_AFTER_S });
    default: {
      const unknown: never = refusal;
      throw new Error(`unmapped credential refusal ${JSON.stringify(unknown)}`);
    }
  }
}

/** What the resolver sees of an express request. */
export function credentialRequestOf(req: Request): CredentialRequest {
  return {
    method: req.method,
    pathWithQuery: req.originalUrl,
    header: (name) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    },
    remoteAddress: req.socket.remoteAddress ?? null,
  };
}

/** The protected resource metadata URL of the host the request came to (RFC 9728). */
export function resourceMetadataUrlOf(req: Request, proxies: BlockList): string {
  const origin = { ...credentialRequestOf(req), encrypted: (req.socket as { encrypted?: boolean }).encrypted === true };
  return `${baseUrlOf(origin, proxies)}/.well-known/oauth-protected-resource`;
}

export function authenticate(ctx: AppContext): RequestHandler {
  const proxies = trustedProxies(ctx.config.trustedProxies);
  return async function authenticateRequest(req: Request, _res: Response, next: NextFunction): Promise<void> {
    const result = await ctx.credentials.resolve(credentialRequestOf(req));
    if (!result.ok) throw httpErrorOfRefusal(result.refusal, resourceMetadataUrlOf(req, proxies));
    setPrincipal(req, result.principal);
    next();
  };
}
