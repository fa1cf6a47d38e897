// Member login for the authorization flow: email and password (scrypt hashes, set by the operator
// or at sign-up), then a TOTP code when the account has two-factor on. Attempts are counted before
// they are judged (reserve, then judge: concurrent guesses cannot all be judged) per account and
// address together, and per address:
//   LOGIN_ATTEMPTS_PER_ACCOUNT_ADDRESS_MAX  wrong passwords for one email from one address per window
//   LOGIN_ATTEMPTS_PER_ADDRESS_MAX          wrong passwords from one address (any email) per window
// past either, the address waits (429) until its window passes. An account as a whole is never
// locked (guesses from elsewhere must not lock its owner out): its wrong passwords from anywhere
// slow every failure's answer down instead (FAILURE_DELAY_STEP_MS per failure in the window, at
// most FAILURE_DELAY_MAX_MS). Two-factor codes: TOTP_ATTEMPTS_PER_LOGIN_MAX wrong codes per
// account per window, then the browser logs in again. Windows follow the service clock.

import type { EventStore } from '../../eventstore/port.ts';
import { verifyPassword } from '../accounts/password.ts';
import type { AccountStatusReader } from '../auth/credentials.ts';
import { accepted, refused, type CommandResult, type Refused } from '../result.ts';
import { acceptTotpCode, totpEnabled } from './totp.ts';
import { BoundedWindows, reserveAll, type Reservation } from './windows.ts';

const LOGIN_WINDOW_MS = 15 * 60_000;
const LOGIN_ATTEMPTS_PER_ACCOUNT_ADDRESS_MAX = 5;
const LOGIN_ATTEMPTS_PER_ADDRESS_MAX = 20;
const TOTP_ATTEMPTS_PER_LOGIN_MAX = 5;
/** Addresses counted at once; when all are in an open window, a new address waits (refused, never forgotten). */
const LOGIN_ADDRESSES_TRACKED_MAX = 50_000;
/** Account-and-address pairs and accounts counted at once; past it the pair or account seen longest ago is forgotten (the address count still bounds it). */
const LOGIN_KEYS_TRACKED_MAX = 100_000;
/** Accounts whose two-factor codes are counted at once (refused past it). */
const TOTP_ACCOUNTS_TRACKED_MAX = 50_000;
const FAILURE_DELAY_STEP_MS = 200;
const FAILURE_DELAY_MAX_MS = 2_000;
const EMAIL_LENGTH_MAX = 320;
const PASSWORD_LENGTH_MAX = 1024;

/** Looks accounts up by email (the core read model). */
export interface MemberDirectory {
  accountsByEmail(email: string): Promise<string[]>;
}

const failureDelayMs = (failures: number): number => Math.min(FAILURE_DELAY_MAX_MS, FAILURE_DELAY_STEP_MS * failures);

interface LoginKeys {
  address: string;
  pair: string;
  account: string;
}

const loginKeysOf = (email: string, address: string): LoginKeys => {
  const account = email.toLowerCase();
  return { address, pair: `${account}\u0000${address}`, account };
};

export class LoginLimiter {
  private readonly addresses = new BoundedWindows(LOGIN_WINDOW_MS, LOGIN_ADDRESSES_TRACKED_MAX, 'refuse');
  private readonly pairs = new BoundedWindows(LOGIN_WINDOW_MS, LOGIN_KEYS_TRACKED_MAX, 'forget');
  private readonly accounts = new BoundedWindows(LOGIN_WINDOW_MS, LOGIN_KEYS_TRACKED_MAX, 'forget');
  private readonly totp = new BoundedWindows(LOGIN_WINDOW_MS, TOTP_ACCOUNTS_TRACKED_MAX, 'refuse');

  /** Counts a password attempt before it is judged. */
  reservePassword(keys: LoginKeys, nowMs: number): Reservation {
    return reserveAll(
      [
        { windows: this.addresses, key: keys.address, limit: LOGIN_ATTEMPTS_PER_ADDRESS_MAX },
        { windows: this.pairs, key: keys.pair, limit: LOGIN_ATTEMPTS_PER_ACCOUNT_ADDRESS_MAX },
        { windows: this.accounts, key: keys.account, limit: Number.POSITIVE_INFINITY },
      ],
      nowMs,
    );
  }

  /** The attempt was right: its counts are given back (the pair starts afresh). */
  passwordGood(keys: LoginKeys, nowMs: number): void {
    this.addresses.release(keys.address, nowMs);
    this.accounts.release(keys.account, nowMs);
    this.pairs.forget(keys.pair);
  }

  /** How long a wrong password's answer is held: longer the more the account was guessed at, from anywhere. */
  passwordBadDelayMs(keys: LoginKeys, nowMs: number): number {
    return failureDelayMs(this.accounts.count(keys.account, nowMs));
  }

  /** Counts a two-factor code before it is judged. */
  reserveTotp(accountId: string, nowMs: number): Reservation {
    return reserveAll([{ windows: this.totp, key: accountId, limit: TOTP_ATTEMPTS_PER_LOGIN_MAX }], nowMs);
  }

  totpGood(accountId: string): void {
    this.totp.forget(accountId);
  }

  totpBadDelayMs(accountId: string, nowMs: number): number {
    return failureDelayMs(this.totp.count(accountId, nowMs));
  }
}

/** Why a login step was refused (the login pages' own refusals; a wrong password's answer is held `delayMs`, a limit's caller told `retryAfterMs`). */
export type LoginRefusal =
  { code: 'login_invalid' } | { code: 'login_limited' } | { code: 'account_inactive'; status: string };

export type TotpRefusal = { code: 'totp_invalid' } | { code: 'totp_limited' };

interface LoginDeps {
  store: EventStore;
  members: MemberDirectory;
  accounts: AccountStatusReader;
  limiter: LoginLimiter;
}

/** Email and password, at `nowMs` on the service clock. */
export async function logIn(
  deps: LoginDeps,
  email: string,
  password: string,
  address: string,
  nowMs: number,
): Promise<CommandResult<{ account_id: string; needs_totp: boolean }, LoginRefusal>> {
  const keys = loginKeysOf(email, address);
  const reservation = deps.limiter.reservePassword(keys, nowMs);
  if (!reservation.ok) return refused({ code: 'login_limited' }, { retryAfterMs: reservation.retry_after_ms });
  const failed = (): Refused<LoginRefusal> =>
    refused({ code: 'login_invalid' }, { delayMs: deps.limiter.passwordBadDelayMs(keys, nowMs) });
  if (
    email.length === 0 ||
    email.length > EMAIL_LENGTH_MAX ||
    password.length === 0 ||
    password.length > PASSWORD_LENGTH_MAX
  )
    return failed();
  const candidates = await deps.members.accountsByEmail(email);
  for (const accountId of candidates) {
    if (!(await verifyPassword(deps.store, accountId, password))) continue;
    deps.limiter.passwordGood(keys, nowMs);
    const account = await deps.accounts.statusOf(accountId);
    if (!account || account.status !== 'active')
      return refused({ code: 'account_inactive', status: account?.status ?? 'unknown' });
    return accepted({ account_id: accountId, needs_totp: await totpEnabled(deps.store, accountId) });
  }
  return failed();
}

/** The two-factor step of a login whose password was right, at `nowUs` on the service clock. */
export async function logInTotp(
  deps: Pick<LoginDeps, 'store' | 'limiter'>,
  accountId: string,
  code: string,
  nowUs: number,
): Promise<CommandResult<void, TotpRefusal>> {
  const nowMs = Math.floor(nowUs / 1000);
  const reservation = deps.limiter.reserveTotp(accountId, nowMs);
  if (!reservation.ok) return refused({ code: 'totp_limited' }, { retryAfterMs: reservation.retry_after_ms });
  if (!(await acceptTotpCode(deps.store, accountId, code, nowUs)))
    return refused({ code: 'totp_invalid' }, { delayMs: deps.limiter.totpBadDelayMs(accountId, nowMs) });
  deps.limiter.totpGood(accountId);
  return accepted(undefined);
}
