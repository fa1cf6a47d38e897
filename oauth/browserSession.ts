// Browser sessions of the authorization flow: who is signed in, a login waiting for its two-factor
// code, the authorization request to return to, consent screens awaiting a decision, and the CSRF
// token every form carries. Held in memory (bounded by BROWSER_SESSIONS_MAX, idle ones expire
// after BROWSER_SESSION_IDLE_MS): a restart signs browsers out, never apps (their tokens are in
// PostgreSQL). The cookie is HttpOnly, SameSite=Lax, and Secure when the page was reached by https.

import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { AuthorizationRequest } from '../commands/oauth/authorize.ts';

const BROWSER_SESSIONS_MAX = 20_000;
const BROWSER_SESSION_IDLE_MS = 60 * 60_000;
/** Consent screens one browser may have open at once; the oldest is dropped past the bound. */
const PENDING_CONSENTS_MAX = 10;
const SESSION_COOKIE = 'svc_browser';

export interface BrowserSession {
  id: string;
  csrf: string;
  account_id: string | null;
  /** Password accepted, two-factor code still due. */
  totp_account_id: string | null;
  /** The authorize query string to go back to after login. */
  resume: string | null;
  /** One-time notice and email for the login page (after sign-up). */
  flash: { note: string; email: string } | null;
  pending: Map<string, AuthorizationRequest>;
  lastSeenMs: number;
}

const newId = () => randomBytes(32).toString('base64url');

function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export class BrowserSessions {
  private readonly sessions = new Map<string, BrowserSession>();

  /** The session the cookie names, if live. */
  find(cookieHeader: string | undefined, nowMs: number): BrowserSession | undefined {
    const id = cookieValue(cookieHeader, SESSION_COOKIE);
    if (!id) return undefined;
    const session = this.sessions.get(id);
    if (!session) return undefined;
    if (nowMs - session.lastSeenMs > BROWSER_SESSION_IDLE_MS) {
      this.sessions.delete(id);
      return undefined;
    }
    session.lastSeenMs = nowMs;
    // most recently used last: the bound drops the idlest first
    this.sessions.delete(id);
    this.sessions.set(id, session);
    return session;
  }

  create(nowMs: number): BrowserSession {
    if (this.sessions.size >= BROWSER_SESSIONS_MAX) {
      const oldest = this.sessions.keys().next();
      if (!oldest.done) this.sessions.delete(oldest.value);
    }
    const session: BrowserSession = {
      id: newId(), csrf: newId(), account_id: null, totp_account_id: null, resume: null, flash: null, pending: new Map(), lastSeenMs: nowMs,
    };
    this.sessions.set(session.id, session);
    return session;
  }

  /** A new id for the session (on sign-in, against session fixation); the old cookie stops working. */
  renew(session: BrowserSession): void {
    this.sessions.delete(session.id);
    session.id = newId();
    session.csrf = newId();
    this.sessions.set(session.id, session);
  }

  addPending(session: BrowserSession, request: AuthorizationRequest): string {
    if (session.pending.size >= PENDING_CONSENTS_MAX) {
      const oldest = session.pending.keys().next();
      if (!oldest.done) session.pending.delete(oldest.value);
    }
    const id = newId();
    session.pending.set(id, request);
    return id;
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
