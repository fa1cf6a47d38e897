// In-memory state that a write through another node can change, kept following those writes.
// Each node holds copies for speed: the settings document, the credential index (keys, sessions,
// and the ids it found unknown), the OAuth client directory, the OAuth access-token cache. A write
// updates the copy of the node that made it at once; every other node learns of it here:
//
// - from the projection changes every node's host receives in journal order (the leaseholder's
//   runner relays them: cli/projectionWorkerMain.ts), within the projection lag: a key or session
//   revoked or issued (the credentials projector), settings changed and an OAuth client registered
//   or changed (the announcements projector). Account status and GET /me's sources follow the same
//   changes in their own caches (projections/core/queries/accountStatus.ts, projections/member/meSources.ts);
// - from PostgreSQL NOTIFY for OAuth token revocations, which are rows, not events
//   (cli/stores/oauthStore.pg.ts), at once.

import type { AppContext } from '../commands/context.ts';
import { credentialIndexOf } from '../commands/credentials/index.ts';
import { clientChanged } from '../commands/oauthClients/directory.ts';
import type { Settings } from '../commands/settings/settings.ts';
import type { PostgresOAuthStore } from './stores/oauthStore.pg.ts';

export interface SharedStateFollower {
  stop(): Promise<void>;
}

export function followSharedState(
  ctx: AppContext,
  oauth: { tokens: Pick<PostgresOAuthStore, 'followRevocations'> },
  connectionString: string,
): SharedStateFollower {
  const index = credentialIndexOf(ctx);
  const stopChanges = ctx.projections.onChange?.((changes) => {
    for (const { kind, keys, doc } of changes) {
      switch (kind) {
        case 'api_key_revoked':
          if (keys.key_id) index.revokeKey(keys.key_id, Number(keys.revoked_at_us ?? ctx.clock.nowUs()));
          break;
        case 'session_revoked':
          if (keys.session_id) index.revokeSession(keys.session_id, Number(keys.revoked_at_us ?? ctx.clock.nowUs()));
          break;
        case 'api_key_issued':
          if (keys.key_id) index.keyIssuedElsewhere(keys.key_id);
          break;
        case 'session_issued':
          if (keys.token_hash) index.sessionIssuedElsewhere(keys.token_hash);
          break;
        case 'settings_changed':
          if (doc && keys.revision) ctx.settings.observe?.(doc as Settings, BigInt(keys.revision));
          break;
        case 'oauth_client_changed':
          if (keys.client_id) clientChanged(ctx.store, keys.client_id);
          break;
        default:
          break;
      }
    }
  });
  const revocations = oauth.tokens.followRevocations(connectionString, (err) =>
    ctx.logger.warn({ err }, 'OAuth revocation listener failed; listening again (cached tokens are forgotten then)'),
  );
  return {
    async stop() {
      stopChanges?.();
      await revocations.stop();
    },
  };
}
