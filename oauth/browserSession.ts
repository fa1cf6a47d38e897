// Browser sessions of the authorization flow: who is signed in, a login waiting for its two-factor
// code, the authorization request to return to, consent screens awaiting a decision, and the CSRF
// token every form carries. Idle ones expire after BROWSER_SESSION_IDLE_MS (on the service clock):
// a restart signs browsers out, never apps (their tokens are in PostgreSQL). The cookie is
// HttpOnly, SameSite=Lax, and Secure when the page was reached by https.
//
// Two tables, so that cookieless visitors cannot push members out: anonymous sessions (bounded by
// ANONYMOUS_SESSIONS_MAX, the idlest dropped first) and signed-in ones (SIGNED_IN_SESSIONS_MAX;
// a sign-in past it drops the idlest signed-in session, and each account keeps at most
// SIGNED_IN_SESSIONS_PER_ACCOUNT_MAX, its oldest sign-in signed out first). Only a sign-in, which
// needs a password, moves a session into the second table.
//
// `BrowserSessionStore` is the port: the service keeps them in PostgreSQL
// (cli/stores/browserSessions.pg.ts, same bounds and rules), so a browser whose requests reach
// different nodes keeps its session; `BrowserSessions` here holds them in memory. A page handler
// finds (or creates) the session, changes it, and `save`s it before its answer is sent.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthorizationRequest } from '../commands/oauth/authorize.ts';

export const ANONYMOUS_SESSIONS_MAX = 20_000;
export const SIGNED_IN_SESSIONS_MAX = 20_000;
export const SIGNED_IN_SESSIONS_PER_ACCOUNT_MAX = 10;
export const BROWSER_SESSION_IDLE_MS = 60 * 60_000;
/** Consent screens one browser may have open at once; the oldest is dropped past the bound. */
const PENDING_CONSENTS_MAX = 10;
const SESSION_COOKIE = 'svc_browser';

export interface SessionBounds {
  anonymousMax?: number;
  signedInMax?: number;
  perAccountMax?: number;
}

/** Where browser sessions are kept (in memory here; PostgreSQL in the service). */
export interface BrowserSessionStore {
  /** The live session the cookie names (its idle time starts again), or undefined. */
  find(cookieHeader: string | undefined, nowMs: number): Promise<BrowserSession | undefined>;
  /** A new anonymous session. */
  create(nowMs: number): Promise<BrowserSession>;
  /** Signs the session in as `accountId` under a new id (the old cookie stops working). */
  signIn(session: BrowserSession, accountId: string): Promise<void>;
  /** Signs the session out (prompt=login): it becomes anonymous. */
  signOut(session: BrowserSession): Promise<void>;
  /** Keeps what a request changed in the session (its fields, its pending consents). */
  save(session: BrowserSession): Promise<void>;
  /** Counts for tests and metrics. */
  sizes(): Promise<{ anonymous: number; signed_in: number }>;
}

export interface BrowserSession {
  id: string;
  csrf: string;
  account_id: string | null;
  /** Password accepted, two-factor code still due. */
  totp_account_id: string | null;
  /** The authorize query string to go back to after login. */
  resume: string | null;
  /** The authorize query string the last login was made for (prompt=login is then satisfied once). */
  loggedInFor: string | null;
  /** One-time notice and email for the login page (after sign-up). */
  flash: { note: string; email: string } | null;
  pending: Map<string, AuthorizationRequest>;
  lastSeenMs: number;
}

export const newSessionId = () => randomBytes(32).toString('base64url');
const newId = newSessionId;

/** A new anonymous session, seen at `nowMs` (a store keeps it). */
export function anonymousSession(nowMs: number): BrowserSession {
  return {
    id: newId(),
    csrf: newId(),
    account_id: null,
    totp_account_id: null,
    resume: null,
    loggedInFor: null,
    flash: null,
    pending: new Map(),
    lastSeenMs: nowMs,
  };
}

/** The session id the cookie header names, if any. */
export function sessionIdOf(cookieHeader: string | undefined): string | undefined {
  return cookieValue(cookieHeader, SESSION_COOKIE);
}

/** Remembers a consent screen's request in the session (bounded: the oldest is dropped); its id. */
export function addPending(session: BrowserSession, request: AuthorizationRequest): string {
  if (session.pending.size >= PENDING_CONSENTS_MAX) {
    const oldest = session.pending.keys().next();
    if (!oldest.done) session.pending.delete(oldest.value);
  }
  const id = newId();
  session.pending.set(id, request);
  return id;
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** One table, most recently used last: the bound drops the idlest first. */
class SessionTable {
  readonly sessions = new Map<string, BrowserSession>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.sessions.size;
  }

  touch(session: BrowserSession): void {
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }

  /** Adds `session`, dropping the idlest past the bound; answers the one dropped, if any. */
  add(session: BrowserSession): BrowserSession | undefined {
    let dropped: BrowserSession | undefined;
    if (this.sessions.size >= this.max) {
      const oldest = this.sessions.values().next();
      if (!oldest.done) {
        dropped = oldest.value;
        this.sessions.delete(dropped.id);
      }
    }
    this.sessions.set(session.id, session);
    return dropped;
  }
}

export class BrowserSessions implements BrowserSessionStore {
  private readonly anonymous: SessionTable;
  private readonly signedIn: SessionTable;
  /** Signed-in session ids per account, oldest sign-in first. */
  private readonly byAccount = new Map<string, Set<string>>();

  private readonly perAccountMax: number;

  constructor(bounds: SessionBounds = {}) {
    this.anonymous = new SessionTable(bounds.anonymousMax ?? ANONYMOUS_SESSIONS_MAX);
    this.signedIn = new SessionTable(bounds.signedInMax ?? SIGNED_IN_SESSIONS_MAX);
    this.perAccountMax = bounds.perAccountMax ?? SIGNED_IN_SESSIONS_PER_ACCOUNT_MAX;
  }

  /** The session the cookie names, if live. */
  async find(cookieHeader: string | undefined, nowMs: number): Promise<BrowserSession | undefined> {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (!id) return undefined;
    const table = this.signedIn.sessions.has(id) ? this.signedIn : this.anonymous;
    const session = table.sessions.get(id);
    if (!session) return undefined;
    if (nowMs - session.lastSeenMs > BROWSER_SESSION_IDLE_MS) {
      this.drop(session);
      return undefined;
    }
    session.lastSeenMs = nowMs;
    table.touch(session);
    return session;
  }

  /** A new anonymous session. */
  async create(nowMs: number): Promise<BrowserSession> {
    const session = anonymousSession(nowMs);
    this.anonymous.add(session);
    return session;
  }

  /**
   * Signs the session in as `accountId` under a new id (against session fixation; the old cookie
   * stops working): it moves to the signed-in table.
   */
  async signIn(session: BrowserSession, accountId: string): Promise<void> {
    this.drop(session);
    session.id = newId();
    session.csrf = newId();
    session.account_id = accountId;
    session.totp_account_id = null;
    const ids = this.byAccount.get(accountId) ?? new Set<string>();
    this.byAccount.set(accountId, ids);
    while (ids.size >= this.perAccountMax) {
      const oldest = this.signedIn.sessions.get(ids.values().next().value as string);
      if (oldest) this.drop(oldest);
      else ids.delete(ids.values().next().value as string);
    }
    ids.add(session.id);
    const dropped = this.signedIn.add(session);
    if (dropped) this.unlink(dropped);
  }

  /** Signs the session out (prompt=login): it becomes anonymous. */
  async signOut(session: BrowserSession): Promise<void> {
    this.drop(session);
    session.account_id = null;
    this.anonymous.add(session);
  }

  /** Held here as the very objects the handlers change: nothing to write. */
  async save(): Promise<void> {}

  /** Counts for tests and metrics. */
  async sizes(): Promise<{ anonymous: number; signed_in: number }> {
    return { anonymous: this.anonymous.size, signed_in: this.signedIn.size };
  }

  private drop(session: BrowserSession): void {
    this.anonymous.sessions.delete(session.id);
    if (this.signedIn.sessions.delete(session.id)) this.unlink(session);
  }

  private unlink(session: BrowserSession): void {
    if (session.account_id === null) return;
    const ids = this.byAccount.get(session.account_id);
    if (!ids) return;
    ids.delete(session.id);
    if (ids.size === 0) this.byAccount.delete(session.account_id);
  }
}

export function csrfMatches(session: BrowserSession, presented: unknown): boolean {
  if (typeof presented !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(presented);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function sessionCookie(session: BrowserSession, secure: boolean): string {
  return `${SESSION_COOKIE}=${session.id}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
