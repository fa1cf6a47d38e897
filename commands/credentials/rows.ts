// The port through which the credential index reads the credentials read model (API keys and
// member sessions, as the credentials projector writes them). Tables not created yet (no
// projector run) read as empty. The composition root wires the PostgreSQL query side
// (projections/credentials/queries.ts).

import type { ApiKeyIssued, SessionIssued } from '../../domain/credentials/events.ts';

export interface ApiKeyRow extends ApiKeyIssued {
  revoked_at_us: number | null;
}

export interface SessionRow extends SessionIssued {
  revoked_at_us: number | null;
}

export interface CredentialRows {
  /** A key by id, revoked or not. */
  key(keyId: string): Promise<ApiKeyRow | undefined>;
  /** A session by its token's digest, revoked or expired or not. */
  sessionByHash(tokenHash: string): Promise<SessionRow | undefined>;
  /** Every key, revoked ones included. */
  keys(): Promise<ApiKeyRow[]>;
  /** Sessions neither revoked nor expired at `nowUs`. */
  liveSessions(nowUs: number): Promise<SessionRow[]>;
}
