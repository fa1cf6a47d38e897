// The shapes of what the authorization server hands out: codes `svc_code_…` (60 s, single use),
// access tokens `svc_at_…` (3600 s), refresh tokens `svc_rt_…` (rotated on every use). Each is
// 256 random bits; only its SHA-256 is stored, so a stolen table grants nothing.

import { hash, randomBytes } from 'node:crypto';
import { MICROS_PER_SECOND } from '../../domain/clock.ts';

const CODE_PREFIX = 'svc_code_';
export const ACCESS_TOKEN_PREFIX = 'svc_at_';
const REFRESH_TOKEN_PREFIX = 'svc_rt_';

const CODE_LIFETIME_S = 60;
export const ACCESS_TOKEN_LIFETIME_S = 3600;
/** Our choice (docs/OAUTH.md): a refresh token unused for 30 days expires (rotation gives a fresh one each use). */
export const REFRESH_TOKEN_LIFETIME_S = 30 * 24 * 60 * 60;
export const CODE_LIFETIME_US = CODE_LIFETIME_S * MICROS_PER_SECOND;
export const ACCESS_TOKEN_LIFETIME_US = ACCESS_TOKEN_LIFETIME_S * MICROS_PER_SECOND;
export const REFRESH_TOKEN_LIFETIME_US = REFRESH_TOKEN_LIFETIME_S * MICROS_PER_SECOND;
/** Longest token text looked up; anything longer is no token of ours. */
export const TOKEN_LENGTH_MAX = 128;

const RANDOM_BYTES = 32;
/** Random bytes are drawn from the CSPRNG this many at a time; each byte is handed out once. */
const RANDOM_POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

/** 32 fresh CSPRNG bytes as base64url (a refill per 128 tokens instead of a call per token). */
function randomPart(): string {
  if (poolOffset + RANDOM_BYTES > pool.length) {
    pool = randomBytes(RANDOM_POOL_BYTES);
    poolOffset = 0;
  }
  const part = pool.toString('base64url', poolOffset, poolOffset + RANDOM_BYTES);
  pool.fill(0, poolOffset, poolOffset + RANDOM_BYTES);
  poolOffset += RANDOM_BYTES;
  return part;
}

export const newCode = (): string => CODE_PREFIX + randomPart();
export const newAccessToken = (): string => ACCESS_TOKEN_PREFIX + randomPart();
export const newRefreshToken = (): string => REFRESH_TOKEN_PREFIX + randomPart();

/** SHA-256 of the UTF-8 text, base64url (one-shot: no Hash object per token). */
export function digestOf(secret: string): string {
  return hash('sha256', secret, 'base64url');
}
