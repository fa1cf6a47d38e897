// What the WebSocket feed needs from the rest of the service, as narrow functions:
// - handshake credentials: the service's one credential resolver (commands/auth), signed API
//   keys over `GET` and the path with its query, OAuth tokens through `resolveToken`; each
//   identity comes with the credential it rests on (realtime/credential.ts): the names notices
//   use for it, its expiry, and a liveness check run at every join (a key: still issued and its
//   account active; a token: resolved again, so revocation, expiry, a suspended client or
//   account all count);
// - credential notices: a key or session revoked and a grant revoked (the projections' change
//   announcements), an account no longer active (likewise), an OAuth token revoked (the token
//   store tells us after each revocation), an OAuth client changed (its directory tells us; the
//   sockets of its tokens check again: a suspension or a new IP allowlist can end them);
// - cancel_on_disconnect: the cancelAllOrders command, which has the engine choose and cancel
//   the member's live cancel_on_disconnect orders in one journaled step.

import type { CredentialRefusal } from '../commands/auth/credentials.ts';
import type { Principal } from '../commands/auth/principal.ts';
import type { AppContext } from '../commands/context.ts';
import { credentialIndexOf } from '../commands/credentials/index.ts';
import { hashToken } from '../commands/credentials/sessions.ts';
import type { OAuthStore } from '../commands/oauth/tokenStore.ts';
import type { ClientDirectory } from '../commands/oauthClients/directory.ts';
import { digestOf } from '../commands/oauth/tokens.ts';
import { cancelAllOrders } from '../commands/orders/orders.ts';
import { AccountStatusCache } from '../projections/core/queries/accountStatus.ts';
import {
  credentialKey,
  type CredentialEnd,
  type CredentialNotices,
  type SocketCredential,
} from '../realtime/credential.ts';
import type { CancelOnDisconnect } from '../realtime/disconnect.ts';
import type { HandshakeRequest, IdentityResolver, IdentityResult } from '../realtime/handshake.ts';
import type { SocketIdentity } from '../realtime/identity.ts';

function identityOf(principal: Principal): SocketIdentity {
  if (principal.kind === 'app') return { kind: 'app', client_id: principal.client_id, scopes: principal.scopes };
  return {
    kind: 'member',
    account_id: principal.account_id,
    user_id: principal.user_id,
    source: principal.source,
    scopes: principal.scopes,
  };
}

/** A refusal at a join's re-check, as the reason the socket's joins are closed with (null: not a verdict). */
function endOf(refusal: CredentialRefusal, expiresAtUs: number | null, nowUs: number): CredentialEnd | null {
  switch (refusal.code) {
    case 'unavailable':
      return null; // a store that cannot answer says nothing about the credential
    case 'account_inactive':
      return 'account_inactive';
    default:
      return expiresAtUs !== null && nowUs >= expiresAtUs ? 'credential_expired' : 'credential_revoked';
  }
}

/** The wiring's parts the OAuth server hands over: its token store (expiry, revocation notices) and client directory. */
interface OAuthTokens {
  tokens: Pick<OAuthStore, 'liveAccessToken' | 'onRevoked'>;
  clients: Pick<ClientDirectory, 'onChanged'>;
}

export function identityResolverOf(ctx: AppContext, oauth?: OAuthTokens): IdentityResolver {
  const accounts = new AccountStatusCache(ctx.pool, ctx.projections);
  const keys = credentialIndexOf(ctx);

  async function accountEnded(accountId: string): Promise<CredentialEnd | null> {
    const account = await accounts.statusOf(accountId);
    return !account || account.status !== 'active' ? 'account_inactive' : null;
  }

  function keyCredential(principal: Principal): SocketCredential | undefined {
    if (principal.kind !== 'member' || principal.key_id === null) return undefined;
    const { key_id: keyId, account_id: accountId } = principal;
    return {
      keys: [credentialKey.apiKey(keyId), credentialKey.account(accountId)],
      expiresAtUs: null,
      async check() {
        const key = await keys.key(keyId);
        if (!key || key.revoked_at_us !== null) return 'credential_revoked';
        return accountEnded(accountId);
      },
    };
  }

  async function tokenCredential(
    principal: Principal,
    token: string,
    req: HandshakeRequest,
  ): Promise<SocketCredential | undefined> {
    if (principal.token_id === null) return undefined;
    const names: string[] = [];
    let expiresAtUs: number | null = null;
    if (principal.source === 'session') {
      names.push(credentialKey.session(principal.token_id));
      expiresAtUs = (await keys.sessionByHash(hashToken(token)))?.expires_at_us ?? null;
    } else {
      names.push(credentialKey.oauthToken(principal.token_id));
      if (principal.client_id !== null) names.push(credentialKey.oauthClient(principal.client_id));
      const stored = await oauth?.tokens.liveAccessToken(digestOf(token));
      if (stored) {
        expiresAtUs = stored.expires_at_us;
        if (stored.grant_id) names.push(credentialKey.oauthGrant(stored.grant_id));
      }
    }
    if (principal.account_id !== null) names.push(credentialKey.account(principal.account_id));
    // the handshake's request, as it was: the re-check judges the same token from the same address
    const again: HandshakeRequest = {
      method: req.method,
      pathWithQuery: req.pathWithQuery,
      header: req.header,
      remoteAddress: req.remoteAddress,
    };
    return {
      keys: names,
      expiresAtUs,
      async check() {
        const result = await ctx.credentials.resolveToken(token, again);
        return result.ok ? null : endOf(result.refusal, expiresAtUs, ctx.clock.nowUs());
      },
    };
  }

  return {
    async fromSignedHeaders(req: HandshakeRequest): Promise<IdentityResult> {
      const result = await ctx.credentials.resolve(req);
      if (!result.ok) return result;
      return { ok: true, identity: identityOf(result.principal), credential: keyCredential(result.principal) };
    },
    async fromOAuthToken(token: string, req: HandshakeRequest): Promise<IdentityResult> {
      const result = await ctx.credentials.resolveToken(token, req);
      if (result.ok)
        return {
          ok: true,
          identity: identityOf(result.principal),
          credential: await tokenCredential(result.principal, token, req),
        };
      // a token nobody recognises is an invalid OAuth token on this header
      return result.refusal.code === 'unauthorized' ? { ok: false, refusal: { code: 'oauth_token_invalid' } } : result;
    },
  };
}

/** Every source of "this credential ended", as one subscription. */
export function credentialNoticesOf(ctx: AppContext, oauth?: OAuthTokens): CredentialNotices {
  return (listener) => {
    const stopChanges = ctx.projections.onChange?.((changes) => {
      for (const change of changes) {
        switch (change.kind) {
          case 'account': {
            const doc = change.doc as { account_id?: string; status?: string } | undefined;
            const accountId = change.keys.account_id ?? doc?.account_id;
            if (accountId && doc?.status !== undefined && doc.status !== 'active')
              listener(credentialKey.account(accountId), 'account_inactive');
            break;
          }
          case 'api_key_revoked':
            if (change.keys.key_id) listener(credentialKey.apiKey(change.keys.key_id), 'credential_revoked');
            break;
          case 'session_revoked':
            if (change.keys.session_id) listener(credentialKey.session(change.keys.session_id), 'credential_revoked');
            break;
          case 'oauth_grant_revoked':
            if (change.keys.grant_id) listener(credentialKey.oauthGrant(change.keys.grant_id), 'credential_revoked');
            break;
          default:
            break;
        }
      }
    });
    const stopTokens = oauth?.tokens.onRevoked((tokenIds) => {
      for (const tokenId of tokenIds) listener(credentialKey.oauthToken(tokenId), 'credential_revoked');
    });
    // a client suspended or given a new IP allowlist: its tokens' sockets judge themselves again
    const stopClients = oauth?.clients.onChanged((clientId) => listener(credentialKey.oauthClient(clientId), null));
    return () => {
      stopChanges?.();
      stopTokens?.();
      stopClients?.();
    };
  };
}

export function cancelOnDisconnectOf(ctx: AppContext): CancelOnDisconnect {
  return async (member) => {
    const result = await cancelAllOrders(ctx, member, { market_id: null, cancel_on_disconnect_only: true });
    return { cancelled: result.ok ? result.value.length : 0 };
  };
}
