// grant_type=client_credentials: an application token for catalogue data. The endpoint's pipeline
// has already authenticated the client with its secret (Basic) and checked its address; this grant
// adds one rule, the scopes, and issues one access token (no refresh token, no member):
//   scope   every app scope the client is allowed when none is asked for; otherwise each asked
//           scope must be an app scope the client is allowed (invalid_scope)
// It is issued here, without the protocol library's per-request objects: its whole protocol is
// these checks and one token (the hot path of apps).

import { randomUUID } from 'node:crypto';
import { APP_SCOPES } from '../../../domain/auth/scopes.ts';
import type { KnownClient } from '../../oauthClients/directory.ts';
import { InvalidScope, TemporarilyUnavailable } from '../errors.ts';
import { json } from '../http.ts';
import { ACCESS_TOKEN_LIFETIME_S, ACCESS_TOKEN_LIFETIME_US, digestOf, newAccessToken } from '../tokens.ts';
import { requestedScopes, type GrantType } from './grantType.ts';

/** The scopes an application token gets. */
function appScopesOf(known: KnownClient, scope: readonly string[] | undefined): string[] {
  const allowed = known.client.scopes.filter((s) => (APP_SCOPES as readonly string[]).includes(s));
  if (scope === undefined || scope.length === 0) {
    if (allowed.length === 0) throw new InvalidScope('this client is allowed no application scope');
    return allowed;
  }
  for (const requested of scope) {
    if (!(APP_SCOPES as readonly string[]).includes(requested)) {
      throw new InvalidScope(
        `${requested} is not an application scope (client_credentials grants market_data and events only)`,
      );
    }
    if (!allowed.includes(requested)) throw new InvalidScope(`${requested} is not allowed for this client`);
  }
  return [...new Set(scope)];
}

export const clientCredentials: GrantType = {
  name: 'client_credentials',
  required: [],
  publicClients: false,
  async handle({ request, client, deps }) {
    const scopes = appScopesOf(client.known, requestedScopes(request.body));
    const accessToken = newAccessToken();
    const now = deps.clock.nowUs();
    try {
      await deps.tokens.saveTokens([
        {
          token_hash: digestOf(accessToken),
          kind: 'access',
          token_id: randomUUID(),
          client_id: client.known.client.client_id,
          account_id: null,
          grant_id: null,
          family_id: null,
          scopes,
          issued_at_us: now,
          expires_at_us: now + ACCESS_TOKEN_LIFETIME_US,
        },
      ]); // committed before the answer
    } catch (error) {
      // the token table could not take it (database unreachable, or too many rows waiting): nothing
      // was issued or consumed, so the client may simply ask again
      deps.onError?.(error, 'token endpoint (client_credentials token not stored)');
      throw new TemporarilyUnavailable('The token could not be stored; retry shortly');
    }
    return json(
      200,
      { access_token: accessToken, token_type: 'bearer', expires_in: ACCESS_TOKEN_LIFETIME_S, scope: scopes.join(' ') },
      { Pragma: 'no-cache' },
    );
  },
};
