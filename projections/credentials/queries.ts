// The credentials read model's query side: API keys and member sessions as the credentials
// projector wrote them, for the in-process credential index (the port it reads through:
// commands/credentials/rows.ts, wired by the composition root). Missing tables (no projector run
// yet) read as empty.

import type pg from 'pg';
import type { ApiKeyScope } from '../../domain/credentials/events.ts';

interface KeyRecord {
  key_id: string;
  account_id: string;
  scope: ApiKeyScope;
  public_key: string;
  issued_at_us: string;
  revoked_at_us: string | null;
}
interface SessionRecord {
  session_id: string;
  account_id: string;
  token_hash: string;
  issued_at_us: string;
  expires_at_us: string;
  revoked_at_us: string | null;
}

export interface ApiKeyRow {
  key_id: string;
  account_id: string;
  scope: ApiKeyScope;
  public_key: string;
  issued_at_us: number;
  revoked_at_us: number | null;
}
export interface SessionRow {
  session_id: string;
  account_id: string;
  token_hash: string;
  issued_at_us: number;
  expires_at_us: number;
  revoked_at_us: number | null;
}

const KEY_COLUMNS = 'key_id, account_id, scope, public_key, issued_at_us, revoked_at_us';
const SESSION_COLUMNS = 'session_id, account_id, token_hash, issued_at_us, expires_at_us, revoked_at_us';
/** PostgreSQL's "undefined_table". */
const UNDEFINED_TABLE = '42P01';

const microsOrNull = (value: string | null): number | null => (value === null ? null : Number(value));

const keyOf = (row: KeyRecord): ApiKeyRow => ({
  key_id: row.key_id,
  account_id: row.account_id,
  scope: row.scope,
  public_key: row.public_key,
  issued_at_us: Number(row.issued_at_us),
  revoked_at_us: microsOrNull(row.revoked_at_us),
});
const sessionOf = (row: SessionRecord): SessionRow => ({
  session_id: row.session_id,
  account_id: row.account_id,
  token_hash: row.token_hash,
  issued_at_us: Number(row.issued_at_us),
  expires_at_us: Number(row.expires_at_us),
  revoked_at_us: microsOrNull(row.revoked_at_us),
});

export function credentialRowsQuery(pool: pg.Pool) {
  async function rows<Row>(sql: string, params: unknown[] = []): Promise<Row[]> {
    try {
      return (await pool.query(sql, params)).rows as Row[];
    } catch (err) {
      if ((err as { code?: string }).code === UNDEFINED_TABLE) return [];
      throw err;
    }
  }
  return {
    async key(keyId: string): Promise<ApiKeyRow | undefined> {
      const [row] = await rows<KeyRecord>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_id = $1`, [keyId]);
      return row ? keyOf(row) : undefined;
    },
    async sessionByHash(tokenHash: string): Promise<SessionRow | undefined> {
      const [row] = await rows<SessionRecord>(`SELECT ${SESSION_COLUMNS} FROM member_sessions WHERE token_hash = $1`, [
        tokenHash,
      ]);
      return row ? sessionOf(row) : undefined;
    },
    async keys(): Promise<ApiKeyRow[]> {
      return (await rows<KeyRecord>(`SELECT ${KEY_COLUMNS} FROM api_keys`)).map(keyOf);
    },
    async liveSessions(nowUs: number): Promise<SessionRow[]> {
      const live = await rows<SessionRecord>(
        `SELECT ${SESSION_COLUMNS} FROM member_sessions WHERE revoked_at_us IS NULL AND expires_at_us > $1`,
        [nowUs],
      );
      return live.map(sessionOf);
    },
  };
}
