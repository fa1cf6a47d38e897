// Builds the service's one credential resolver from its parts: API keys from the credential
// index, account status from the engine's live view (else the core accounts read model, kept
// current by the projection runner's announcements), and the bearer token resolvers in order
// (member sessions, then any given, e.g. OAuth access tokens). Reads (REST GETs and WebSocket
// handshakes) first wait, bounded, until the read models have passed the account's last write,
// so a member reads what they just wrote; reads whose handler may answer from the live view
// wait there instead, and only when they go to the read models.

import { readsWaitInHandler } from '../api/v1/liveReads.ts';
import {
  createCredentialResolver,
  type AccountStatusReader,
  type CredentialResolver,
  type TokenResolver,
} from '../commands/auth/credentials.ts';
import type { AppContext } from '../commands/context.ts';
import { credentialIndexOf } from '../commands/credentials/index.ts';
import { sessionTokenResolver } from '../commands/credentials/sessions.ts';
import { readYourWrites } from '../commands/readYourWrites.ts';
import { AccountStatusCache } from '../projections/core/queries/accountStatus.ts';

export { readYourWrites };

/**
 * Completes `wiring` into the AppContext, in place: the credential index is one per context
 * object, so the resolver must hold the very object the rest of the service uses.
 */
export function withCredentials(
  wiring: Omit<AppContext, 'credentials'>,
  tokenResolvers: readonly TokenResolver[] = [],
): AppContext {
  const ctx = wiring as AppContext;
  ctx.credentials = buildCredentialResolver(ctx, tokenResolvers);
  return ctx;
}

function buildCredentialResolver(ctx: AppContext, tokenResolvers: readonly TokenResolver[]): CredentialResolver {
  const cached = new AccountStatusCache(ctx.pool, ctx.projections);
  // the engine's live view holds every account as of its last durable step: never behind a write noted
  const accounts: AccountStatusReader = {
    statusOf: async (accountId) => {
      const live = ctx.engine.live?.account(accountId);
      return live ? { account_id: live.id, user_id: live.userId, status: live.status } : cached.statusOf(accountId);
    },
  };
  return createCredentialResolver({
    clock: ctx.clock,
    keys: credentialIndexOf(ctx),
    accounts,
    tokenResolvers: [sessionTokenResolver(ctx), ...tokenResolvers],
    // reads wait for the read models, but those whose handler may answer from the live view (it waits itself when it cannot)
    // a follower's reads first wait for its replica to pass every write acknowledged (on any node) before them
    beforeAccountCheck: async (accountId, request) => {
      if (request.method !== 'GET') return;
      await ctx.engine.sync?.();
      if (!readsWaitInHandler(request.method, request.pathWithQuery)) await readYourWrites(ctx, accountId);
    },
    onPortFailure: (err) => ctx.logger.warn({ err }, 'credential check could not reach its store'),
  });
}
