// POST /oauth/token without a transport. One visible pipeline: the checks every grant shares, one
// rule each, in order; then the grant's own module (grantTypes/: authorization_code and
// refresh_token, which the protocol library @node-oauth/oauth2-server carries once their checks
// passed, and client_credentials); every refusal is a typed OAuth error (errors.ts), turned into
// its answer here, once.
//
// Library gaps closed (@node-oauth/oauth2-server 5.x; tests/oauth/ shows each): PKCE is required at authorize (authorize.ts) and
// verified before anything is consumed (the library would consume the code first); a secret in the
// form body is refused before the library sees it; a confidential client is never accepted on a
// verifier alone (library.ts getClient); Basic credentials are form-decoded (clientAuth.ts);
// refresh reuse revokes the token family; error answers are JSON.

import { authenticateClient, type AuthenticatedClient } from './clientAuth.ts';
import type { OAuthDeps } from './deps.ts';
import { answerOfError, InvalidRequest, IpNotAllowed, TemporarilyUnavailable, UnsupportedGrantType } from './errors.ts';
import { single, type OAuthAnswer, type OAuthRequest, isFormContentType } from './http.ts';
import { allowedFrom } from './ipAllowlist.ts';
import { authorizationCode } from './grantTypes/authorizationCode.ts';
import { clientCredentials } from './grantTypes/clientCredentials.ts';
import type { GrantType } from './grantTypes/grantType.ts';
import { libraryGrants } from './grantTypes/library.ts';
import { refreshToken } from './grantTypes/refreshToken.ts';

/** Parameters no grant may repeat. */
const SINGLE_PARAMETERS = ['scope', 'code_verifier', 'redirect_uri', 'code', 'refresh_token'];

interface TokenContext {
  request: OAuthRequest;
  grants: ReadonlyMap<string, GrantType>;
  client?: AuthenticatedClient;
  grant?: GrantType;
}

type Check = (context: TokenContext, deps: OAuthDeps) => Promise<void> | void;

/** The pipeline every grant shares, in order: each check passes or throws the refusal. */
const TOKEN_CHECKS: readonly { name: string; check: Check }[] = [
  {
    name: 'service available (the oauth_unavailable drill answers before anything is consumed)',
    check(_c, deps) {
      if (deps.settings.get().oauth_unavailable)
        throw new TemporarilyUnavailable(
          'The authorization server is temporarily unavailable; retry with the same code or token',
        );
    },
  },
  {
    name: 'form-encoded body',
    check({ request }) {
      if (!isFormContentType(request.headers['content-type']))
        throw new InvalidRequest('The request body must be application/x-www-form-urlencoded');
    },
  },
  {
    name: 'client authenticated (Basic for clients with a secret, client_id for those without; never a secret in the body)',
    async check(context, deps) {
      const grant = context.grants.get(single(context.request.body, 'grant_type') ?? '');
      context.client = await authenticateClient(context.request, deps.clients, grant?.publicClients ?? true);
    },
  },
  {
    name: 'IP allowlist (after client authentication, for every grant type)',
    check({ client, request }) {
      if (client && !allowedFrom(client.known, request.remoteAddress)) throw new IpNotAllowed();
    },
  },
  {
    name: 'grant_type present and supported',
    check(context) {
      const grantType = single(context.request.body, 'grant_type');
      if (grantType === undefined || grantType === '') throw new InvalidRequest('grant_type is required');
      if (grantType === null) throw new InvalidRequest('grant_type must be given once');
      const grant = context.grants.get(grantType);
      if (!grant) throw new UnsupportedGrantType(`grant_type must be one of ${[...context.grants.keys()].join(', ')}`);
      context.grant = grant;
    },
  },
  {
    name: 'the grant’s required parameters, each once',
    check({ request, grant }) {
      for (const name of grant?.required ?? []) {
        const value = single(request.body, name);
        if (value === undefined || value === '') throw new InvalidRequest(`${name} is required`);
        if (value === null) throw new InvalidRequest(`${name} must be given once`);
      }
      for (const name of SINGLE_PARAMETERS) {
        if (single(request.body, name) === null) throw new InvalidRequest(`${name} must be given once`);
      }
    },
  },
];

interface TokenEndpoint {
  handle(request: OAuthRequest): Promise<OAuthAnswer>;
}

export function createTokenEndpoint(deps: OAuthDeps): TokenEndpoint {
  const library = libraryGrants(deps);
  const grants = new Map<string, GrantType>(
    [authorizationCode(library), refreshToken(library), clientCredentials].map((grant) => [grant.name, grant]),
  );
  const report = (error: unknown) => deps.onError?.(error, 'token endpoint');

  return {
    async handle(request) {
      try {
        const context: TokenContext = { request, grants };
        for (const { check } of TOKEN_CHECKS) {
          const outcome = check(context, deps);
          // most checks pass at once: only a pending one is awaited (each await costs a turn)
          if (outcome instanceof Promise) await outcome;
        }
        return await (context.grant as GrantType).handle({
          request,
          client: context.client as AuthenticatedClient,
          deps,
        });
      } catch (error) {
        return answerOfError(error, report, 'The token could not be issued; retry shortly');
      }
    },
  };
}
