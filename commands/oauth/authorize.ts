// GET /oauth/authorize without a transport: one visible pipeline of checks, in order.
// An unknown or suspended client, or a redirect_uri that is not exactly a registered one, is never
// redirected (error page, HTTP 400: redirecting would make the server an open redirector). Every
// other problem goes back to the redirect_uri as `error`, with `state` and `iss` (RFC 9207).
// The request's scopes are narrowed to the client's allow-list (write scopes count only for a
// client with an IP allowlist); nothing left is invalid_scope. A member whose live grant covers
// the narrowed scopes gets a code without the consent screen; prompt=none never shows a screen.

import { ALL_SCOPES, WRITE_SCOPES } from '../../domain/auth/scopes.ts';
import type { OAuthClient } from '../oauthClients/client.ts';
import type { OAuthDeps } from './deps.ts';
import { activeGrant, covers, consent } from './grants.ts';
import { single } from './http.ts';
import { CODE_LIFETIME_US, digestOf, newCode } from './tokens.ts';
import { valueOrThrow } from '../result.ts';

/** base64url of a SHA-256 digest: 43 characters. */
const CODE_CHALLENGE_FORMAT = /^[A-Za-z0-9_-]{43}$/;
const STATE_LENGTH_MAX = 1024;
const SCOPE_LENGTH_MAX = 1024;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirect_uri: string;
  state: string | undefined;
  /** Narrowed to what the client may hold. */
  scopes: string[];
  code_challenge: string;
  prompt: string | undefined;
}

type Validation =
  | { kind: 'error_page'; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'valid'; request: AuthorizationRequest };

/** `redirect_uri` with `params` added (its own query kept), `iss` last. */
function redirectWith(redirectUri: string, params: Record<string, string | undefined>, issuer: string): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

const errorRedirect = (
  redirectUri: string,
  state: string | undefined,
  error: string,
  description: string,
  issuer: string,
): Validation => ({
  kind: 'redirect',
  location: redirectWith(redirectUri, { error, error_description: description, state }, issuer),
});

/** Narrowing (docs/OAUTH.md): the requested scopes the client may hold. */
function narrowScopes(requested: readonly string[], client: OAuthClient): string[] {
  const writeAllowed = client.ip_allowlist.length > 0;
  return requested.filter(
    (scope) => client.scopes.includes(scope) && (writeAllowed || !(WRITE_SCOPES as readonly string[]).includes(scope)),
  );
}

export async function validateAuthorization(
  query: Record<string, unknown>,
  deps: OAuthDeps,
  issuer: string,
): Promise<Validation> {
  // 1. the client and the redirect target: never redirect before both are known good
  const clientId = single(query, 'client_id');
  if (typeof clientId !== 'string' || clientId === '')
    return { kind: 'error_page', message: 'The request names no application (client_id is missing).' };
  const known = clientId.length <= 200 ? await deps.clients.get(clientId) : null;
  if (!known) return { kind: 'error_page', message: 'The application is not known to this exchange.' };
  if (known.client.status !== 'active') return { kind: 'error_page', message: 'This application is suspended.' };
  const redirectUri = single(query, 'redirect_uri');
  if (typeof redirectUri !== 'string' || !known.client.redirect_uris.includes(redirectUri)) {
    return { kind: 'error_page', message: 'The redirect address is not one registered for this application.' };
  }
  const client = known.client;
  const stateValue = single(query, 'state');
  const state = typeof stateValue === 'string' ? stateValue.slice(0, STATE_LENGTH_MAX) : undefined;
  const fail = (error: string, description: string) => errorRedirect(redirectUri, state, error, description, issuer);

  // 2. the protocol
  const responseType = single(query, 'response_type');
  if (responseType !== 'code') return fail('unsupported_response_type', 'response_type must be code');
  if (stateValue === null) return fail('invalid_request', 'state must be given once');
  const challenge = single(query, 'code_challenge');
  const method = single(query, 'code_challenge_method');
  if (typeof challenge !== 'string' || challenge === '')
    return fail('invalid_request', 'PKCE is required: code_challenge with code_challenge_method S256');
  if (method !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  if (!CODE_CHALLENGE_FORMAT.test(challenge))
    return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters)');
  const scopeText = single(query, 'scope');
  if (typeof scopeText !== 'string' || scopeText.trim() === '') return fail('invalid_request', 'scope is required');
  if (scopeText.length > SCOPE_LENGTH_MAX) return fail('invalid_scope', 'scope is too long');
  const requested = [...new Set(scopeText.split(' ').filter((s) => s !== ''))];
  const unknown = requested.find((scope) => !ALL_SCOPES.includes(scope));
  if (unknown !== undefined) return fail('invalid_scope', `unknown scope ${unknown.slice(0, 100)}`);
  const scopes = narrowScopes(requested, client);
  if (scopes.length === 0) return fail('invalid_scope', 'none of the requested scopes is allowed for this application');
  const prompt = single(query, 'prompt');
  return {
    kind: 'valid',
    request: {
      client,
      redirect_uri: redirectUri,
      state,
      scopes,
      code_challenge: challenge,
      prompt: typeof prompt === 'string' ? prompt : undefined,
    },
  };
}

type Decision = { kind: 'redirect'; location: string } | { kind: 'login' } | { kind: 'consent' };

/**
 * What a valid request leads to for the browser's member (null: nobody signed in).
 * `loggedInForThis`: the member just logged in for this very request (what prompt=login asks).
 */
export async function decide(
  request: AuthorizationRequest,
  accountId: string | null,
  deps: OAuthDeps,
  issuer: string,
  loggedInForThis = false,
): Promise<Decision> {
  const silent = request.prompt === 'none';
  if (accountId === null || (request.prompt === 'login' && !loggedInForThis)) {
    if (silent)
      return {
        kind: 'redirect',
        location: redirectWith(request.redirect_uri, { error: 'login_required', state: request.state }, issuer),
      };
    return { kind: 'login' };
  }
  const grant = await activeGrant(deps.store, accountId, request.client.client_id);
  if (covers(grant, request.scopes) && request.prompt !== 'consent') {
    return { kind: 'redirect', location: await issueCode(request, accountId, grant!.grant_id, deps, issuer) };
  }
  if (silent)
    return {
      kind: 'redirect',
      location: redirectWith(request.redirect_uri, { error: 'consent_required', state: request.state }, issuer),
    };
  return { kind: 'consent' };
}

/** Stores a code (its digest) for the member's grant and answers where to send the browser. */
async function issueCode(
  request: AuthorizationRequest,
  accountId: string,
  grantId: string,
  deps: OAuthDeps,
  issuer: string,
): Promise<string> {
  const code = newCode();
  const now = deps.clock.nowUs();
  await deps.tokens.saveCode({
    code_hash: digestOf(code),
    client_id: request.client.client_id,
    account_id: accountId,
    grant_id: grantId,
    redirect_uri: request.redirect_uri,
    scopes: request.scopes,
    code_challenge: request.code_challenge,
    issued_at_us: now,
    expires_at_us: now + CODE_LIFETIME_US,
  });
  return redirectWith(request.redirect_uri, { code, state: request.state }, issuer);
}

/** The member chose Allow: the grant widens (an event), then a code; a failure is server_error at the redirect_uri. */
export async function allow(
  request: AuthorizationRequest,
  accountId: string,
  deps: OAuthDeps,
  issuer: string,
): Promise<string> {
  try {
    const grant = valueOrThrow(
      await consent(deps.store, {
        account_id: accountId,
        client_id: request.client.client_id,
        scopes: request.scopes,
        now_us: deps.clock.nowUs(),
      }),
    );
    return await issueCode(request, accountId, grant.grant_id, deps, issuer);
  } catch (error) {
    deps.onError?.(error, 'consent');
    return redirectWith(
      request.redirect_uri,
      {
        error: 'server_error',
        error_description: 'the code could not be issued; restart authorization',
        state: request.state,
      },
      issuer,
    );
  }
}

/** The member chose Deny. */
export const deny = (request: AuthorizationRequest, issuer: string): string =>
  redirectWith(request.redirect_uri, { error: 'access_denied', state: request.state }, issuer);
