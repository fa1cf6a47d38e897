// Read model of members' OAuth grants (the operator's GET /admin/v1/accounts/{id}/grants): one row
// per grant, folded from the grant streams. The authorization server decides on the streams
// themselves; this table only lists them. A revocation is announced after the commit (kind
// `oauth_grant_revoked`), so the WebSocket feed can end the sockets of the grant's tokens.

import type pg from 'pg';
import { GRANT_STREAM_PREFIX, isGrantEvent } from '../../domain/oauth/events.ts';
import { usToIso } from '../../domain/clock.ts';
import type { ProjectionChange, Projector } from '../projector.ts';

export const grantsProjector: Projector = {
  name: 'oauth_grants',
  version: 1,
  tables: ['oauth_grants'],
  schemaSql: `
    CREATE TABLE IF NOT EXISTS oauth_grants (
      grant_id text PRIMARY KEY,
      account_id text NOT NULL,
      client_id text NOT NULL,
      scopes text[] NOT NULL,
      created_at_us bigint NOT NULL,
      revoked_at_us bigint,
      revoked_reason text
    );
    CREATE INDEX IF NOT EXISTS oauth_grants_account ON oauth_grants (account_id, created_at_us);
  `,
  filter: { streamPrefixes: [GRANT_STREAM_PREFIX] },
  async handle(tx, events) {
    const changes: ProjectionChange[] = [];
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data };
      if (!isGrantEvent(event)) continue;
      if (event.type === 'OAuthGrantConsented') {
        const d = event.data;
        await tx.query(
          `INSERT INTO oauth_grants (grant_id, account_id, client_id, scopes, created_at_us) VALUES ($1,$2,$3,$4,$5)
           ON CONFLICT (grant_id) DO UPDATE SET scopes = EXCLUDED.scopes`,
          [d.grant_id, d.account_id, d.client_id, d.scopes, d.at_us],
        );
      } else {
        const d = event.data;
        await tx.query(
          'UPDATE oauth_grants SET revoked_at_us = COALESCE(revoked_at_us, $2), revoked_reason = COALESCE(revoked_reason, $3) WHERE grant_id = $1',
          [d.grant_id, d.at_us, d.reason],
        );
        changes.push({
          projector: 'oauth_grants',
          kind: 'oauth_grant_revoked',
          keys: { grant_id: d.grant_id, account_id: d.account_id },
        });
      }
    }
    return changes;
  },
};

interface GrantView {
  client_id: string;
  scopes: string[];
  created_at: string;
  revoked_at: string | null;
}

/** A member's grants, revoked ones included, oldest first. */
export async function grantsOf(pool: pg.Pool, accountId: string): Promise<GrantView[]> {
  const { rows } = await pool.query(
    'SELECT client_id, scopes, created_at_us, revoked_at_us FROM oauth_grants WHERE account_id = $1 ORDER BY created_at_us, grant_id',
    [accountId],
  );
  return rows.map((row) => ({
    client_id: row.client_id as string,
    scopes: row.scopes as string[],
    created_at: usToIso(Number(row.created_at_us)),
    revoked_at: row.revoked_at_us === null ? null : usToIso(Number(row.revoked_at_us)),
  }));
}
