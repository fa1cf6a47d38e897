// POST /oauth/token without a transport. One visible pipeline: the checks SPEC needs that the
// protocol library (@node-oauth/oauth2-server) does not make, one rule each, in order; then the
// library runs the grant (code with PKCE, refresh with rotation, client credentials) on the
// model below; then one table maps its errors to SPEC's rows.
//
// Library gaps closed here (see ENVIRONMENT.md): PKCE is required at authorize (authorize.ts), so
// every code carries a challenge and the library always verifies it; a secret in the form body is
// refused before the library sees it; a confidential client is never accepted on a verifier alone
// (getClient); Basic credentials are form-decoded (clientAuth.ts); refresh reuse revokes the
// token family (getRefreshToken); error answers are JSON.

import OAuth2Server from '@node-oauth/oauth2-server';
import { randomUUID } from 'node:crypto';
import { APP_SCOPES } from '../../domain/auth/scopes.ts';
import { isConfidential } from '../oauthClients/client.ts';
import type { KnownClient } from '../oauthClients/directory.ts';
import { authenticateClient, invalidClient, type AuthenticatedClient } from './clientAuth.ts';
import type { OAuthDeps } from './deps.ts';
import { revokeGrant } from './grants.ts';
import { json, oauthError, single, type OAuthAnswer, type OAuthRequest, isFormContentType } from './http.ts';
import { allowedFrom, IP_NOT_ALLOWED_DESCRIPTION } from './ipAllowlist.ts';
import type { StoredToken } from './tokenStore.ts';
import {
  ACCESS_TOKEN_LIFETIME_S, ACCESS_TOKEN_LIFETIME_US, digestOf, newAccessToken, newRefreshToken, REFRESH_TOKEN_LIFETIME_S,
  REFRESH_TOKEN_LIFETIME_US, TOKEN_LENGTH_MAX,
} from './tokens.ts';

const { InvalidGrantError, InvalidScopeError, OAuthError, Request: LibRequest, Response: LibResponse } = OAuth2Server;

const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
const REQUIRED_PARAMETERS: Record<string, readonly string[]> = {
  authorization_code: ['code', 'redirect_uri', 'code_verifier'],
  refresh_token: ['refresh_token'],
  client_credentials: [],
};
const UNAVAILABLE_RETRY_AFTER_S = '30';

interface TokenContext {
  request: OAuthRequest;
  client?: AuthenticatedClient;
  grantType?: string;
}

type Check = (context: TokenContext, deps: OAuthDeps) => Promise<OAuthAnswer | undefined> | OAuthAnswer | undefined;

/** The pipeline, in order: each check answers (refuses) or passes. */
const TOKEN_CHECKS: readonly { name: string; check: Check }[] = [
  {
    name: 'service available (the oauth_unavailable drill answers before anything is consumed)',
    check: (_c, deps) => (deps.settings.get().oauth_unavailable
      ? oauthError(503, 'temporarily_unavailable', 'The authorization server is temporarily unavailable; retry with the same code or token', { 'Retry-After': UNAVAILABLE_RETRY_AFTER_S })
      : undefined),
  },
  {
    name: 'form-encoded body',
    check: ({ request }) => (isFormContentType(request.headers['content-type'])
      ? undefined
      : oauthError(400, 'invalid_request', 'The request body must be application/x-www-form-urlencoded')),
  },
  {
    name: 'client authenticated (Basic for clients with a secret, client_id for those without; never a secret in the body)',
    async check(context, deps) {
      const grantType = single(context.request.body, 'grant_type');
      const publicAllowed = grantType !== 'client_credentials';
      const result = await authenticateClient(context.request, deps.clients, publicAllowed);
      if ('status' in result) return result;
      context.client = result;
      return undefined;
    },
  },
  {
    name: 'IP allowlist (after client authentication, for every grant type)',
    check: ({ client, request }) => (client && !allowedFrom(client.known, request.remoteAddress)
      ? oauthError(403, 'ip_not_allowed', IP_NOT_ALLOWED_DESCRIPTION)
      : undefined),
  },
  {
    name: 'grant_type present and supported',
    check(context) {
      const grantType = single(context.request.body, 'grant_type');
      if (grantType === undefined || grantType === '') return oauthError(400, 'invalid_request', 'grant_type is required');
      if (grantType === null) return oauthError(400, 'invalid_request', 'grant_type must be given once');
      if (!(GRANT_TYPES as readonly string[]).includes(grantType)) {
        return oauthError(400, 'unsupported_grant_type', `grant_type must be one of ${GRANT_TYPES.join(', ')}`);
      }
      context.grantType = grantType;
      return undefined;
    },
  },
  {
    name: 'the grant’s required parameters, each once',
    check({ request, grantType }) {
      for (const name of REQUIRED_PARAMETERS[grantType as string] ?? []) {
        const value = single(request.body, name);
        if (value === undefined || value === '') return oauthError(400, 'invalid_request', `${name} is required`);
        if (value === null) return oauthError(400, 'invalid_request', `${name} must be given once`);
      }
      for (const name of ['scope', 'code_verifier', 'redirect_uri', 'code', 'refresh_token']) {
        if (single(request.body, name) === null) return oauthError(400, 'invalid_request', `${name} must be given once`);
      }
      return undefined;
    },
  },
];

/** The member a code or refresh token was granted by (the library runs no other grant). */
interface UserRef {
  account_id: string | null;
  grant_id: string | null;
  family_id: string | null;
}

interface LibClient {
  id: string;
  grants: string[];
  redirectUris: string[];
  known: KnownClient;
}

/** A Date for the library's expiry checks (it compares with the wall clock): the service clock's distance, on the wall clock. */
const libDate = (deps: OAuthDeps, atUs: number): Date => new Date(Date.now() + (atUs - deps.clock.nowUs()) / 1000);

/** The grants the library runs: client_credentials is issued by clientCredentials() below, never by it. */
const LIBRARY_GRANTS = ['authorization_code', 'refresh_token'];

function libClientOf(known: KnownClient): LibClient {
  return { id: known.client.client_id, grants: LIBRARY_GRANTS, redirectUris: known.client.redirect_uris, known };
}

/** The model the library runs the grants on: codes and tokens in OAuthStore, grants in the event store. */
function modelOf(deps: OAuthDeps) {
  const revokeReplayedGrant = async (code: { account_id: string; client_id: string; grant_id: string }): Promise<void> => {
    await revokeGrant(deps.store, { ...code, reason: 'code_replayed', now_us: deps.clock.nowUs() });
    await deps.tokens.revokeGrantTokens(code.grant_id);
  };

  return {
    async getClient(clientId: string, clientSecret: string | undefined) {
      const known = await deps.clients.get(clientId);
      if (!known || known.client.status !== 'active') return null;
      // a client with a secret is never accepted on a PKCE verifier alone
      if (isConfidential(known.client.app_type) && clientSecret === undefined) return null;
      return libClientOf(known);
    },

    async getAuthorizationCode(code: string) {
      if (code.length > TOKEN_LENGTH_MAX) return null;
      const stored = await deps.tokens.findCode(digestOf(code));
      if (!stored) return null;
      if (stored.consumed_at_us !== null) {
        await revokeReplayedGrant(stored);
        throw new InvalidGrantError('Invalid grant: authorization code was already used; the grant it came from is revoked');
      }
      const known = await deps.clients.get(stored.client_id);
      return {
        authorizationCode: code,
        expiresAt: libDate(deps, stored.expires_at_us),
        redirectUri: stored.redirect_uri,
        scope: stored.scopes,
        codeChallenge: stored.code_challenge,
        codeChallengeMethod: 'S256',
        client: known ? libClientOf(known) : { id: stored.client_id, grants: [] },
        user: { account_id: stored.account_id, grant_id: stored.grant_id, family_id: null } satisfies UserRef,
        stored,
      };
    },

    async revokeAuthorizationCode(code: { authorizationCode: string; stored: { account_id: string; client_id: string; grant_id: string } }) {
      const consumed = await deps.tokens.consumeCode(digestOf(code.authorizationCode));
      // lost a race with another presentation of the same code: that is a replay too
      if (!consumed) await revokeReplayedGrant(code.stored);
      return consumed;
    },

    async getRefreshToken(refreshToken: string) {
      if (refreshToken.length > TOKEN_LENGTH_MAX) return null;
      const stored = await deps.tokens.findToken(digestOf(refreshToken));
      if (!stored || stored.kind !== 'refresh') return null;
      if (stored.rotated) {
        if (stored.family_id) await deps.tokens.revokeFamily(stored.family_id);
        throw new InvalidGrantError('Invalid grant: refresh token was already used; every token issued from it is revoked');
      }
      if (stored.revoked_at_us !== null) return null;
      const known = await deps.clients.get(stored.client_id);
      return {
        refreshToken,
        refreshTokenExpiresAt: libDate(deps, stored.expires_at_us),
        scope: stored.scopes,
        client: known ? libClientOf(known) : { id: stored.client_id, grants: [] },
        user: { account_id: stored.account_id, grant_id: stored.grant_id, family_id: stored.family_id } satisfies UserRef,
        stored,
      };
    },

    async revokeToken(token: { refreshToken: string; stored: StoredToken }) {
      const rotated = await deps.tokens.rotateRefreshToken(digestOf(token.refreshToken));
      if (!rotated && token.stored.family_id) await deps.tokens.revokeFamily(token.stored.family_id);
      return rotated;
    },

    async validateScope(_user: UserRef, _client: LibClient, scope: string[] | undefined) {
      return scope; // the scopes the member granted (the library keeps a refresh within them)
    },

    async generateAccessToken() {
      return newAccessToken();
    },

    async generateRefreshToken() {
      return newRefreshToken();
    },

    async saveToken(token: { accessToken: string; refreshToken?: string; scope?: string[]; accessTokenExpiresAt?: Date; refreshTokenExpiresAt?: Date }, client: LibClient, user: UserRef) {
      const now = deps.clock.nowUs();
      const scopes = token.scope ?? [];
      const familyId = token.refreshToken ? (user.family_id ?? randomUUID()) : user.family_id;
      const rows: Omit<StoredToken, 'revoked_at_us' | 'rotated'>[] = [{
        token_hash: digestOf(token.accessToken), kind: 'access', token_id: randomUUID(), client_id: client.id,
        account_id: user.account_id, grant_id: user.grant_id, family_id: familyId, scopes, issued_at_us: now,
        expires_at_us: now + ACCESS_TOKEN_LIFETIME_US,
      }];
      if (token.refreshToken) {
        rows.push({
          token_hash: digestOf(token.refreshToken), kind: 'refresh', token_id: randomUUID(), client_id: client.id,
          account_id: user.account_id, grant_id: user.grant_id, family_id: familyId, scopes, issued_at_us: now,
          expires_at_us: now + REFRESH_TOKEN_LIFETIME_US,
        });
      }
      await deps.tokens.saveTokens(rows); // committed before the answer
      return { ...token, client, user };
    },
  };
}

/**
 * The scopes an application token gets (client_credentials): every app scope the client is
 * allowed when none is asked for; otherwise what was asked, each an app scope the client is
 * allowed (else invalid_scope).
 */
function appScopesOf(known: KnownClient, scope: readonly string[] | undefined): string[] {
  const allowed = known.client.scopes.filter((s) => (APP_SCOPES as readonly string[]).includes(s));
  if (scope === undefined || scope.length === 0) {
    if (allowed.length === 0) throw new InvalidScopeError('Invalid scope: this client is allowed no application scope');
    return allowed;
  }
  for (const requested of scope) {
    if (!(APP_SCOPES as readonly string[]).includes(requested)) {
      throw new InvalidScopeError(`Invalid scope: ${requested} is not an application scope (client_credentials grants market_data and events only)`);
    }
    if (!allowed.includes(requested)) throw new InvalidScopeError(`Invalid scope: ${requested} is not allowed for this client`);
  }
  return [...new Set(scope)];
}

/** RFC 6749 §3.3 scope text, as the library reads it: trimmed, printable ASCII without `"` or `\\`, split on white space. */
const SCOPE_TEXT = /^[\u0020-\u0021\u0023-\u005B\u005D-\u007E]+$/;
function requestedScopes(body: Record<string, unknown>): string[] | undefined {
  const raw = body.scope;
  if (raw === undefined || raw === null) return undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!SCOPE_TEXT.test(text)) throw new InvalidScopeError('Invalid parameter: `scope`');
  return text.split(/\s+/g);
}

/**
 * client_credentials, after the pipeline: the grant is the pipeline's checks (a client with a
 * secret, authenticated by Basic, from an allowed address) plus the scope rule and one token, so
 * it is issued here without the library's per-request objects (it answers exactly as the
 * library's grant did: same scope parsing and errors, same body); the other two grants, with
 * their codes, PKCE and refresh rotation, run in the library.
 */
async function clientCredentials(client: AuthenticatedClient, request: OAuthRequest, deps: OAuthDeps): Promise<OAuthAnswer> {
  let scopes: string[];
  try {
    scopes = appScopesOf(client.known, requestedScopes(request.body));
  } catch (error) {
    return answerOfLibraryError(error, deps);
  }
  const accessToken = newAccessToken();
  const now = deps.clock.nowUs();
  try {
    await deps.tokens.saveTokens([{
      token_hash: digestOf(accessToken), kind: 'access', token_id: randomUUID(), client_id: client.known.client.client_id,
      account_id: null, grant_id: null, family_id: null, scopes, issued_at_us: now, expires_at_us: now + ACCESS_TOKEN_LIFETIME_US,
    }]); // committed before the answer
  } catch (error) {
    // the token table could not take it (database unreachable, or too many rows waiting): nothing
    // was issued or consumed, so the client may simply ask again
    deps.onError?.(error, 'token endpoint (client_credentials token not stored)');
    return oauthError(503, 'temporarily_unavailable', 'The token could not be stored; retry shortly', { 'Retry-After': UNAVAILABLE_RETRY_AFTER_S });
  }
  return json(200, { access_token: accessToken, token_type: 'bearer', expires_in: ACCESS_TOKEN_LIFETIME_S, scope: scopes.join(' ') }, { Pragma: 'no-cache' });
}

/**
 * The library's errors → SPEC's rows (one table). @node-oauth/oauth2-server reports a
 * redirect_uri mismatch and a bad code_verifier as the same invalid_request class with no code of
 * their own, so this table alone reads its message text to tell them apart; it maps a third-party
 * library's errors, and no error of ours is ever matched by its text.
 */
function answerOfLibraryError(error: unknown, deps: OAuthDeps): OAuthAnswer {
  if (!(error instanceof OAuthError)) {
    deps.onError?.(error, 'token endpoint');
    return oauthError(500, 'server_error', 'The token could not be issued; retry shortly');
  }
  const message = error.message.replace(/^Invalid (grant|request|scope|client): /, '');
  switch (error.name) {
    case 'invalid_client':
      return invalidClient('client authentication failed');
    case 'invalid_request':
      // the library checks redirect_uri after consuming the code: SPEC calls it invalid_grant
      if (/redirect_uri/.test(error.message)) return oauthError(400, 'invalid_grant', 'redirect_uri differs from the one of the authorization request');
      if (/code_verifier/.test(error.message)) return oauthError(400, 'invalid_grant', 'code verifier is invalid');
      return oauthError(400, 'invalid_request', message);
    case 'server_error':
      deps.onError?.(error, 'token endpoint');
      return oauthError(500, 'server_error', 'The token could not be issued; retry shortly');
    default:
      return oauthError(error.code >= 400 && error.code < 500 ? error.code : 400, error.name, message);
  }
}

interface TokenEndpoint {
  handle(request: OAuthRequest): Promise<OAuthAnswer>;
}

export function createTokenEndpoint(deps: OAuthDeps): TokenEndpoint {
  const server = new OAuth2Server({
    model: modelOf(deps) as unknown as OAuth2Server.AuthorizationCodeModel,
    accessTokenLifetime: ACCESS_TOKEN_LIFETIME_S,
    refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_S,
    allowExtendedTokenAttributes: false,
    alwaysIssueNewRefreshToken: true,
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
  });

  return {
    async handle(request) {
      const context: TokenContext = { request };
      for (const { check } of TOKEN_CHECKS) {
        const outcome = check(context, deps);
        // most checks answer at once: only a pending one is awaited (each await costs a turn)
        const refusal = outcome instanceof Promise ? await outcome : outcome;
        if (refusal) return refusal;
      }
      const client = context.client as AuthenticatedClient;
      if (context.grantType === 'client_credentials') {
        try {
          return await clientCredentials(client, request, deps);
        } catch (error) {
          deps.onError?.(error, 'token endpoint');
          return oauthError(500, 'server_error', 'The token could not be issued; retry shortly');
        }
      }
      // The library sees the client as authenticated above: Basic with the decoded id and secret, or the public id.
      // (a content-length tells the library's body check that there is a body: it was parsed already)
      const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '1' };
      const body: Record<string, unknown> = { ...request.body };
      delete body.client_id;
      if (client.withSecret) {
        headers.authorization = `Basic ${Buffer.from(`${client.known.client.client_id}:${client.secret ?? ''}`).toString('base64')}`;
      } else {
        body.client_id = client.known.client.client_id;
      }
      const libRequest = new LibRequest({ method: 'POST', headers, query: {}, body });
      const libResponse = new LibResponse({ headers: {} });
      try {
        await server.token(libRequest, libResponse);
      } catch (error) {
        return answerOfLibraryError(error, deps);
      }
      // the stored expiry is exactly the lifetime from now (the library rounds its own clock down)
      const answer = { ...(libResponse.body as Record<string, unknown>), token_type: 'bearer', expires_in: ACCESS_TOKEN_LIFETIME_S };
      return json(200, answer, { Pragma: 'no-cache' });
    },
  };
}
