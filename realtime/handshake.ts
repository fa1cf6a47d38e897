// The WebSocket handshake's credential rules (docs/REALTIME.md "Connecting", docs/TRADING.md "Credentials"), in order:
//   1. no User-Agent                                   → 403, no upgrade
//   2. any X-SVC-ACCESS-* header → the API-key rules, signed over `GET` and the request path with
//      its query string, same 30-second window as REST  → 401 when they fail, no upgrade
//   3. else `x-svc-oauth-token`                         → 401 when the token is not live; 403
//      with `x-svc-error: 5301 - ip_not_allowed` outside the client's IP allowlist
//   4. else anonymous (the unprefixed SVC-ACCESS-* names count as no credential at all)
// Refusals arrive typed from the credential resolver; this file alone maps them to HTTP.

import type { CredentialRefusal, CredentialRequest } from '../commands/auth/credentials.ts';
import type { SocketCredential } from './credential.ts';
import { ANONYMOUS, type SocketIdentity } from './identity.ts';

const HEADER_OAUTH_TOKEN = 'x-svc-oauth-token';
const SIGNING_HEADERS = ['x-svc-access-key', 'x-svc-access-timestamp', 'x-svc-access-signature'] as const;
const HEADER_ERROR = 'x-svc-error';
const IP_NOT_ALLOWED_HEADER_VALUE = '5301 - ip_not_allowed';
const USER_AGENT_ERROR = 'User-Agent header is required';

/** What the resolver sees of the handshake request (no uWebSockets types): the shared credential request. */
export type HandshakeRequest = CredentialRequest;

/** The shared resolver's refusals; this file maps them to the handshake's HTTP answer. */
export type HandshakeRefusal = CredentialRefusal;

/** A resolved identity, with the credential it rests on (absent only for anonymous sockets). */
export type IdentityResult =
  { ok: true; identity: SocketIdentity; credential?: SocketCredential } | { ok: false; refusal: HandshakeRefusal };

/** Turns credentials into an identity (wired at the composition root over the shared resolver). */
export interface IdentityResolver {
  /** The signed API-key headers of `req`. */
  fromSignedHeaders(req: HandshakeRequest): Promise<IdentityResult>;
  /** An OAuth access token (`x-svc-oauth-token`). */
  fromOAuthToken(token: string, req: HandshakeRequest): Promise<IdentityResult>;
}

interface HttpRefusal {
  status: string;
  headers: Array<[string, string]>;
  body: Record<string, string>;
}

/** The one table from typed refusals to the handshake's HTTP answer. */
export function httpRefusalOf(refusal: HandshakeRefusal): HttpRefusal {
  switch (refusal.code) {
    case 'user_agent_required':
      return { status: '403 Forbidden', headers: [], body: { error: USER_AGENT_ERROR } };
    case 'api_key_invalid':
      return { status: '401 Unauthorized', headers: [], body: { error: 'Missing or invalid API key credentials' } };
    case 'unauthorized':
      return { status: '401 Unauthorized', headers: [], body: { error: 'Unauthorized' } };
    case 'oauth_token_invalid':
      return { status: '401 Unauthorized', headers: [], body: { error: 'Missing or invalid OAuth access token' } };
    case 'ip_not_allowed':
      return {
        status: '403 Forbidden',
        headers: [[HEADER_ERROR, IP_NOT_ALLOWED_HEADER_VALUE]],
        body: {
          error: 'ip_not_allowed',
          error_description: 'this application may connect only from the addresses on its IP allowlist',
        },
      };
    case 'account_inactive':
      return {
        status: '403 Forbidden',
        headers: [],
        body: { error: `Account is ${refusal.status === 'pending' ? 'pending approval' : refusal.status}` },
      };
    case 'unavailable':
      return {
        status: '503 Service Unavailable',
        headers: [['retry-after', '1']],
        body: { error: 'Service temporarily unavailable; retry shortly' },
      };
    default: {
      const unknown: never = refusal;
      throw new Error(`unmapped handshake refusal ${JSON.stringify(unknown)}`);
    }
  }
}

/** Applies the rules above; `resolver` is absent only while no credential resolver is wired. */
export async function identify(req: HandshakeRequest, resolver: IdentityResolver | undefined): Promise<IdentityResult> {
  const userAgent = req.header('user-agent');
  if (userAgent === undefined || userAgent.trim() === '')
    return { ok: false, refusal: { code: 'user_agent_required' } };
  const signed = SIGNING_HEADERS.some((name) => req.header(name) !== undefined);
  if (signed) return resolver ? resolver.fromSignedHeaders(req) : { ok: false, refusal: { code: 'unavailable' } };
  const token = req.header(HEADER_OAUTH_TOKEN);
  if (token !== undefined) {
    if (token.trim() === '') return { ok: false, refusal: { code: 'oauth_token_invalid' } };
    return resolver ? resolver.fromOAuthToken(token.trim(), req) : { ok: false, refusal: { code: 'unavailable' } };
  }
  return { ok: true, identity: ANONYMOUS };
}
