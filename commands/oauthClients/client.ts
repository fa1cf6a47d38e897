// The OAuth client registry: one aggregate per client (stream `oauth-client-{client_id}`),
// written by the operator API and, later, by dynamic registration. Secrets are shown once and
// stored only as a SHA-256 digest (they are 256-bit random, so a slow hash adds nothing).

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const APP_TYPES = ['web', 'server', 'browser', 'native'] as const;
export type AppType = (typeof APP_TYPES)[number];
export const CLIENT_STATUSES = ['active', 'suspended'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

export { ALL_SCOPES, APP_SCOPES, MEMBER_SCOPES, WRITE_SCOPES } from '../../domain/auth/scopes.ts';

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
  /** SHA-256 (hex) of the secret; null for public clients. */
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

export type ClientFields = Pick<OAuthClient, 'name' | 'app_type' | 'redirect_uris' | 'scopes' | 'ip_allowlist' | 'status'>;

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

export function hashClientSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time check of a presented secret; false for public clients. */
export function verifyClientSecret(client: Pick<OAuthClient, 'secret_hash'>, presented: string): boolean {
  if (client.secret_hash === null) return false;
  const expected = Buffer.from(client.secret_hash, 'hex');
  const actual = createHash('sha256').update(presented, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
