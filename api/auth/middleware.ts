// The /api/v1 authentication middleware: the transport-free resolver (commands/auth) decides (and,
// for reads, waits until the read models passed the account's last write); its typed refusals
// become REST answers through the one table (api/errors.ts).

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { BlockList } from 'node:net';
import type { CredentialRequest } from '../../commands/auth/credentials.ts';
import { baseUrlOf, trustedProxies } from '../../commands/auth/origin.ts';
import type { AppContext } from '../../commands/context.ts';
import { httpErrorOf } from '../errors.ts';
import { setPrincipal } from './principal.ts';

/** `Authorization: Bearer …`: a 401 then answers that the token is invalid (RFC 6750 §3.1). */
const BEARER_PRESENTED = /^bearer +\S/i;

/** What the resolver sees of an express request. */
function credentialRequestOf(req: Request): CredentialRequest {
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
function resourceMetadataUrlOf(req: Request, proxies: BlockList): string {
  const origin = { ...credentialRequestOf(req), encrypted: (req.socket as { encrypted?: boolean }).encrypted === true };
  return `${baseUrlOf(origin, proxies)}/.well-known/oauth-protected-resource`;
}

export function authenticate(ctx: AppContext): RequestHandler {
  const proxies = trustedProxies(ctx.config.trustedProxies);
  return async function authenticateRequest(req: Request, _res: Response, next: NextFunction): Promise<void> {
    const result = await ctx.credentials.resolve(credentialRequestOf(req));
    if (!result.ok) {
      throw httpErrorOf(result.refusal, { resourceMetadataUrl: resourceMetadataUrlOf(req, proxies), bearerPresented: BEARER_PRESENTED.test(req.headers.authorization ?? '') });
    }
    setPrincipal(req, result.principal);
    next();
  };
}
