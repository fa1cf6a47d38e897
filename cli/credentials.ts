// Builds the service's one credential resolver from its parts: API keys from the credential
// index, account status from the core accounts read model (kept current by the projection
// runner's announcements), and the bearer token resolvers in order (member sessions, then any
// given, e.g. OAuth access tokens). Reads (REST GETs and WebSocket handshakes) first wait, bounded,
// until the read models have passed the account's last write, so a member reads what they just
// wrote, their account's status included.

import { createCredentialResolver, type CredentialResolver, type TokenResolver } from '../commands/auth/credentials.ts';
import type { AppContext } from '../commands/context.ts';
import { credentialIndexOf } from '../commands/credentials/index.ts';
import { sessionTokenResolver } from '../commands/credentials/sessions.ts';
import { AccountStatusCache } from '../projections/core/queries/accountStatus.ts';

/** Bound on the read-your-writes wait; a slower projection answers with what it has. */
const READ_YOUR_WRITES_WAIT_MS = 5_000;

export async function readYourWrites(ctx: Omit<AppContext, 'credentials'>, accountId: string): Promise<void> {
  const lastWrite = ctx.writes.lastFor(accountId);
  if (lastWrite === undefined) return;
  await ctx.projections.waitFor(lastWrite, READ_YOUR_WRITES_WAIT_MS).catch((err: unknown) => {
    ctx.logger.warn({ err, account_id: accountId }, 'read-your-writes wait timed out');
  });
}

/**
 * Completes `wiring` into the AppContext, in place: the credential index is one per context
 * object, so the resolver must hold the very object the rest of the service uses.
 */
export function withCredentials(wiring: Omit<AppContext, 'credentials'>, tokenResolvers: readonly TokenResolver[] = []): AppContext {
  const ctx = wiring as AppContext;
  ctx.credentials = buildCredentialResolver(ctx, tokenResolvers);
  return ctx;
}

function buildCredentialResolver(ctx: AppContext, tokenResolvers: readonly TokenResolver[]): CredentialResolver {
  const accounts = new AccountStatusCache(ctx.pool, ctx.projections);
  return createCredentialResolver({
    clock: ctx.clock,
    keys: credentialIndexOf(ctx),
    accounts,
    tokenResolvers: [sessionTokenResolver(ctx), ...tokenResolvers],
    beforeAccountCheck: (accountId, request) => (request.method === 'GET' ? readYourWrites(ctx, accountId) : Promise.resolve()),
    onPortFailure: (err) => ctx.logger.warn({ err }, 'credential check could not reach its store'),
  });
}
