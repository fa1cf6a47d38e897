// Sign-up on /player/register as a command: the form's rules, a limit per address, and one email,
// one account under any concurrency. The email is claimed first in its own stream
// (`account-email-{digest}`, EmailClaimed appended at the revision read, `no_stream` for an email
// never used), so of concurrent sign-ups with one email exactly one append succeeds; the others
// answer "already exists". A claim whose account could not be opened is released again
// (EmailReleased; a failure that leaves it unknown whether the account exists keeps the claim).
// Accounts the operator opens are found through the read model.
//
// SIGN_UPS_PER_ADDRESS_PER_HOUR sign-ups that pass the form's rules are counted per address and
// hour (on the service clock) before anything is looked up; past it the address waits (429). The
// table of addresses holds SIGN_UP_ADDRESSES_TRACKED_MAX; when every one is in an open hour, a new
// address waits too (refused, never forgotten).

import { hash, randomUUID } from 'node:crypto';
import { WrongExpectedRevision, type EventStore, type ExpectedRevision } from '../../eventstore/port.ts';
import { BoundedWindows } from '../oauth/windows.ts';
import { accepted, refused, type CommandResult } from '../result.ts';
import { PASSWORD_LENGTH_MAX } from './password.ts';

const HOUR_MS = 3_600_000;
const SIGN_UPS_PER_ADDRESS_PER_HOUR = 5;
const SIGN_UP_ADDRESSES_TRACKED_MAX = 10_000;
const NAME_LENGTH_MAX = 200;
const PASSWORD_LENGTH_MIN = 8;
const EMAIL_FORMAT = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

export interface NewMember {
  first_name: string;
  last_name: string;
  email: string;
  password: string;
}

export class SignUpLimiter {
  private readonly windows = new BoundedWindows(HOUR_MS, SIGN_UP_ADDRESSES_TRACKED_MAX, 'refuse');

  /** Counts one sign-up from `address`; the milliseconds to wait when over the limit (0: go on). */
  reserve(address: string, nowMs: number): number {
    const wait = this.windows.waitMs(address, SIGN_UPS_PER_ADDRESS_PER_HOUR, nowMs);
    if (wait > 0) return wait;
    this.windows.take(address, nowMs);
    return 0;
  }
}

interface SignUpDeps {
  store: EventStore;
  /** Accounts by email in the read model (the operator's too). */
  accountsByEmail(email: string): Promise<string[]>;
  limiter: SignUpLimiter;
  /**
   * Opens the account with its password and waits until the read models know it; 'refused' when
   * the engine refused to open it. A throw leaves it unknown whether the account exists.
   */
  openMember(member: NewMember): Promise<'opened' | 'refused'>;
}

/** Why a sign-up was refused: the form's rules (the text says which), the email, or the address's limit (with `retryAfterMs`). */
export type SignUpRefusal =
  { code: 'invalid_input'; message: string } | { code: 'email_taken' } | { code: 'sign_up_limited' };

const emailStream = (email: string) => `account-email-${hash('sha256', email.toLowerCase(), 'base64url')}`;

/** The form's rules; the refusal's text, or null. */
function problemOf(member: NewMember): string | null {
  if (member.first_name === '' || member.last_name === '') return 'First name and last name are required.';
  if (member.first_name.length > NAME_LENGTH_MAX || member.last_name.length > NAME_LENGTH_MAX)
    return `Names are at most ${NAME_LENGTH_MAX} characters.`;
  if (!EMAIL_FORMAT.test(member.email)) return 'Enter a valid email address.';
  if (member.password.length < PASSWORD_LENGTH_MIN || member.password.length > PASSWORD_LENGTH_MAX)
    return `The password must be ${PASSWORD_LENGTH_MIN} to ${PASSWORD_LENGTH_MAX} characters.`;
  return null;
}

/** Claims the email for one sign-up; false when it is claimed already (or another sign-up won the race). */
async function claimEmail(store: EventStore, email: string, claimId: string, nowUs: number): Promise<boolean> {
  const stream = emailStream(email);
  const last = (await store.readStream(stream, { direction: 'backwards', fromRevision: 'end', maxCount: 1 }))[0];
  if (last && last.type === 'EmailClaimed') return false;
  const revision: ExpectedRevision = last ? last.revision : 'no_stream';
  try {
    await store.append(
      stream,
      [{ id: randomUUID(), type: 'EmailClaimed', data: { claim_id: claimId, at_us: nowUs } }],
      revision,
    );
    return true;
  } catch (err) {
    if (err instanceof WrongExpectedRevision) return false;
    throw err;
  }
}

export async function signUp(
  deps: SignUpDeps,
  member: NewMember,
  address: string,
  nowUs: number,
): Promise<CommandResult<{ email: string }, SignUpRefusal>> {
  const problem = problemOf(member);
  if (problem !== null) return refused({ code: 'invalid_input', message: problem });
  const wait = deps.limiter.reserve(address, Math.floor(nowUs / 1000));
  if (wait > 0) return refused({ code: 'sign_up_limited' }, { retryAfterMs: wait });
  if ((await deps.accountsByEmail(member.email)).length > 0) return refused({ code: 'email_taken' });
  const claimId = randomUUID();
  if (!(await claimEmail(deps.store, member.email, claimId, nowUs))) return refused({ code: 'email_taken' });
  if ((await deps.openMember(member)) === 'refused') {
    // no account was opened: the email is free again (a throw above keeps the claim: the account may exist)
    await deps.store.append(
      emailStream(member.email),
      [{ id: randomUUID(), type: 'EmailReleased', data: { claim_id: claimId, at_us: nowUs } }],
      'any',
    );
    throw new Error('the engine refused to open the account');
  }
  return accepted({ email: member.email });
}
