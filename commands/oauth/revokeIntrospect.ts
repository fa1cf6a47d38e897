// POST /oauth/revoke (RFC 7009) and POST /oauth/introspect (RFC 7662), without a transport.
// Revocation always answers 200 once the client is authenticated: a known, unknown or another
// client's token looks the same (only the caller's own token is revoked). Revoking a refresh token
// ends its family and every access token of its grant. Introspection (Basic, or client_id alone for
// a client without a secret: its tokens are what it could present anyway) answers exactly
// `{active: false}` for anything but a live access token of the calling client.

import { authenticateClient } from './clientAuth.ts';
import type { OAuthDeps } from './deps.ts';
import { InvalidRequest, IpNotAllowed } from './errors.ts';
import { json, single, type OAuthAnswer, type OAuthRequest, isFormContentType } from './http.ts';
import { allowedFrom } from './ipAllowlist.ts';
import { digestOf, TOKEN_LENGTH_MAX } from './tokens.ts';

const MICROS_PER_S = 1_000_000;

/** The calling client and the token it names; throws the refusal (typed OAuth errors). */
async function authenticated(
  request: OAuthRequest,
  deps: OAuthDeps,
  publicAllowed: boolean,
): Promise<{ clientId: string; token: string }> {
  if (!isFormContentType(request.headers['content-type']))
    throw new InvalidRequest('The request body must be application/x-www-form-urlencoded');
  const client = await authenticateClient(request, deps.clients, publicAllowed);
  if (!allowedFrom(client.known, request.remoteAddress)) throw new IpNotAllowed();
  const token = single(request.body, 'token');
  if (token === undefined || token === '') throw new InvalidRequest('token is required');
  if (token === null) throw new InvalidRequest('token must be given once');
  return { clientId: client.known.client.client_id, token };
}

export async function revoke(request: OAuthRequest, deps: OAuthDeps): Promise<OAuthAnswer> {
  const checked = await authenticated(request, deps, true);
  if (checked.token.length <= TOKEN_LENGTH_MAX) {
    const stored = await deps.tokens.findToken(digestOf(checked.token));
    if (stored && stored.client_id === checked.clientId) {
      if (stored.kind === 'refresh') {
        if (stored.family_id) await deps.tokens.revokeFamily(stored.family_id);
        if (stored.grant_id) await deps.tokens.revokeGrantAccessTokens(stored.grant_id);
      }
      await deps.tokens.revokeToken(stored.token_hash);
    }
  }
  return json(200, {});
}

export async function introspect(request: OAuthRequest, deps: OAuthDeps): Promise<OAuthAnswer> {
  const checked = await authenticated(request, deps, true);
  const inactive = json(200, { active: false });
  if (checked.token.length > TOKEN_LENGTH_MAX) return inactive;
  const token = await deps.tokens.liveAccessToken(digestOf(checked.token));
  if (!token || token.client_id !== checked.clientId) return inactive;
  const known = await deps.clients.get(token.client_id);
  if (!known || known.client.status !== 'active') return inactive;
  let sub: string | undefined;
  if (token.account_id !== null) {
    sub = (await deps.accounts.statusOf(token.account_id))?.user_id;
    if (sub === undefined) return inactive;
  }
  return json(200, {
    active: true,
    scope: token.scopes.join(' '),
    client_id: token.client_id,
    token_type: 'bearer',
    exp: Math.floor(token.expires_at_us / MICROS_PER_S),
    iat: Math.floor(token.issued_at_us / MICROS_PER_S),
    ...(sub !== undefined ? { sub } : {}),
  });
}
