// Member login passwords, set by the operator when an account is created or patched (for the
// login page the OAuth flow sends members to). Stored only as scrypt hashes, one stream per
// account: `account-password-{account_id}`.

import { randomBytes, randomUUID, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import type { EventStore } from '../../eventstore/port.ts';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number },
) => Promise<Buffer>;

const SCRYPT_PARAMS = { N: 16384, r: 8, p: 1 };
const SALT_BYTES = 16;
const KEY_BYTES = 32;
export const PASSWORD_LENGTH_MAX = 1024;

export const passwordStream = (accountId: string) => `account-password-${accountId}`;

interface PasswordSet {
  account_id: string;
  /** `scrypt$N$r$p$salt$hash`, base64 parts. */
  password_hash: string;
  set_at_us: number;
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await scrypt(password, salt, KEY_BYTES, SCRYPT_PARAMS);
  const { N, r, p } = SCRYPT_PARAMS;
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

async function verifyPasswordHash(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export async function setPassword(
  store: EventStore,
  accountId: string,
  password: string,
  nowUs: number,
): Promise<void> {
  const data: PasswordSet = { account_id: accountId, password_hash: await hashPassword(password), set_at_us: nowUs };
  await store.append(passwordStream(accountId), [{ id: randomUUID(), type: 'PasswordSet', data }], 'any');
}

/** True when the account has a password and `password` matches the latest one. */
export async function verifyPassword(store: EventStore, accountId: string, password: string): Promise<boolean> {
  const events = await store.readStream(passwordStream(accountId), {
    direction: 'backwards',
    fromRevision: 'end',
    maxCount: 1,
  });
  const latest = events[0];
  if (!latest || latest.type !== 'PasswordSet') return false;
  return verifyPasswordHash(password, (latest.data as PasswordSet).password_hash);
}
