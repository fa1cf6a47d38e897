// The OAuth client registry: one aggregate per client (stream `oauth-client-{client_id}`),
// written by the operator API and by dynamic registration. Secrets are shown once and stored only
// as a keyed digest, HMAC-SHA-256 under the install's client-secret key (they are 256-bit random,
// so a slow password hash would add nothing but cap the token endpoint; the key means a copy of
// the event store alone does not even let one test guesses offline). Digests written before the
// key existed (plain SHA-256) still verify.

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { EventStore } from '../../eventstore/port.ts';

export const APP_TYPES = ['web', 'server', 'browser', 'native'] as const;
export type AppType = (typeof APP_TYPES)[number];
export const CLIENT_STATUSES = ['active', 'suspended'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

export { ALL_SCOPES } from '../../domain/auth/scopes.ts';

/** Web and server-to-server apps hold a secret; browser and native apps prove themselves by PKCE. */
export function isConfidential(appType: AppType): boolean {
  return appType === 'web' || appType === 'server';
}

/** The stored aggregate state. */
export interface OAuthClient {
  client_id: string;
  name: string;
  app_type: AppType;
  redirect_uris: string[];
  scopes: string[];
  ip_allowlist: string[];
  status: ClientStatus;
  /** Keyed digest of the secret (`hmac-sha256:…`; older ones plain SHA-256 hex); null for public clients. */
  secret_hash: string | null;
  /** `admin` (operator API) or `dynamic` (POST /oauth/register). */
  registered_by: 'admin' | 'dynamic';
  created_at: number; // UNIX µs
  updated_at: number; // UNIX µs
}

/** What the operator sees: never the secret or its digest. */
export interface OAuthClientView {
  client_id: string;
  name: string;
  app_type: AppType;
  confidential: boolean;
  redirect_uris: string[];
  scopes: string[];
  ip_allowlist: string[];
  status: ClientStatus;
  registered_by: 'admin' | 'dynamic';
  created_at: string;
  updated_at: string;
}

export type ClientFields = Pick<
  OAuthClient,
  'name' | 'app_type' | 'redirect_uris' | 'scopes' | 'ip_allowlist' | 'status'
>;

export function streamOf(clientId: string): string {
  return `oauth-client-${clientId}`;
}

export function evolve(state: OAuthClient | null, event: { type: string; data: unknown }): OAuthClient | null {
  switch (event.type) {
    case 'OAuthClientRegistered':
    case 'OAuthClientChanged':
      return (event.data as { client: OAuthClient }).client;
    default:
      return state;
  }
}

export function viewOf(client: OAuthClient): OAuthClientView {
  return {
    client_id: client.client_id,
    name: client.name,
    app_type: client.app_type,
    confidential: client.secret_hash !== null,
    redirect_uris: [...client.redirect_uris],
    scopes: [...client.scopes],
    ip_allowlist: [...client.ip_allowlist],
    status: client.status,
    registered_by: client.registered_by,
    created_at: new Date(Math.floor(client.created_at / 1000)).toISOString(),
    updated_at: new Date(Math.floor(client.updated_at / 1000)).toISOString(),
  };
}

const SECRET_BYTES = 32;

export function newClientSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

const KEYED_PREFIX = 'hmac-sha256:';
const secretKeys = new WeakMap<EventStore, Buffer>();

/** The install's client-secret key for the clients of `store` (the composition root sets it at start). */
export function useClientSecretKey(store: EventStore, key: Buffer): void {
  if (key.length < 32) throw new Error('the client-secret key must be at least 32 bytes');
  secretKeys.set(store, key);
}

export function clientSecretKeyOf(store: EventStore): Buffer {
  const key = secretKeys.get(store);
  if (!key) throw new Error('no client-secret key is set for this event store (useClientSecretKey at start)');
  return key;
}

export function hashClientSecret(secret: string, key: Buffer): string {
  return KEYED_PREFIX + createHmac('sha256', key).update(secret, 'utf8').digest('base64url');
}

/** Constant-time check of a presented secret; false for public clients. */
export function verifyClientSecret(client: Pick<OAuthClient, 'secret_hash'>, presented: string, key: Buffer): boolean {
  const stored = client.secret_hash;
  if (stored === null) return false;
  let expected: Buffer;
  let actual: Buffer;
  if (stored.startsWith(KEYED_PREFIX)) {
    expected = Buffer.from(stored.slice(KEYED_PREFIX.length), 'base64url');
    actual = createHmac('sha256', key).update(presented, 'utf8').digest();
  } else {
    expected = Buffer.from(stored, 'hex');
    actual = createHash('sha256').update(presented, 'utf8').digest();
  }
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
