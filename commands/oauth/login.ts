// Member login for the authorization flow: email and password (scrypt hashes, set by the operator
// or at sign-up), then a TOTP code when the account has two-factor on. Failed attempts are slowed
// and limited per account and per address (LoginLimiter): after LOGIN_FAILURES_MAX failures in
// LOGIN_WINDOW_MS, further attempts are refused until the window passes, and every failure
// answers only after a delay that grows with the failures, so guessing is slow either way.

import type { EventStore } from '../../eventstore/port.ts';
import { verifyPassword } from '../accounts/password.ts';
import type { AccountStatusReader } from '../auth/credentials.ts';
import { totpEnabled } from './totp.ts';
import { BoundedWindows } from './windows.ts';

const LOGIN_FAILURES_MAX = 5;
const LOGIN_WINDOW_MS = 15 * 60_000;
/** Accounts and addresses whose failures are counted; the oldest is forgotten past the bound. */
const LOGIN_KEYS_TRACKED_MAX = 50_000;
const FAILURE_DELAY_STEP_MS = 200;
const FAILURE_DELAY_MAX_MS = 2_000;
const EMAIL_LENGTH_MAX = 320;
const PASSWORD_LENGTH_MAX = 1024;

/** Looks accounts up by email (the core read model). */
export interface MemberDirectory {
  accountsByEmail(email: string): Promise<string[]>;
}

export class LoginLimiter {
  private readonly failures = new BoundedWindows(LOGIN_WINDOW_MS, LOGIN_KEYS_TRACKED_MAX);

  /** Milliseconds until `key` may try again (0: now). */
  blockedFor(key: string, nowMs: number): number {
    const window = this.failures.open(key, nowMs);
    return window && window.count >= LOGIN_FAILURES_MAX ? this.failures.remainingMs(window, nowMs) : 0;
  }

  /** Counts a failure; returns how long to hold the answer. */
  fail(key: string, nowMs: number): number {
    const window = this.failures.current(key, nowMs);
    window.count += 1;
    return Math.min(FAILURE_DELAY_MAX_MS, FAILURE_DELAY_STEP_MS * window.count);
  }

  succeed(key: string): void {
    this.failures.forget(key);
  }
}

type LoginResult =
  | { ok: true; account_id: string; needs_totp: boolean }
  | { ok: false; reason: 'invalid' | 'limited' | 'inactive'; delay_ms: number; retry_after_ms?: number; status?: string };

interface LoginDeps {
  store: EventStore;
  members: MemberDirectory;
  accounts: AccountStatusReader;
  limiter: LoginLimiter;
}

const addressKey = (address: string) => `ip:${address}`;
const emailKey = (email: string) => `email:${email.toLowerCase()}`;

export async function logIn(deps: LoginDeps, email: string, password: string, address: string, nowMs: number): Promise<LoginResult> {
  const keys = [addressKey(address), emailKey(email)];
  const blocked = Math.max(...keys.map((key) => deps.limiter.blockedFor(key, nowMs)));
  if (blocked > 0) return { ok: false, reason: 'limited', delay_ms: 0, retry_after_ms: blocked };
  const failed = (): LoginResult => ({ ok: false, reason: 'invalid', delay_ms: Math.max(...keys.map((key) => deps.limiter.fail(key, nowMs))) });
  if (email.length === 0 || email.length > EMAIL_LENGTH_MAX || password.length === 0 || password.length > PASSWORD_LENGTH_MAX) return failed();
  const candidates = await deps.members.accountsByEmail(email);
  for (const accountId of candidates) {
    if (!(await verifyPassword(deps.store, accountId, password))) continue;
    for (const key of keys) deps.limiter.succeed(key);
    const account = await deps.accounts.statusOf(accountId);
    if (!account || account.status !== 'active') return { ok: false, reason: 'inactive', delay_ms: 0, status: account?.status ?? 'unknown' };
    return { ok: true, account_id: accountId, needs_totp: await totpEnabled(deps.store, accountId) };
  }
  return failed();
}
