// Authorization codes and tokens, as digests only, in the service's PostgreSQL (tables made by the
// migration 0011_service_stores.sql): each is written
// (committed) before it is answered, so a code or token a client holds survives a restart.
// Single use and rotation are atomic: the code (or refresh token) is marked used in the same
// statement that writes the tokens issued for it, so two racing presentations cannot both win, and
// a presentation whose tokens cannot be written consumes nothing (only success consumes).
//
// A revoked grant is recorded in `oauth_revoked_grants` before its tokens are revoked: an exchange
// or refresh under it writes nothing, and the bearer check refuses a token of it (the lookup that
// reads the token reads that too: no query is added to the bearer path).
//
// Access tokens are read on every bearer request: live ones are cached in process (bounded by
// ACCESS_TOKENS_CACHED_MAX) and every revocation goes through this store, which drops them from
// the cache in the same step. With several nodes, a revocation also NOTIFYs the ids it ended in
// its transaction (REVOCATION_CHANNEL); every other node's store listens (`followRevocations`),
// drops them from its cache and tells its listeners (its WebSocket feed), and forgets its whole
// cache whenever its listening connection is made again (a notice may have been missed).

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { OAuthStore, StoredCode, StoredToken, TokenKind } from '../../commands/oauth/tokenStore.ts';
import { listen, type Listening } from '../../eventstore/postgres/listen.ts';
import { inTransaction } from '../../projections/runtime/transaction.ts';

/** NOTIFY channel of revocations: `{"from": node, "tokens": [[token_hash, token_id], ...]}`. */
const REVOCATION_CHANNEL = 'exchange_oauth_revoked';
/** Tokens named per notification (a NOTIFY payload holds under 8,000 bytes; a token takes about 110). */
const REVOKED_TOKENS_PER_NOTICE_MAX = 50;

/** Live access tokens held in memory once presented; the oldest is dropped first past the bound. */
const ACCESS_TOKENS_CACHED_MAX = 100_000;
/** Token rows waiting for their INSERT; past it a token request fails (503 upstream) instead of queueing without end. */
const TOKEN_WRITES_PENDING_MAX = 10_000;
/** Rows per grouped INSERT. */
const TOKEN_ROWS_PER_STATEMENT_MAX = 500;
/** Expired codes and tokens are deleted at most this often (by the write that finds it due). */
const PURGE_INTERVAL_MS = 60_000;

/** One JSON text of token rows ($1) into oauth_tokens (a group of rows costs one statement). */
const INSERT_TOKENS_SQL = `INSERT INTO oauth_tokens (token_hash, kind, token_id, client_id, account_id, grant_id, family_id, scopes, issued_at_us, expires_at_us)
  SELECT token_hash, kind, token_id, client_id, account_id, grant_id, family_id, scopes, issued_at_us, expires_at_us
  FROM json_to_recordset($1::json) AS t(token_hash text, kind text, token_id text, client_id text, account_id text, grant_id text,
    family_id text, scopes text[], issued_at_us bigint, expires_at_us bigint)`;

const num = (value: unknown): number => Number(value);
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));

function codeOf(row: Record<string, unknown>): StoredCode {
  return {
    code_hash: row.code_hash as string,
    client_id: row.client_id as string,
    account_id: row.account_id as string,
    grant_id: row.grant_id as string,
    redirect_uri: row.redirect_uri as string,
    scopes: row.scopes as string[],
    code_challenge: row.code_challenge as string,
    issued_at_us: num(row.issued_at_us),
    expires_at_us: num(row.expires_at_us),
    consumed_at_us: numOrNull(row.consumed_at_us),
  };
}

function tokenOf(row: Record<string, unknown>): StoredToken {
  return {
    token_hash: row.token_hash as string,
    kind: row.kind as TokenKind,
    token_id: row.token_id as string,
    client_id: row.client_id as string,
    account_id: (row.account_id as string | null) ?? null,
    grant_id: (row.grant_id as string | null) ?? null,
    family_id: (row.family_id as string | null) ?? null,
    scopes: row.scopes as string[],
    issued_at_us: num(row.issued_at_us),
    expires_at_us: num(row.expires_at_us),
    revoked_at_us: numOrNull(row.revoked_at_us),
    rotated: row.rotated === true,
  };
}

export class PostgresOAuthStore implements OAuthStore {
  private readonly accessCache = new Map<string, StoredToken>();
  /** Counts revocations: a lookup that a revocation overtook does not cache what it read. */
  private revocations = 0;
  private lastPurgeMs = 0;
  private readonly pendingRows: Omit<StoredToken, 'revoked_at_us' | 'rotated'>[] = [];
  private readonly pendingWaiters: { resolve: () => void; reject: (error: unknown) => void }[] = [];
  private readonly pendingSizes: number[] = [];
  private writing = false;
  private readonly revokedListeners = new Set<(tokenIds: readonly string[]) => void>();
  /** This store as the sender of revocation notices (it ignores its own). */
  private readonly nodeId = randomUUID();

  constructor(
    private readonly pool: pg.Pool,
    private readonly nowUs: () => number,
  ) {}

  async saveCode(code: Omit<StoredCode, 'consumed_at_us'>): Promise<void> {
    await this.pool.query(
      `INSERT INTO oauth_codes (code_hash, client_id, account_id, grant_id, redirect_uri, scopes, code_challenge, issued_at_us, expires_at_us)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
      [
        code.code_hash,
        code.client_id,
        code.account_id,
        code.grant_id,
        code.redirect_uri,
        code.scopes,
        code.code_challenge,
        code.issued_at_us,
        code.expires_at_us,
      ],
    );
    this.purgeWhenDue();
  }

  async findCode(codeHash: string): Promise<StoredCode | undefined> {
    const { rows } = await this.pool.query('SELECT * FROM oauth_codes WHERE code_hash = $1', [codeHash]);
    return rows[0] ? codeOf(rows[0]) : undefined;
  }

  /**
   * Writes tokens issued together (an access token and its refresh token). Concurrent callers are
   * grouped: every call waiting when the previous statement returns goes into the next one (one
   * multi-row INSERT, one commit), so a burst of token requests costs a few commits, not one
   * each. Each caller is answered only after the statement holding its rows committed.
   */
  saveTokens(tokens: readonly Omit<StoredToken, 'revoked_at_us' | 'rotated'>[]): Promise<void> {
    if (this.pendingRows.length + tokens.length > TOKEN_WRITES_PENDING_MAX) {
      return Promise.reject(
        new Error(`more than ${TOKEN_WRITES_PENDING_MAX} token rows are waiting to be written; retry shortly`),
      );
    }
    return new Promise<void>((resolve, reject) => {
      this.pendingRows.push(...tokens);
      this.pendingWaiters.push({ resolve, reject });
      this.pendingSizes.push(tokens.length);
      if (!this.writing) void this.flushTokens();
    });
  }

  private async flushTokens(): Promise<void> {
    this.writing = true;
    try {
      while (this.pendingRows.length > 0) {
        const waiters = this.takeWaiters(TOKEN_ROWS_PER_STATEMENT_MAX);
        const rows = this.pendingRows.splice(0, waiters.rows);
        try {
          await this.insertTokens(rows);
          // not cached here: a token enters the cache when it is first presented (many are issued
          // and never used, and holding each one made the collector's work grow with the cache)
          for (const waiter of waiters.taken) waiter.resolve();
        } catch (error) {
          for (const waiter of waiters.taken) waiter.reject(error);
        }
      }
    } finally {
      this.writing = false;
    }
    this.purgeWhenDue();
  }

  /** Whole waiters from the front, up to about `maxRows` rows (at least one waiter), and their row count. */
  private takeWaiters(maxRows: number): {
    taken: { resolve: () => void; reject: (error: unknown) => void }[];
    rows: number;
  } {
    if (this.pendingRows.length <= maxRows) {
      // the usual case: everyone waiting fits in one statement (taken whole, no shifting)
      const taken = this.pendingWaiters.splice(0);
      this.pendingSizes.length = 0;
      return { taken, rows: this.pendingRows.length };
    }
    const taken: { resolve: () => void; reject: (error: unknown) => void }[] = [];
    let rows = 0;
    while (
      this.pendingWaiters.length > 0 &&
      (taken.length === 0 || rows + (this.pendingSizes[0] as number) <= maxRows)
    ) {
      taken.push(this.pendingWaiters.shift()!);
      rows += this.pendingSizes.shift()!;
    }
    return { taken, rows };
  }

  private async insertTokens(tokens: readonly Omit<StoredToken, 'revoked_at_us' | 'rotated'>[]): Promise<void> {
    // one JSON text for the whole group (serialised natively), not ten arrays escaped value by value
    await this.pool.query({ name: 'oauth_tokens_insert', text: INSERT_TOKENS_SQL, values: [JSON.stringify(tokens)] });
  }

  /** A live access token by digest (cached), or undefined (unknown, expired or revoked). */
  async liveAccessToken(tokenHash: string): Promise<StoredToken | undefined> {
    const now = this.nowUs();
    const cached = this.accessCache.get(tokenHash);
    if (cached) {
      if (cached.expires_at_us > now) return cached;
      this.accessCache.delete(tokenHash);
      return undefined;
    }
    const revocationsBefore = this.revocations;
    const { rows } = await this.pool.query({
      name: 'oauth_access_token_live',
      text: `SELECT t.*, g.grant_id IS NOT NULL AS grant_revoked FROM oauth_tokens t
             LEFT JOIN oauth_revoked_grants g ON g.grant_id = t.grant_id WHERE t.token_hash = $1`,
      values: [tokenHash],
    });
    const row = rows[0];
    if (!row || row.grant_revoked === true) return undefined;
    const token = tokenOf(row);
    if (token.kind !== 'access' || token.revoked_at_us !== null || token.expires_at_us <= now) return undefined;
    if (revocationsBefore === this.revocations) this.remember(token);
    return token;
  }

  async findToken(tokenHash: string): Promise<StoredToken | undefined> {
    const { rows } = await this.pool.query('SELECT * FROM oauth_tokens WHERE token_hash = $1', [tokenHash]);
    return rows[0] ? tokenOf(rows[0]) : undefined;
  }

  /**
   * Marks the code used and writes `tokens`, in one statement: false (nothing written or used) when
   * the code was used already or its grant is revoked. A failure to write consumes nothing.
   */
  async exchangeCode(
    codeHash: string,
    tokens: readonly Omit<StoredToken, 'revoked_at_us' | 'rotated'>[],
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `WITH used AS (
         UPDATE oauth_codes c SET consumed_at_us = $2
         WHERE c.code_hash = $1 AND c.consumed_at_us IS NULL
           AND NOT EXISTS (SELECT 1 FROM oauth_revoked_grants g WHERE g.grant_id = c.grant_id)
         RETURNING c.code_hash)
       ${INSERT_TOKENS_SQL.replace('$1', '$3')} WHERE EXISTS (SELECT 1 FROM used)`,
      [codeHash, this.nowUs(), JSON.stringify(tokens)],
    );
    return (rowCount ?? 0) > 0;
  }

  /**
   * Rotation: marks a live refresh token used and writes its successors, in one statement; false
   * (nothing written or used) when it was not live (reuse, a lost race, or its grant revoked).
   */
  async rotateRefreshToken(
    tokenHash: string,
    tokens: readonly Omit<StoredToken, 'revoked_at_us' | 'rotated'>[],
  ): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `WITH used AS (
         UPDATE oauth_tokens r SET revoked_at_us = $2, rotated = true
         WHERE r.token_hash = $1 AND r.kind = 'refresh' AND r.revoked_at_us IS NULL
           AND NOT EXISTS (SELECT 1 FROM oauth_revoked_grants g WHERE g.grant_id = r.grant_id)
         RETURNING r.token_hash)
       ${INSERT_TOKENS_SQL.replace('$1', '$3')} WHERE EXISTS (SELECT 1 FROM used)`,
      [tokenHash, this.nowUs(), JSON.stringify(tokens)],
    );
    return (rowCount ?? 0) > 0;
  }

  async revokeToken(tokenHash: string): Promise<void> {
    await this.revokeWhere('token_hash = $1', [tokenHash]);
  }

  /** Every token of one code exchange (its refresh tokens and the access tokens issued with them). */
  async revokeFamily(familyId: string): Promise<void> {
    await this.revokeWhere('family_id = $1', [familyId]);
  }

  /** The grant is revoked: recorded first (nothing more is issued under it), then every token of it is revoked. */
  async revokeGrantTokens(grantId: string): Promise<void> {
    await this.pool.query(
      'INSERT INTO oauth_revoked_grants (grant_id, revoked_at_us) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [grantId, this.nowUs()],
    );
    await this.revokeWhere('grant_id = $1', [grantId]);
  }

  /** Every access token of a grant (a revoked refresh token ends them). */
  async revokeGrantAccessTokens(grantId: string): Promise<void> {
    await this.revokeWhere(`grant_id = $1 AND kind = 'access'`, [grantId]);
  }

  /** Told the ids of the tokens each revocation ended, once it committed (the WebSocket feed ends their sockets). */
  onRevoked(listener: (tokenIds: readonly string[]) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  private async revokeWhere(condition: string, params: unknown[]): Promise<void> {
    this.revocations += 1;
    const at = this.nowUs();
    const rows = await inTransaction(this.pool, async (tx) => {
      const { rows: ended } = await tx.query<{ token_hash: string; token_id: string }>(
        `UPDATE oauth_tokens SET revoked_at_us = COALESCE(revoked_at_us, $${params.length + 1}) WHERE ${condition} RETURNING token_hash, token_id`,
        [...params, at],
      );
      // the other nodes hear of it if and only if it commits
      for (let i = 0; i < ended.length; i += REVOKED_TOKENS_PER_NOTICE_MAX) {
        const tokens = ended.slice(i, i + REVOKED_TOKENS_PER_NOTICE_MAX).map((row) => [row.token_hash, row.token_id]);
        await tx.query('SELECT pg_notify($1, $2)', [REVOCATION_CHANNEL, JSON.stringify({ from: this.nodeId, tokens })]);
      }
      return ended;
    });
    this.revoked(rows.map((row) => [row.token_hash, row.token_id]));
  }

  /**
   * Listens for the revocations other nodes make (their stores NOTIFY them): each is dropped
   * from this cache and told to this store's listeners. Returns the stop.
   */
  followRevocations(connectionString: string, onError?: (error: unknown) => void): Listening {
    return listen({
      connectionString,
      channel: REVOCATION_CHANNEL,
      onNotify: (payload) => {
        const notice = JSON.parse(payload) as { from: string; tokens: Array<[string, string]> };
        if (notice.from === this.nodeId) return;
        this.revocations += 1;
        this.revoked(notice.tokens);
      },
      // a revocation made while this node was not listening was not heard: forget every cached token
      onConnect: () => {
        this.revocations += 1;
        this.accessCache.clear();
      },
      ...(onError ? { onError } : {}),
    });
  }

  /** Revoked tokens as [token_hash, token_id]: out of the cache, then told to the listeners. */
  private revoked(tokens: ReadonlyArray<readonly [string, string]>): void {
    for (const [hash] of tokens) this.accessCache.delete(hash);
    if (tokens.length === 0) return;
    const ids = tokens.map(([, id]) => id);
    for (const listener of this.revokedListeners) {
      try {
        listener(ids);
      } catch {
        // a listener's failure is its own: the revocation has committed
      }
    }
  }

  private remember(token: StoredToken): void {
    if (this.accessCache.size >= ACCESS_TOKENS_CACHED_MAX) {
      const oldest = this.accessCache.keys().next();
      if (!oldest.done) this.accessCache.delete(oldest.value);
    }
    this.accessCache.set(token.token_hash, token);
  }

  /** Deletes codes and tokens expired for a day; never on the answer's path (errors are logged by the pool). */
  private purgeWhenDue(): void {
    if (Date.now() - this.lastPurgeMs < PURGE_INTERVAL_MS) return;
    this.lastPurgeMs = Date.now();
    const before = this.nowUs() - 24 * 3600 * 1_000_000;
    void this.pool.query('DELETE FROM oauth_codes WHERE expires_at_us < $1', [before]).catch(() => undefined);
    void this.pool.query('DELETE FROM oauth_tokens WHERE expires_at_us < $1', [before]).catch(() => undefined);
  }
}
