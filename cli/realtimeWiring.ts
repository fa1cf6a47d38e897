// What the WebSocket feed needs from the rest of the service, until the transport-free pieces
// land in commands/:
// - handshake credentials: signed API keys through the REST verifier (same headers, 30-second
//   window, account status); OAuth tokens are not yet issued by this service (all refused);
// - cancel_on_disconnect: once the read models have passed the member's last write, the live
//   orders placed with cancel_on_disconnect are cancelled through the engine's CancelOrders
//   input (journaled and replayed like any cancel).

import type { IncomingHttpHeaders } from 'node:http';
import { accountStatusOf } from '../api/auth/accounts.ts';
import { SignedKeyVerifier } from '../api/auth/signedKey.ts';
import { HttpError } from '../api/errors.ts';
import type { AppContext } from '../commands/context.ts';
import { listOrders } from '../projections/core/queries/orders.ts';
import { LIVE_ORDER_STATUSES } from '../realtime/channels/private.ts';
import type { CancelOnDisconnect } from '../realtime/disconnect.ts';
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

/** Order ids per CancelOrders input (a batch the engine decides as one step). */
const CANCELS_PER_INPUT_MAX = 1_000;
const ORDERS_READ_PER_PAGE = 200;

export function interimCancelOnDisconnect(ctx: AppContext, readYourWrites: (accountId: string) => Promise<void>): CancelOnDisconnect {
  return async (member) => {
    await readYourWrites(member.account_id);
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await listOrders(ctx.pool, member.account_id, { statuses: LIVE_ORDER_STATUSES }, { limit: ORDERS_READ_PER_PAGE, cursor });
      for (const order of page.orders) if ((order as { cancel_on_disconnect?: boolean }).cancel_on_disconnect === true) ids.push(order.id);
      cursor = page.cursor;
    } while (cursor !== null);
    let cancelled = 0;
    for (let start = 0; start < ids.length; start += CANCELS_PER_INPUT_MAX) {
      const reply = await ctx.engine.submit({ kind: 'CancelOrders', account_id: member.account_id, order_ids: ids.slice(start, start + CANCELS_PER_INPUT_MAX) });
      cancelled += (reply.legs ?? []).filter((leg) => leg.order?.status === 'cancelled' || leg.order?.status === 'partially_cancelled').length;
    }
    return { cancelled };
  };
}
