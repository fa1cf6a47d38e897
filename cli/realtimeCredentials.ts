// The WebSocket handshake's credential resolution, until the transport-free resolver lands in
// commands/: signed API keys through the REST verifier (same headers, 30-second window, account
// status), OAuth tokens not yet issued by this service (every token is refused as invalid).

import type { IncomingHttpHeaders } from 'node:http';
import { accountStatusOf } from '../api/auth/accounts.ts';
import { SignedKeyVerifier } from '../api/auth/signedKey.ts';
import { HttpError } from '../api/errors.ts';
import type { AppContext } from '../commands/context.ts';
import type { HandshakeRequest, IdentityResolver, IdentityResult } from '../realtime/handshake.ts';

const SIGNED_HEADER_NAMES = ['x-svc-access-key', 'x-svc-access-timestamp', 'x-svc-access-signature'];

export function interimIdentityResolver(ctx: AppContext): IdentityResolver {
  const verifier = new SignedKeyVerifier(ctx);
  return {
    async fromSignedHeaders(req: HandshakeRequest): Promise<IdentityResult> {
      const headers: IncomingHttpHeaders = {};
      for (const name of SIGNED_HEADER_NAMES) headers[name] = req.header(name);
      let key;
      try {
        key = await verifier.verify(headers, req.method, req.pathWithQuery);
      } catch (error) {
        if (error instanceof HttpError) return { ok: false, refusal: { code: 'api_key_invalid' } };
        throw error;
      }
      const account = await accountStatusOf(ctx, key.account_id);
      if (!account) return { ok: false, refusal: { code: 'api_key_invalid' } };
      if (account.status !== 'active') return { ok: false, refusal: { code: 'account_inactive', status: account.status } };
      return { ok: true, identity: { kind: 'member', account_id: key.account_id, user_id: account.user_id, source: 'api_key', scopes: new Set([key.scope]) } };
    },
    async fromOAuthToken(): Promise<IdentityResult> {
      return { ok: false, refusal: { code: 'oauth_token_invalid' } };
    },
  };
}
