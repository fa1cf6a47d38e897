// Builds the authorization server from the service's parts: the code and token tables, the client
// directory, account status from the core read model, the login limiter, and member sign-up
// (an engine input, then a wait until the read models know the account so its first login works).

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../commands/context.ts';
import { useClientSecretKey } from '../commands/oauthClients/client.ts';
import { openAccount } from '../commands/accounts/accounts.ts';
import { SignUpLimiter } from '../commands/accounts/signUp.ts';
import { accessTokenResolver } from '../commands/oauth/accessTokens.ts';
import type { OAuthDeps } from '../commands/oauth/deps.ts';
import { LoginLimiter } from '../commands/oauth/login.ts';
import { RegistrationLimiter } from '../commands/oauth/register.ts';
import { PostgresBrowserSessions } from './stores/browserSessions.pg.ts';
import { PostgresOAuthStore } from './stores/oauthStore.pg.ts';
import { sharedServiceKey } from './stores/serviceKeys.pg.ts';
import type { TokenResolver } from '../commands/auth/credentials.ts';
import { clientsOf } from '../commands/oauthClients/commands.ts';
import { oauthRouter } from '../oauth/router.ts';
import { AccountStatusCache } from '../projections/core/queries/accountStatus.ts';
import { accountsByEmailQuery } from '../projections/core/queries/accountsByEmail.ts';

const SIGN_UP_VISIBLE_WAIT_MS = 5_000;
/**
 * The installation's key for client-secret digests, shared by every node through PostgreSQL
 * (table service_keys). Installs made before it was shared kept it in this file under DATA_DIR:
 * such a node offers its file's key, so the key its clients were registered under is kept.
 */
const CLIENT_SECRET_KEY_FILE = 'oauth-client-secret.key';
const CLIENT_SECRET_KEY_NAME = 'oauth_client_secret';
const CLIENT_SECRET_KEY_BYTES = 32;

/** The key a data directory made before the key was shared, if any. */
function localClientSecretKey(dataDir: string): Buffer | undefined {
  const file = path.join(dataDir, CLIENT_SECRET_KEY_FILE);
  try {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    if (key.length >= CLIENT_SECRET_KEY_BYTES) return key;
    throw new Error(
      `${file} holds no key of ${CLIENT_SECRET_KEY_BYTES} bytes (hex); restore it from a backup (clients' secrets are digested with it)`,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return undefined;
  }
}

/** The shared key: the one stored, or this node's (its file's, else a new one) when none is. */
async function clientSecretKey(base: Omit<AppContext, 'credentials'>): Promise<Buffer> {
  const local = localClientSecretKey(base.config.dataDir);
  const key = Buffer.from(
    await sharedServiceKey(
      base.pool,
      CLIENT_SECRET_KEY_NAME,
      (local ?? randomBytes(CLIENT_SECRET_KEY_BYTES)).toString('hex'),
    ),
    'hex',
  );
  if (local && !local.equals(key))
    base.logger.warn(
      { file: path.join(base.config.dataDir, CLIENT_SECRET_KEY_FILE) },
      "this node's OAuth client-secret key file differs from the one the database holds, which is used: secrets of clients registered under the file's key do not verify (rotate them)",
    );
  return key;
}

interface OAuthServerParts {
  deps: OAuthDeps;
  tokenResolver: TokenResolver;
  /** The token store (deps.tokens) as itself: it also follows other nodes' revocations (cli/sharedState.ts). */
  tokens: PostgresOAuthStore;
}

/** The OAuth pieces that exist before the credential resolver (it takes the access-token resolver). */
export async function oauthParts(base: Omit<AppContext, 'credentials'>): Promise<OAuthServerParts> {
  useClientSecretKey(base.store, await clientSecretKey(base));
  const tokens = new PostgresOAuthStore(base.pool, () => base.clock.nowUs());
  const deps: OAuthDeps = {
    store: base.store,
    tokens,
    clients: clientsOf(base.store),
    clock: base.clock,
    settings: base.settings,
    accounts: new AccountStatusCache(base.pool, base.projections),
    onError: (err, where) => base.logger.error({ err, where }, 'oauth command failed'),
  };
  return { deps, tokenResolver: accessTokenResolver(deps), tokens };
}

export function oauthHttpOf(ctx: AppContext, parts: OAuthServerParts) {
  return oauthRouter({
    deps: parts.deps,
    members: { accountsByEmail: caughtUpLookup(ctx, accountsByEmailQuery(ctx.pool)) },
    loginLimiter: new LoginLimiter(),
    registrations: new RegistrationLimiter(),
    signUps: new SignUpLimiter(),
    trustedProxies: ctx.config.trustedProxies,
    log: ctx.logger,
    // in PostgreSQL: a browser whose requests reach different nodes keeps its session
    sessions: new PostgresBrowserSessions(ctx.pool),
    async openMember(member) {
      const opened = await openAccount(
        ctx,
        { first_name: member.first_name, last_name: member.last_name, email: member.email },
        member.password,
      );
      if (!opened.ok) return 'refused';
      await ctx.projections.waitFor(opened.value.position, SIGN_UP_VISIBLE_WAIT_MS);
      return 'opened';
    },
  });
}

/** How long a login's email lookup that found nobody waits for the read models to reach the journal's head before it asks again. */
const EMAIL_LOOKUP_CATCH_UP_WAIT_MS = 2_000;

/**
 * Members are found by email in the read models, which may trail an account the operator opened a
 * moment ago: a lookup that finds nobody waits (bounded) until the read models have passed the
 * journal's head, then asks again, so a login right after the account was opened finds it. The
 * login limiter bounds how often anyone can make it wait.
 */
function caughtUpLookup(
  ctx: AppContext,
  lookup: (email: string) => Promise<string[]>,
): (email: string) => Promise<string[]> {
  return async (email) => {
    const found = await lookup(email);
    if (found.length > 0) return found;
    try {
      await ctx.projections.waitFor(await ctx.store.headPosition(), EMAIL_LOOKUP_CATCH_UP_WAIT_MS);
    } catch {
      return found; // the read models lag more than the bound: answer from what they hold
    }
    return lookup(email);
  };
}
