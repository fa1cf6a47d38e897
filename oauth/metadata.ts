// The OAuth metadata documents, built on the host they are fetched from (commands/auth/origin.ts):
//   GET /.well-known/oauth-authorization-server   RFC 8414 (+ RFC 9207's iss parameter flag)
//   GET /.well-known/oauth-protected-resource     RFC 9728
// `registration_endpoint` is listed only while the operator setting `dynamic_registration` is on.
// No authentication; JSON; short public caching would be wrong (the setting can change), so none.

import { Router, type Request, type Response } from 'express';
import { baseUrlOf, trustedProxies, type OriginRequest } from '../commands/auth/origin.ts';
import type { AppContext } from '../commands/context.ts';
import { ALL_SCOPES } from '../domain/auth/scopes.ts';

const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';
const RESOURCE_NAME = 'Exchange trading API';

export function originRequestOf(req: Request): OriginRequest {
  return {
    header: (name) => {
      const value = req.headers[name];
      return typeof value === 'string' ? value : undefined;
    },
    remoteAddress: req.socket.remoteAddress ?? null,
    encrypted: (req.socket as { encrypted?: boolean }).encrypted === true,
  };
}

/** RFC 8414 authorization server metadata for `base` (scheme and host, no trailing slash). */
function authorizationServerMetadata(base: string, registrationEnabled: boolean): Record<string, unknown> {
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    ...(registrationEnabled ? { registration_endpoint: `${base}/oauth/register` } : {}),
    scopes_supported: [...ALL_SCOPES],
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 9728 protected resource metadata: the resource is the service's base URL. */
function protectedResourceMetadata(base: string): Record<string, unknown> {
  return {
    resource: base,
    authorization_servers: [base],
    scopes_supported: [...ALL_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: RESOURCE_NAME,
  };
}

export function metadataRouter(ctx: Pick<AppContext, 'config' | 'settings'>): Router {
  const router = Router();
  const proxies = trustedProxies(ctx.config.trustedProxies);
  router.get(AUTHORIZATION_SERVER_METADATA_PATH, (req: Request, res: Response) => {
    res
      .set('Cache-Control', 'no-store')
      .json(
        authorizationServerMetadata(baseUrlOf(originRequestOf(req), proxies), ctx.settings.get().dynamic_registration),
      );
  });
  router.get(PROTECTED_RESOURCE_METADATA_PATH, (req: Request, res: Response) => {
    res.set('Cache-Control', 'no-store').json(protectedResourceMetadata(baseUrlOf(originRequestOf(req), proxies)));
  });
  return router;
}
