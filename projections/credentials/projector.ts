// Read model of credentials: the tables the in-process credential index is loaded from at start.
// Source of truth stays the event store (streams apikey-* and session-*). A revoked key or
// session is announced after the commit (kinds `api_key_revoked`, `session_revoked`), so holders
// of long-lived connections made with it (the WebSocket feed) can end them, and every node's
// credential index follows it; so is an issued one (`api_key_issued`, `session_issued`), so a
// node that had found no such credential a moment before asks again.

import type pg from 'pg';
import type { ProjectionChange, Projector } from '../projector.ts';
import {
  API_KEY_STREAM_PREFIX,
  isCredentialEvent,
  SESSION_STREAM_PREFIX,
  type ApiKeyIssued,
  type SessionIssued,
} from '../../domain/credentials/events.ts';

/** A credential's table: its key, the columns an issue writes (its event's fields of the same names), and its announcements. */
interface CredentialTable<Issued> {
  table: string;
  key: keyof Issued & string;
  columns: readonly (keyof Issued & string)[];
  issuedKind: string;
  /** What an issue is announced by: what a node had looked the credential up by. */
  announcedBy: keyof Issued & string;
  revokedKind: string;
}

const API_KEYS: CredentialTable<ApiKeyIssued> = {
  table: 'api_keys',
  key: 'key_id',
  columns: ['key_id', 'account_id', 'scope', 'public_key', 'issued_at_us'],
  issuedKind: 'api_key_issued',
  announcedBy: 'key_id',
  revokedKind: 'api_key_revoked',
};

const SESSIONS: CredentialTable<SessionIssued> = {
  table: 'member_sessions',
  key: 'session_id',
  columns: ['session_id', 'account_id', 'token_hash', 'issued_at_us', 'expires_at_us'],
  issuedKind: 'session_issued',
  announcedBy: 'token_hash',
  revokedKind: 'session_revoked',
};

/** Inserts an issued credential's row (a replayed issue changes nothing). */
async function issued<I>(tx: pg.PoolClient, spec: CredentialTable<I>, data: I): Promise<ProjectionChange> {
  const places = spec.columns.map((_, i) => `$${i + 1}`);
  await tx.query(
    `INSERT INTO ${spec.table} (${spec.columns.join(', ')}) VALUES (${places.join(',')})
     ON CONFLICT (${spec.key}) DO NOTHING`,
    spec.columns.map((column) => data[column]),
  );
  return {
    projector: 'credentials',
    kind: spec.issuedKind,
    keys: { [spec.announcedBy]: String(data[spec.announcedBy]) },
  };
}

/** Marks a credential revoked, keeping the first revocation's time. */
async function revoked<I>(
  tx: pg.PoolClient,
  spec: CredentialTable<I>,
  id: string,
  revokedAtUs: number,
): Promise<ProjectionChange> {
  await tx.query(`UPDATE ${spec.table} SET revoked_at_us = COALESCE(revoked_at_us, $2) WHERE ${spec.key} = $1`, [
    id,
    revokedAtUs,
  ]);
  return {
    projector: 'credentials',
    kind: spec.revokedKind,
    keys: { [spec.key]: id, revoked_at_us: String(revokedAtUs) },
  };
}

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
        case 'ApiKeyIssued':
          changes.push(await issued(tx, API_KEYS, event.data));
          break;
        case 'ApiKeyRevoked':
          changes.push(await revoked(tx, API_KEYS, event.data.key_id, event.data.revoked_at_us));
          break;
        case 'SessionIssued':
          changes.push(await issued(tx, SESSIONS, event.data));
          break;
        case 'SessionRevoked':
          changes.push(await revoked(tx, SESSIONS, event.data.session_id, event.data.revoked_at_us));
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
