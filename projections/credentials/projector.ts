// Read model of credentials: the tables the in-process credential index is loaded from at start.
// Source of truth stays the event store (streams apikey-* and session-*). A revoked key or
// session is announced after the commit (kinds `api_key_revoked`, `session_revoked`), so holders
// of long-lived connections made with it (the WebSocket feed) can end them, and every node's
// credential index follows it; so is an issued one (`api_key_issued`, `session_issued`), so a
// node that had found no such credential a moment before asks again.

import type { ProjectionChange, Projector } from '../projector.ts';
import { API_KEY_STREAM_PREFIX, isCredentialEvent, SESSION_STREAM_PREFIX } from '../../domain/credentials/events.ts';

export const credentialsProjector: Projector = {
  name: 'credentials',
  version: 1,
  tables: ['api_keys', 'member_sessions'],
  schemaSql: `
    CREATE TABLE IF NOT EXISTS api_keys (
      key_id text PRIMARY KEY,
      account_id text NOT NULL,
      scope text NOT NULL,
      public_key text NOT NULL,
      issued_at_us bigint NOT NULL,
      revoked_at_us bigint
    );
    CREATE INDEX IF NOT EXISTS api_keys_account ON api_keys (account_id);
    CREATE TABLE IF NOT EXISTS member_sessions (
      session_id text PRIMARY KEY,
      account_id text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      issued_at_us bigint NOT NULL,
      expires_at_us bigint NOT NULL,
      revoked_at_us bigint
    );
  `,
  filter: { streamPrefixes: [API_KEY_STREAM_PREFIX, SESSION_STREAM_PREFIX] },
  async handle(tx, events) {
    const changes: ProjectionChange[] = [];
    for (const recorded of events) {
      const event = { type: recorded.type, data: recorded.data };
      if (!isCredentialEvent(event)) continue;
      switch (event.type) {
        case 'ApiKeyIssued': {
          const d = event.data;
          await tx.query(
            `INSERT INTO api_keys (key_id, account_id, scope, public_key, issued_at_us) VALUES ($1,$2,$3,$4,$5)
             ON CONFLICT (key_id) DO NOTHING`,
            [d.key_id, d.account_id, d.scope, d.public_key, d.issued_at_us],
          );
          changes.push({ projector: 'credentials', kind: 'api_key_issued', keys: { key_id: d.key_id } });
          break;
        }
        case 'ApiKeyRevoked':
          await tx.query('UPDATE api_keys SET revoked_at_us = COALESCE(revoked_at_us, $2) WHERE key_id = $1', [
            event.data.key_id,
            event.data.revoked_at_us,
          ]);
          changes.push({
            projector: 'credentials',
            kind: 'api_key_revoked',
            keys: { key_id: event.data.key_id, revoked_at_us: String(event.data.revoked_at_us) },
          });
          break;
        case 'SessionIssued': {
          const d = event.data;
          await tx.query(
            `INSERT INTO member_sessions (session_id, account_id, token_hash, issued_at_us, expires_at_us) VALUES ($1,$2,$3,$4,$5)
             ON CONFLICT (session_id) DO NOTHING`,
            [d.session_id, d.account_id, d.token_hash, d.issued_at_us, d.expires_at_us],
          );
          changes.push({ projector: 'credentials', kind: 'session_issued', keys: { token_hash: d.token_hash } });
          break;
        }
        case 'SessionRevoked':
          await tx.query(
            'UPDATE member_sessions SET revoked_at_us = COALESCE(revoked_at_us, $2) WHERE session_id = $1',
            [event.data.session_id, event.data.revoked_at_us],
          );
          changes.push({
            projector: 'credentials',
            kind: 'session_revoked',
            keys: { session_id: event.data.session_id, revoked_at_us: String(event.data.revoked_at_us) },
          });
          break;
        default: {
          const never: never = event;
          throw new Error(`unhandled credential event ${String(never)}`);
        }
      }
    }
    return changes;
  },
};
