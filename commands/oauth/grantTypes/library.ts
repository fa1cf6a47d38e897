// The protocol library, @node-oauth/oauth2-server, carrying the authorization_code and
// refresh_token grants once their own checks passed (authorizationCode.ts, refreshToken.ts): it
// runs its checks again on the model below, then issues. Only success consumes: the model's
// revokeAuthorizationCode and revokeToken consume nothing (the library calls them before its
// PKCE and scope checks); saveToken marks the code or refresh token used in the same statement
// that writes the new tokens (OAuthStore.exchangeCode, rotateRefreshToken). A presentation that
// loses that race is a replay: a code's grant is revoked, a refresh token's family is.

import OAuth2Server from '@node-oauth/oauth2-server';
import { randomUUID } from 'node:crypto';
import { isConfidential } from '../../oauthClients/client.ts';
import type { KnownClient } from '../../oauthClients/directory.ts';
import type { AuthenticatedClient } from '../clientAuth.ts';
import type { OAuthDeps } from '../deps.ts';
import { InvalidGrant, TemporarilyUnavailable } from '../errors.ts';
import { revokeGrant } from '../grants.ts';
import { valueOrThrow } from '../../result.ts';
import { json, type OAuthAnswer, type OAuthRequest } from '../http.ts';
import type { StoredCode, StoredToken } from '../tokenStore.ts';
import {
  ACCESS_TOKEN_LIFETIME_S,
  ACCESS_TOKEN_LIFETIME_US,
  digestOf,
  newAccessToken,
  newRefreshToken,
  REFRESH_TOKEN_LIFETIME_S,
  REFRESH_TOKEN_LIFETIME_US,
  TOKEN_LENGTH_MAX,
} from '../tokens.ts';

const { Request: LibRequest, Response: LibResponse } = OAuth2Server;

export const CODE_REPLAYED = 'authorization code was already used; the grant it came from is revoked';
export const REFRESH_REUSED = 'refresh token was already used; every token issued from it is revoked';

/** What a code or refresh token was granted for, and what issuing from it uses up. */
interface UserRef {
  account_id: string | null;
  grant_id: string | null;
  family_id: string | null;
  consumes: { kind: 'code'; code: StoredCode } | { kind: 'refresh'; token: StoredToken };
}

interface LibClient {
  id: string;
  grants: string[];
  redirectUris: string[];
  known: KnownClient;
}

type TokenRow = Omit<StoredToken, 'revoked_at_us' | 'rotated'>;

/** The grants the library runs (client_credentials is issued by its own module). */
const LIBRARY_GRANTS = ['authorization_code', 'refresh_token'];

const libClientOf = (known: KnownClient): LibClient => ({
  id: known.client.client_id,
  grants: LIBRARY_GRANTS,
  redirectUris: known.client.redirect_uris,
  known,
});

/** A Date for the library's expiry checks (it compares with the wall clock): the service clock's distance, on the wall clock. */
const libDate = (deps: OAuthDeps, atUs: number): Date => new Date(Date.now() + (atUs - deps.clock.nowUs()) / 1000);

/** A replayed code: its grant is revoked (an event), then everything issued under it. */
export async function revokeReplayedGrant(
  deps: OAuthDeps,
  code: { account_id: string; client_id: string; grant_id: string },
): Promise<void> {
  valueOrThrow(await revokeGrant(deps.store, { ...code, reason: 'code_replayed', now_us: deps.clock.nowUs() }));
  await deps.tokens.revokeGrantTokens(code.grant_id);
}

/** A reused refresh token: its family is revoked. */
export async function revokeReusedFamily(deps: OAuthDeps, token: StoredToken): Promise<void> {
  if (token.family_id) await deps.tokens.revokeFamily(token.family_id);
}

function modelOf(deps: OAuthDeps) {
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
        await revokeReplayedGrant(deps, stored);
        throw new InvalidGrant(CODE_REPLAYED);
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
        user: {
          account_id: stored.account_id,
          grant_id: stored.grant_id,
          family_id: null,
          consumes: { kind: 'code', code: stored },
        } satisfies UserRef,
      };
    },

    /** Called before the library's own PKCE check: consumes nothing (saveToken does, on success). */
    async revokeAuthorizationCode() {
      return true;
    },

    async getRefreshToken(refreshToken: string) {
      if (refreshToken.length > TOKEN_LENGTH_MAX) return null;
      const stored = await deps.tokens.findToken(digestOf(refreshToken));
      if (!stored || stored.kind !== 'refresh') return null;
      if (stored.rotated) {
        await revokeReusedFamily(deps, stored);
        throw new InvalidGrant(REFRESH_REUSED);
      }
      if (stored.revoked_at_us !== null) return null;
      const known = await deps.clients.get(stored.client_id);
      return {
        refreshToken,
        refreshTokenExpiresAt: libDate(deps, stored.expires_at_us),
        scope: stored.scopes,
        client: known ? libClientOf(known) : { id: stored.client_id, grants: [] },
        user: {
          account_id: stored.account_id,
          grant_id: stored.grant_id,
          family_id: stored.family_id,
          consumes: { kind: 'refresh', token: stored },
        } satisfies UserRef,
      };
    },

    /** Called before the library's scope check: consumes nothing (saveToken does, on success). */
    async revokeToken() {
      return true;
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

    async saveToken(
      token: { accessToken: string; refreshToken?: string; scope?: string[] },
      client: LibClient,
      user: UserRef,
    ) {
      const now = deps.clock.nowUs();
      const scopes = token.scope ?? [];
      const familyId = token.refreshToken ? (user.family_id ?? randomUUID()) : user.family_id;
      const rowOf = (secret: string, kind: TokenRow['kind'], lifetimeUs: number): TokenRow => ({
        token_hash: digestOf(secret),
        kind,
        token_id: randomUUID(),
        client_id: client.id,
        account_id: user.account_id,
        grant_id: user.grant_id,
        family_id: familyId,
        scopes,
        issued_at_us: now,
        expires_at_us: now + lifetimeUs,
      });
      const rows = [rowOf(token.accessToken, 'access', ACCESS_TOKEN_LIFETIME_US)];
      if (token.refreshToken) rows.push(rowOf(token.refreshToken, 'refresh', REFRESH_TOKEN_LIFETIME_US));
      const used = user.consumes;
      let issued: boolean;
      try {
        issued =
          used.kind === 'code'
            ? await deps.tokens.exchangeCode(used.code.code_hash, rows)
            : await deps.tokens.rotateRefreshToken(used.token.token_hash, rows);
      } catch (error) {
        // nothing was written, so nothing was used: the client retries with the same code or token
        deps.onError?.(error, `token endpoint (${used.kind === 'code' ? 'code exchange' : 'refresh'} not stored)`);
        throw new TemporarilyUnavailable(
          `The token could not be stored; retry shortly with the same ${used.kind === 'code' ? 'code' : 'refresh token'}`,
        );
      }
      if (!issued) {
        // another presentation won (or the grant was revoked meanwhile): this one is a replay
        if (used.kind === 'code') {
          await revokeReplayedGrant(deps, used.code);
          throw new InvalidGrant(CODE_REPLAYED);
        }
        await revokeReusedFamily(deps, used.token);
        throw new InvalidGrant(REFRESH_REUSED);
      }
      return { ...token, client, user };
    },
  };
}

/** The library, ready to run the code and refresh grants for already-checked requests. */
export function libraryGrants(deps: OAuthDeps) {
  const server = new OAuth2Server({
    model: modelOf(deps) as unknown as OAuth2Server.AuthorizationCodeModel,
    accessTokenLifetime: ACCESS_TOKEN_LIFETIME_S,
    refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_S,
    allowExtendedTokenAttributes: false,
    alwaysIssueNewRefreshToken: true,
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
  });

  return {
    /** Runs the request's grant in the library for the client the endpoint authenticated. */
    async run(request: OAuthRequest, client: AuthenticatedClient): Promise<OAuthAnswer> {
      // The library sees the client as authenticated: Basic with the decoded id and secret, or the public id.
      // (a content-length tells the library's body check that there is a body: it was parsed already)
      const headers: Record<string, string> = {
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': '1',
      };
      const body: Record<string, unknown> = { ...request.body };
      delete body.client_id;
      if (client.withSecret) {
        headers.authorization = `Basic ${Buffer.from(`${client.known.client.client_id}:${client.secret ?? ''}`).toString('base64')}`;
      } else {
        body.client_id = client.known.client.client_id;
      }
      const libResponse = new LibResponse({ headers: {} });
      await server.token(new LibRequest({ method: 'POST', headers, query: {}, body }), libResponse);
      // the stored expiry is exactly the lifetime from now (the library rounds its own clock down)
      const answer = {
        ...(libResponse.body as Record<string, unknown>),
        token_type: 'bearer',
        expires_in: ACCESS_TOKEN_LIFETIME_S,
      };
      return json(200, answer, { Pragma: 'no-cache' });
    },
  };
}

export type LibraryGrants = ReturnType<typeof libraryGrants>;
