// POST /oauth/register (RFC 7591), only while the operator setting `dynamic_registration` is on
// (404 otherwise). The request's metadata becomes a client of the registry (commands/oauthClients,
// `registered_by: dynamic`). Our choices:
//   token_endpoint_auth_method  `client_secret_basic` (default) or `none`
//   grant_types                 default [authorization_code, refresh_token]; `client_credentials`
//                               only with a secret and then no callbacks are needed
//   app type                    secret + callbacks → web; secret, client_credentials only → server;
//                               no secret, only https callbacks → browser; otherwise → native
//   scope                       space-separated; default every member read scope and market_data;
//                               write scopes are refused (only the operator grants them)
// Each address may register `registration_limit_per_hour` clients per hour (429 with Retry-After).

import { ALL_SCOPES, WRITE_SCOPES } from '../../domain/auth/scopes.ts';
import { messageOf } from '../../domain/errors.ts';
import { normalizeIp } from '../../domain/address.ts';
import type { AppType } from '../oauthClients/client.ts';
import { registerClient } from '../oauthClients/commands.ts';
import { redirectUriProblem } from '../oauthClients/validate.ts';
import type { OAuthDeps } from './deps.ts';
import { InvalidClientMetadata, InvalidRedirectUri, RateLimited } from './errors.ts';
import { json, type OAuthAnswer, type OAuthRequest } from './http.ts';
import { BoundedWindows } from './windows.ts';

const HOUR_MS = 3_600_000;
/** Addresses whose registrations are counted; when every one is in an open hour, a new address waits (refused, never forgotten). */
const REGISTRATION_ADDRESSES_TRACKED_MAX = 10_000;
const AUTH_METHODS = ['client_secret_basic', 'none'] as const;
const GRANTS = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
const DEFAULT_SCOPES = [
  'profile.read',
  'balance.read',
  'portfolio.read',
  'orders.read',
  'transfers.read',
  'market_data',
];

/** Fixed one-hour windows per address on the service clock, counted in memory (bounded; refuses when full). */
export class RegistrationLimiter {
  private readonly windows: BoundedWindows;

  constructor(addressesMax = REGISTRATION_ADDRESSES_TRACKED_MAX) {
    this.windows = new BoundedWindows(HOUR_MS, addressesMax, 'refuse');
  }

  /** Counts one registration before it is made; the seconds to wait when over `limit` (or the table is full), else 0. */
  take(address: string, limit: number, nowMs: number): number {
    const wait = this.windows.waitMs(address, limit, nowMs);
    if (wait > 0) return Math.max(1, Math.ceil(wait / 1000));
    this.windows.take(address, nowMs);
    return 0;
  }
}

function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    throw new InvalidClientMetadata(`${field} must be an array of strings`);
  return value as string[];
}

export async function register(
  request: OAuthRequest,
  deps: OAuthDeps,
  limiter: RegistrationLimiter,
): Promise<OAuthAnswer> {
  const settings = deps.settings.get();
  if (!settings.dynamic_registration) return json(404, { error: 'Not found' });
  const body = request.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new InvalidClientMetadata('the body must be a JSON object of client metadata');

  const method = body.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method)) {
    throw new InvalidClientMetadata(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}`);
  }
  const withSecret = method === 'client_secret_basic';
  const grants =
    body.grant_types === undefined
      ? ['authorization_code', 'refresh_token']
      : stringList(body.grant_types, 'grant_types');
  for (const grant of grants) {
    if (!(GRANTS as readonly string[]).includes(grant))
      throw new InvalidClientMetadata(`grant_types: ${grant} is not supported`);
  }
  if (grants.includes('client_credentials') && !withSecret)
    throw new InvalidClientMetadata(
      'client_credentials needs a client with a secret (token_endpoint_auth_method client_secret_basic)',
    );
  if (body.response_types !== undefined) {
    const types = stringList(body.response_types, 'response_types');
    if (types.some((t) => t !== 'code')) throw new InvalidClientMetadata('response_types may only be [code]');
  }
  const needsCallbacks = grants.includes('authorization_code');

  let redirectUris: string[] = [];
  if (body.redirect_uris !== undefined) {
    const uris =
      Array.isArray(body.redirect_uris) && body.redirect_uris.every((u) => typeof u === 'string')
        ? body.redirect_uris
        : null;
    if (uris === null) throw new InvalidRedirectUri('redirect_uris must be an array of URIs');
    redirectUris = uris;
  }
  if (needsCallbacks && redirectUris.length === 0)
    throw new InvalidRedirectUri('redirect_uris is required for the authorization_code grant');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidRedirectUri(`redirect_uri ${uri.slice(0, 200)} ${problem}`);
  }

  let scopes = DEFAULT_SCOPES;
  if (body.scope !== undefined) {
    if (typeof body.scope !== 'string' || body.scope.trim() === '')
      throw new InvalidClientMetadata('scope must be a space-separated string of scopes');
    scopes = [...new Set(body.scope.split(' ').filter((s) => s !== ''))];
    for (const scope of scopes) {
      if (!ALL_SCOPES.includes(scope)) throw new InvalidClientMetadata(`scope: unknown scope ${scope}`);
      if ((WRITE_SCOPES as readonly string[]).includes(scope))
        throw new InvalidClientMetadata(
          `scope: ${scope} cannot be registered; write scopes are granted by the operator only`,
        );
    }
  } else if (!needsCallbacks) {
    scopes = ['market_data', 'events'];
  }
  const name = body.client_name ?? 'Unnamed application';
  if (typeof name !== 'string' || name.trim() === '')
    throw new InvalidClientMetadata('client_name must be a non-empty string');

  const appType: AppType = withSecret
    ? needsCallbacks
      ? 'web'
      : 'server'
    : redirectUris.every((u) => u.startsWith('https:'))
      ? 'browser'
      : 'native';

  const address = normalizeIp(request.remoteAddress) ?? 'unknown';
  const waitS = limiter.take(address, settings.registration_limit_per_hour, Math.floor(deps.clock.nowUs() / 1000));
  if (waitS > 0) throw new RateLimited('Too many registrations from this address this hour', waitS);

  const registered = await registerClient(
    deps.store,
    { name, app_type: appType, redirect_uris: redirectUris, scopes },
    { nowUs: deps.clock.nowUs(), registeredBy: 'dynamic' },
  );
  if (!registered.ok) {
    const { refusal } = registered;
    throw refusal.code === 'invalid_input' && refusal.field === 'redirect_uris'
      ? new InvalidRedirectUri(refusal.message)
      : new InvalidClientMetadata(messageOf(refusal));
  }
  const { client, client_secret: secret } = registered.value;
  return json(201, {
    client_id: client.client_id,
    ...(secret !== undefined ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
    client_id_issued_at: Math.floor(Date.parse(client.created_at) / 1000),
    client_name: client.name,
    redirect_uris: client.redirect_uris,
    grant_types: grants,
    response_types: needsCallbacks ? ['code'] : [],
    token_endpoint_auth_method: method,
    scope: client.scopes.join(' '),
  });
}
