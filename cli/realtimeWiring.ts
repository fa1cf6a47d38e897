// What the WebSocket feed needs from the rest of the service, as narrow functions:
// - handshake credentials: the service's one credential resolver (commands/auth), signed API
//   keys over `GET` and the path with its query, OAuth tokens through `resolveToken`;
// - cancel_on_disconnect: the cancelAllOrders command, which has the engine choose and cancel
//   the member's live cancel_on_disconnect orders in one journaled step.

import type { Principal } from '../commands/auth/principal.ts';
import type { AppContext } from '../commands/context.ts';
import { cancelAllOrders } from '../commands/orders/orders.ts';
import type { CancelOnDisconnect } from '../realtime/disconnect.ts';
import type { HandshakeRequest, IdentityResolver, IdentityResult } from '../realtime/handshake.ts';

function identityOf(principal: Principal): IdentityResult {
  if (principal.kind === 'app') return { ok: true, identity: { kind: 'app', client_id: principal.client_id, scopes: principal.scopes } };
  return { ok: true, identity: { kind: 'member', account_id: principal.account_id, user_id: principal.user_id, source: principal.source, scopes: principal.scopes } };
}

export function identityResolverOf(ctx: AppContext): IdentityResolver {
  return {
    async fromSignedHeaders(req: HandshakeRequest): Promise<IdentityResult> {
      const result = await ctx.credentials.resolve(req);
      return result.ok ? identityOf(result.principal) : result;
    },
    async fromOAuthToken(token: string, req: HandshakeRequest): Promise<IdentityResult> {
      const result = await ctx.credentials.resolveToken(token, req);
      if (result.ok) return identityOf(result.principal);
      // a token nobody recognises is an invalid OAuth token on this header
      return result.refusal.code === 'unauthorized' ? { ok: false, refusal: { code: 'oauth_token_invalid' } } : result;
    },
  };
}

export function cancelOnDisconnectOf(ctx: AppContext): CancelOnDisconnect {
  return async (member) => {
    const result = await cancelAllOrders(ctx, member, { market_id: null, cancel_on_disconnect_only: true });
    return { cancelled: result.ok ? result.cancelled.length : 0 };
  };
}
