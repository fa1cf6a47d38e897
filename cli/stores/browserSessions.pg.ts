// The PostgreSQL adapter of OAuth browser sessions (the port and its rules: oauth/browserSession.ts),
// so a browser whose requests reach different nodes (a load balancer without stickiness) keeps
// its session through the authorization-code flow. Table oauth_browser_sessions (migration 0013):
// one row per session, keyed by the SHA-256 of the cookie's value, the session's fields as JSON.
// The same bounds as in memory, applied by the statement that adds a row: anonymous rows past
// ANONYMOUS_SESSIONS_MAX lose the idlest first and never touch signed-in ones; a sign-in drops its
// account's oldest sign-ins past SIGNED_IN_SESSIONS_PER_ACCOUNT_MAX, then the idlest signed-in
// rows past SIGNED_IN_SESSIONS_MAX. Idle rows expire after BROWSER_SESSION_IDLE_MS (a lookup finds
// none; the idle are deleted at most every PURGE_INTERVAL_MS). Two requests of one browser at the
// same moment on two nodes: the later save wins.

import { createHash } from 'node:crypto';
import type pg from 'pg';
import { inTransaction } from '../../projections/runtime/transaction.ts';
import type { AuthorizationRequest } from '../../commands/oauth/authorize.ts';
import {
  ANONYMOUS_SESSIONS_MAX,
  anonymousSession,
  BROWSER_SESSION_IDLE_MS,
  newSessionId,
  sessionIdOf,
  SIGNED_IN_SESSIONS_MAX,
  SIGNED_IN_SESSIONS_PER_ACCOUNT_MAX,
  type BrowserSession,
  type BrowserSessionStore,
  type SessionBounds,
} from '../../oauth/browserSession.ts';

/** Idle sessions are deleted at most this often (by the session made when it is due). */
const PURGE_INTERVAL_MS = 60_000;

/** What a row keeps besides its id, account and idle time. */
interface SessionDoc {
  csrf: string;
  totp_account_id: string | null;
  resume: string | null;
  loggedInFor: string | null;
  flash: { note: string; email: string } | null;
  pending: Array<[string, AuthorizationRequest]>;
}

const digestOf = (id: string) => createHash('sha256').update(id, 'utf8').digest('hex');

function docOf(session: BrowserSession): string {
  const doc: SessionDoc = {
    csrf: session.csrf,
    totp_account_id: session.totp_account_id,
    resume: session.resume,
    loggedInFor: session.loggedInFor,
    flash: session.flash,
    // the client as the consent screen showed it, without its secret's digest
    pending: [...session.pending].map(([id, request]) => [
      id,
      { ...request, client: { ...request.client, secret_hash: null } },
    ]),
  };
  return JSON.stringify(doc);
}

/** Anonymous rows past the bound, the idlest first (signed-in rows are never counted or dropped here). */
const TRIM_ANONYMOUS_SQL = `DELETE FROM oauth_browser_sessions WHERE id_hash IN (
  SELECT id_hash FROM oauth_browser_sessions WHERE account_id IS NULL ORDER BY last_seen_ms DESC, id_hash OFFSET $1)`;

export class PostgresBrowserSessions implements BrowserSessionStore {
  private readonly anonymousMax: number;
  private readonly signedInMax: number;
  private readonly perAccountMax: number;
  private lastPurgeMs = 0;

  constructor(
    private readonly pool: pg.Pool,
    bounds: SessionBounds = {},
  ) {
    this.anonymousMax = bounds.anonymousMax ?? ANONYMOUS_SESSIONS_MAX;
    this.signedInMax = bounds.signedInMax ?? SIGNED_IN_SESSIONS_MAX;
    this.perAccountMax = bounds.perAccountMax ?? SIGNED_IN_SESSIONS_PER_ACCOUNT_MAX;
  }

  async find(cookieHeader: string | undefined, nowMs: number): Promise<BrowserSession | undefined> {
    const id = sessionIdOf(cookieHeader);
    if (!id) return undefined;
    const { rows } = await this.pool.query<{ account_id: string | null; doc: string }>(
      `UPDATE oauth_browser_sessions SET last_seen_ms = GREATEST(last_seen_ms, $2)
       WHERE id_hash = $1 AND last_seen_ms >= $2::bigint - $3::bigint RETURNING account_id, doc`,
      [digestOf(id), nowMs, BROWSER_SESSION_IDLE_MS],
    );
    const row = rows[0];
    if (!row) {
      // idle past the bound (or unknown): it is gone
      await this.pool.query(
        'DELETE FROM oauth_browser_sessions WHERE id_hash = $1 AND last_seen_ms < $2::bigint - $3::bigint',
        [digestOf(id), nowMs, BROWSER_SESSION_IDLE_MS],
      );
      return undefined;
    }
    const doc = JSON.parse(row.doc) as SessionDoc;
    return {
      id,
      csrf: doc.csrf,
      account_id: row.account_id,
      totp_account_id: doc.totp_account_id,
      resume: doc.resume,
      loggedInFor: doc.loggedInFor,
      flash: doc.flash,
      pending: new Map(doc.pending),
      lastSeenMs: nowMs,
    };
  }

  async create(nowMs: number): Promise<BrowserSession> {
    const session = anonymousSession(nowMs);
    await this.pool.query(
      'INSERT INTO oauth_browser_sessions (id_hash, account_id, last_seen_ms, doc) VALUES ($1, NULL, $2, $3)',
      [digestOf(session.id), nowMs, docOf(session)],
    );
    await this.pool.query(TRIM_ANONYMOUS_SQL, [this.anonymousMax]);
    if (nowMs - this.lastPurgeMs >= PURGE_INTERVAL_MS) {
      this.lastPurgeMs = nowMs;
      await this.pool.query('DELETE FROM oauth_browser_sessions WHERE last_seen_ms < $1', [
        nowMs - BROWSER_SESSION_IDLE_MS,
      ]);
    }
    return session;
  }

  async signIn(session: BrowserSession, accountId: string): Promise<void> {
    const before = digestOf(session.id);
    session.id = newSessionId();
    session.csrf = newSessionId();
    session.account_id = accountId;
    session.totp_account_id = null;
    await inTransaction(this.pool, async (tx) => {
      await tx.query('DELETE FROM oauth_browser_sessions WHERE id_hash = $1', [before]);
      // sign-in order by the database's clock: the account's oldest sign-ins go first
      await tx.query(
        `INSERT INTO oauth_browser_sessions (id_hash, account_id, signed_in_at, last_seen_ms, doc)
         VALUES ($1, $2, (extract(epoch FROM clock_timestamp()) * 1000000)::bigint, $3, $4)`,
        [digestOf(session.id), accountId, session.lastSeenMs, docOf(session)],
      );
      await tx.query(
        `DELETE FROM oauth_browser_sessions WHERE id_hash IN (
           SELECT id_hash FROM oauth_browser_sessions WHERE account_id = $1 ORDER BY signed_in_at DESC, id_hash OFFSET $2)`,
        [accountId, this.perAccountMax],
      );
      await tx.query(
        `DELETE FROM oauth_browser_sessions WHERE id_hash IN (
           SELECT id_hash FROM oauth_browser_sessions WHERE account_id IS NOT NULL ORDER BY last_seen_ms DESC, id_hash OFFSET $1)`,
        [this.signedInMax],
      );
    });
  }

  async signOut(session: BrowserSession): Promise<void> {
    session.account_id = null;
    await this.pool.query(
      'UPDATE oauth_browser_sessions SET account_id = NULL, signed_in_at = NULL, doc = $2 WHERE id_hash = $1',
      [digestOf(session.id), docOf(session)],
    );
    await this.pool.query(TRIM_ANONYMOUS_SQL, [this.anonymousMax]);
  }

  async save(session: BrowserSession): Promise<void> {
    await this.pool.query('UPDATE oauth_browser_sessions SET doc = $2 WHERE id_hash = $1', [
      digestOf(session.id),
      docOf(session),
    ]);
  }

  async sizes(): Promise<{ anonymous: number; signed_in: number }> {
    const { rows } = await this.pool.query<{ anonymous: string; signed_in: string }>(
      `SELECT count(*) FILTER (WHERE account_id IS NULL) AS anonymous, count(*) FILTER (WHERE account_id IS NOT NULL) AS signed_in
       FROM oauth_browser_sessions`,
    );
    return { anonymous: Number(rows[0]?.anonymous ?? 0), signed_in: Number(rows[0]?.signed_in ?? 0) };
  }
}
