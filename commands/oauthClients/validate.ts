// Rules for OAuth client fields, shared by the operator API and dynamic registration. Each
// failure names the field, so registration can map redirect problems to invalid_redirect_uri.

import { InvalidInput } from '../../domain/errors.ts';
import { isCidr } from '../settings/validate.ts';
import { ALL_SCOPES, APP_TYPES, CLIENT_STATUSES, type ClientFields } from './client.ts';

const CLIENT_NAME_LENGTH_MAX = 200;
const REDIRECT_URIS_MAX = 20;
const REDIRECT_URI_LENGTH_MAX = 2000;
const IP_ALLOWLIST_MAX = 100;

export class ClientFieldError extends InvalidInput {
  constructor(
    readonly field: keyof ClientFields,
    message: string,
  ) {
    super(message, field);
  }
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A callback must be https, a reverse-domain custom scheme (`com.example.app:/cb`), or http on a
 * loopback host (any port) for installed apps; never with a fragment.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > REDIRECT_URI_LENGTH_MAX) return 'is too long';
  if (uri.includes('#')) return 'must not carry a fragment';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI';
  }
  const scheme = url.protocol.slice(0, -1);
  if (scheme === 'https') return url.hostname === '' ? 'must name a host' : null;
  if (scheme === 'http')
    return LOOPBACK_HOSTS.has(url.hostname) ? null : 'must be https, or http only on localhost, 127.0.0.1 or [::1]';
  if (/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$/i.test(scheme)) return null;
  return 'must be https, a reverse-domain custom scheme, or an http loopback address';
}

function stringArray(field: keyof ClientFields, value: unknown, max: number): string[] {
  if (!Array.isArray(value)) throw new ClientFieldError(field, `${field} must be an array of strings`);
  if (value.length > max) throw new ClientFieldError(field, `${field} must have at most ${max} entries`);
  const out: string[] = [];
  value.forEach((entry, index) => {
    if (typeof entry !== 'string' || entry.trim() === '')
      throw new ClientFieldError(field, `${field}[${index}] must be a non-empty string`);
    if (!out.includes(entry.trim())) out.push(entry.trim());
  });
  return out;
}

const CHECKS: { [K in keyof ClientFields]: (value: unknown) => ClientFields[K] } = {
  name(value) {
    if (typeof value !== 'string' || value.trim() === '')
      throw new ClientFieldError('name', 'name must be a non-empty string');
    if (value.length > CLIENT_NAME_LENGTH_MAX)
      throw new ClientFieldError('name', `name must be at most ${CLIENT_NAME_LENGTH_MAX} characters`);
    return value.trim();
  },
  app_type(value) {
    if (typeof value !== 'string' || !(APP_TYPES as readonly string[]).includes(value)) {
      throw new ClientFieldError('app_type', `app_type must be one of ${APP_TYPES.join(', ')}`);
    }
    return value as ClientFields['app_type'];
  },
  redirect_uris(value) {
    const uris = stringArray('redirect_uris', value, REDIRECT_URIS_MAX);
    uris.forEach((uri, index) => {
      const problem = redirectUriProblem(uri);
      if (problem) throw new ClientFieldError('redirect_uris', `redirect_uris[${index}] ${problem}`);
    });
    return uris;
  },
  scopes(value) {
    const scopes = typeof value === 'string' ? value.split(' ').filter((s) => s !== '') : value;
    const list = stringArray('scopes', scopes, ALL_SCOPES.length);
    if (list.length === 0) throw new ClientFieldError('scopes', 'scopes must name at least one scope');
    for (const scope of list) {
      if (!ALL_SCOPES.includes(scope)) throw new ClientFieldError('scopes', `scopes: unknown scope ${scope}`);
    }
    return list;
  },
  ip_allowlist(value) {
    const cidrs = stringArray('ip_allowlist', value, IP_ALLOWLIST_MAX);
    cidrs.forEach((cidr, index) => {
      if (!isCidr(cidr)) throw new ClientFieldError('ip_allowlist', `ip_allowlist[${index}] must be a CIDR`);
    });
    return cidrs;
  },
  status(value) {
    if (typeof value !== 'string' || !(CLIENT_STATUSES as readonly string[]).includes(value)) {
      throw new ClientFieldError('status', `status must be one of ${CLIENT_STATUSES.join(', ')}`);
    }
    return value as ClientFields['status'];
  },
};

/** Validates the fields present in `raw` (unknown keys are ignored); `required` must be present. */
export function validateClientFields(raw: unknown, required: ReadonlyArray<keyof ClientFields>): Partial<ClientFields> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new InvalidInput('body must be a JSON object');
  const body = raw as Record<string, unknown>;
  for (const field of required) {
    if (body[field] === undefined) throw new ClientFieldError(field, `${field} is required`);
  }
  const out: Partial<Record<keyof ClientFields, unknown>> = {};
  for (const field of Object.keys(CHECKS) as Array<keyof ClientFields>) {
    if (body[field] === undefined) continue;
    out[field] = (CHECKS[field] as (value: unknown) => unknown)(body[field]);
  }
  return out as Partial<ClientFields>;
}
