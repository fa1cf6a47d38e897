// The in-process credential index the auth middleware reads on every request. Issue and revoke
// update it synchronously (a revoked key fails on the very next request); at start it is loaded
// from the credentials read model (through the port `ctx.credentialRows`), and a miss falls back
// to it (keys issued while the projections were still catching up).

import type { KeyObject } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { publicKeyObject } from './ed25519.ts';
import type { ApiKeyIssued, ApiKeyScope, SessionIssued } from '../../domain/credentials/events.ts';
import type { ApiKeyRow, SessionRow } from './rows.ts';

export interface ApiKeyEntry {
  key_id: string;
  account_id: string;
  scope: ApiKeyScope;
  public_key: string;
  /** Built once per key: creating a KeyObject costs more than a verify. */
  keyObject: KeyObject;
  revoked_at_us: number | null;
}

export interface SessionEntry {
  session_id: string;
  account_id: string;
  token_hash: string;
  expires_at_us: number;
  revoked_at_us: number | null;
}

const LOAD_WAIT_MS = 15_000;
/**
 * A credential the read model does not hold is looked up again once the read models have passed
 * the journal's head, waiting at most this long: one issued a moment ago through another node is
 * then found, not remembered as unknown.
 */
const MISS_CATCH_UP_WAIT_MS = 2_000;
/**
 * Unknown key ids and session tokens are remembered briefly, so guessing costs a map lookup, not
 * a query queued on the database pool behind order writes. Issuing a key or a session forgets
 * its entry at once, on this node and (through the credentials projector's announcement) on
 * every other; the short life covers what an announcement could miss.
 */
const UNKNOWN_CREDENTIALS_CACHED_MAX = 50_000;
const UNKNOWN_CREDENTIAL_TTL_MS = 10_000;
/**
 * Sessions kept in memory before expired ones are dropped (live ones stay: forgetting a revoked
 * but unexpired session could let the table, if its projection lags, answer for it).
 */
const SESSIONS_CACHED_MAX = 100_000;

/** A bounded set of recent misses, each valid for UNKNOWN_CREDENTIAL_TTL_MS. */
export class MissCache {
  private readonly expiries = new Map<string, number>();

  has(id: string): boolean {
    const expiresAtMs = this.expiries.get(id);
    if (expiresAtMs === undefined) return false;
    if (expiresAtMs > Date.now()) return true;
    this.expiries.delete(id);
    return false;
  }

  add(id: string): void {
    if (this.expiries.size >= UNKNOWN_CREDENTIALS_CACHED_MAX) this.expiries.clear();
    this.expiries.set(id, Date.now() + UNKNOWN_CREDENTIAL_TTL_MS);
  }

  forget(id: string): void {
    this.expiries.delete(id);
  }
}

export class CredentialIndex {
  private readonly keys = new Map<string, ApiKeyEntry>();
  private readonly sessionsByHash = new Map<string, SessionEntry>();
  private readonly sessionsById = new Map<string, SessionEntry>();
  private loading: Promise<void> | null = null;
  private readonly unknownKeys = new MissCache();
  private readonly unknownSessions = new MissCache();

  constructor(private readonly ctx: AppContext) {}

  /** Loads the read model once; later calls return the same promise. */
  ready(): Promise<void> {
    this.loading ??= this.load().catch((err) => {
      this.ctx.logger.warn({ err }, 'credential index: initial load failed; continuing with lookups on miss');
    });
    return this.loading;
  }

  addKey(issued: ApiKeyIssued, revokedAtUs: number | null = null): ApiKeyEntry {
    this.unknownKeys.forget(issued.key_id);
    const existing = this.keys.get(issued.key_id);
    if (existing) {
      if (revokedAtUs !== null && existing.revoked_at_us === null) existing.revoked_at_us = revokedAtUs;
      return existing;
    }
    const entry: ApiKeyEntry = {
      key_id: issued.key_id,
      account_id: issued.account_id,
      scope: issued.scope,
      public_key: issued.public_key,
      keyObject: publicKeyObject(new Uint8Array(Buffer.from(issued.public_key, 'base64'))),
      revoked_at_us: revokedAtUs,
    };
    this.keys.set(entry.key_id, entry);
    return entry;
  }

  revokeKey(keyId: string, revokedAtUs: number): void {
    const entry = this.keys.get(keyId);
    if (entry && entry.revoked_at_us === null) entry.revoked_at_us = revokedAtUs;
  }

  addSession(issued: SessionIssued, revokedAtUs: number | null = null): SessionEntry {
    this.unknownSessions.forget(issued.token_hash);
    const existing = this.sessionsById.get(issued.session_id);
    if (existing) return existing;
    const entry: SessionEntry = { ...issued, revoked_at_us: revokedAtUs };
    if (this.sessionsById.size >= SESSIONS_CACHED_MAX) this.dropExpiredSessions();
    this.sessionsByHash.set(entry.token_hash, entry);
    this.sessionsById.set(entry.session_id, entry);
    return entry;
  }

  private dropExpiredSessions(): void {
    const nowUs = this.ctx.clock.nowUs();
    for (const [id, entry] of this.sessionsById) {
      if (entry.expires_at_us > nowUs) continue;
      this.sessionsById.delete(id);
      this.sessionsByHash.delete(entry.token_hash);
    }
  }

  revokeSession(sessionId: string, revokedAtUs: number): void {
    const entry = this.sessionsById.get(sessionId);
    if (entry && entry.revoked_at_us === null) entry.revoked_at_us = revokedAtUs;
  }

  // how a row is read and held (made once, not on every lookup)
  private readonly readKey = (keyId: string) => this.ctx.credentialRows.key(keyId);
  private readonly keyOfRow = (row: ApiKeyRow) => this.addKey(row, row.revoked_at_us);
  private readonly readSession = (tokenHash: string) => this.ctx.credentialRows.sessionByHash(tokenHash);
  private readonly sessionOfRow = (row: SessionRow) => this.addSession(sessionIssued(row), row.revoked_at_us);

  /**
   * A credential from memory; else, once the index is loaded, from the table (asked again after the
   * read models pass the journal's head); a miss is remembered briefly.
   */
  private async lookup<E, R>(
    id: string,
    cached: Map<string, E>,
    unknown: MissCache,
    read: (id: string) => Promise<R | undefined>,
    add: (row: R) => E,
  ): Promise<E | undefined> {
    const held = cached.get(id);
    if (held) return held;
    await this.ready();
    const again = cached.get(id);
    if (again) return again;
    if (unknown.has(id)) return undefined;
    const row = (await read(id)) ?? ((await this.caughtUp()) ? await read(id) : undefined);
    if (!row) {
      unknown.add(id);
      return undefined;
    }
    return add(row);
  }

  /** Cached key (revoked ones included: callers check). Falls back to the table on a miss. */
  key(keyId: string): Promise<ApiKeyEntry | undefined> {
    return this.lookup(keyId, this.keys, this.unknownKeys, this.readKey, this.keyOfRow);
  }

  keyCached(keyId: string): ApiKeyEntry | undefined {
    return this.keys.get(keyId);
  }

  sessionByHash(tokenHash: string): Promise<SessionEntry | undefined> {
    return this.lookup(tokenHash, this.sessionsByHash, this.unknownSessions, this.readSession, this.sessionOfRow);
  }

  /**
   * Waits (bounded) until the read models have passed the journal's head; false when they were
   * there already (asking again would find the same) or did not get there in time.
   */
  private async caughtUp(): Promise<boolean> {
    const head = await this.ctx.store.headPosition();
    const positions = Object.values(this.ctx.projections.positions?.() ?? {});
    if (positions.length > 0 && positions.every((position) => position >= head)) return false;
    try {
      await this.ctx.projections.waitFor(head, MISS_CATCH_UP_WAIT_MS);
      return true;
    } catch {
      return false;
    }
  }

  /** Another node issued this key (announced by the credentials projector): a miss remembered here is wrong now. */
  keyIssuedElsewhere(keyId: string): void {
    this.unknownKeys.forget(keyId);
  }

  /** Another node issued a session with this token digest: likewise. */
  sessionIssuedElsewhere(tokenHash: string): void {
    this.unknownSessions.forget(tokenHash);
  }

  private async load(): Promise<void> {
    try {
      await this.ctx.projections.waitFor(await this.ctx.store.headPosition(), LOAD_WAIT_MS);
    } catch (err) {
      this.ctx.logger.warn({ err }, 'credential index: projections not caught up; loading what is there');
    }
    for (const row of await this.ctx.credentialRows.keys()) this.addKey(row, row.revoked_at_us);
    for (const row of await this.ctx.credentialRows.liveSessions(this.ctx.clock.nowUs()))
      this.addSession(sessionIssued(row));
  }
}

/** The session as issued (the index keeps its own revocation time beside it). */
const sessionIssued = (row: SessionRow): SessionIssued => ({
  session_id: row.session_id,
  account_id: row.account_id,
  token_hash: row.token_hash,
  issued_at_us: row.issued_at_us,
  expires_at_us: row.expires_at_us,
});

const indexes = new WeakMap<AppContext, CredentialIndex>();

/** The one index of this service instance (one per context). */
export function credentialIndexOf(ctx: AppContext): CredentialIndex {
  let index = indexes.get(ctx);
  if (!index) {
    index = new CredentialIndex(ctx);
    indexes.set(ctx, index);
  }
  return index;
}
