// OAuth access tokens as one more bearer token resolver (commands/auth/credentials.ts): a live
// `svc_at_…` token yields its member (source `oauth`, the granted scopes) or, for a
// client_credentials token, the application; its client must still be active, and a client with
// an IP allowlist is refused from other addresses, at once when the operator changes the list.

import type { TokenResolver } from '../auth/credentials.ts';
import { MissCache } from '../credentials/index.ts';
import type { OAuthDeps } from './deps.ts';
import { allowedFrom } from './ipAllowlist.ts';
import { ACCESS_TOKEN_PREFIX, digestOf, TOKEN_LENGTH_MAX } from './tokens.ts';

export function accessTokenResolver(deps: Pick<OAuthDeps, 'tokens' | 'clients'>): TokenResolver {
  // unknown, expired and revoked tokens (none of them becomes live again) are remembered briefly:
  // presenting them again costs a map lookup, not a query
  const dead = new MissCache();
  return async (token, request) => {
    if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return null;
    if (token.length > TOKEN_LENGTH_MAX) return { code: 'oauth_token_invalid' };
    const digest = digestOf(token);
    if (dead.has(digest)) return { code: 'oauth_token_invalid' };
    const stored = await deps.tokens.liveAccessToken(digest);
    if (!stored) {
      dead.add(digest);
      return { code: 'oauth_token_invalid' };
    }
    const known = await deps.clients.get(stored.client_id);
    if (!known || known.client.status !== 'active') return { code: 'oauth_token_invalid' };
    if (!allowedFrom(known, request.remoteAddress)) return { code: 'ip_not_allowed' };
    return {
      account_id: stored.account_id,
      source: 'oauth',
      scopes: new Set(stored.scopes),
      client_id: stored.client_id,
      token_id: stored.token_id,
    };
  };
}
