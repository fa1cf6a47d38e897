// What every grant of the token endpoint is (one module each, in the manner of node-oidc-provider's
// lib/actions/grants): its name, the parameters it needs, whether a client without a secret may
// use it, and its handler. A handler runs its visible list of checks, each one rule that passes
// or throws a typed OAuth error (errors.ts), then issues; the endpoint maps errors to answers.

import type { AuthenticatedClient } from '../clientAuth.ts';
import type { OAuthDeps } from '../deps.ts';
import { InvalidGrant, InvalidRequest, InvalidScope } from '../errors.ts';
import { grantIsLive } from '../grants.ts';
import type { OAuthAnswer, OAuthRequest } from '../http.ts';
import type { LibraryGrants } from './library.ts';
import { present } from '../../../domain/assert.ts';
import { digestOf, TOKEN_LENGTH_MAX } from '../tokens.ts';

export interface TokenRequest {
  request: OAuthRequest;
  client: AuthenticatedClient;
  deps: OAuthDeps;
}

export interface GrantType {
  name: 'authorization_code' | 'refresh_token' | 'client_credentials';
  /** Body parameters this grant needs, each given once. */
  required: readonly string[];
  /** Whether a client without a secret (naming itself with client_id) may use it. */
  publicClients: boolean;
  handle(token: TokenRequest): Promise<OAuthAnswer>;
}

/** One rule of a grant's pipeline: passes (returns) or throws the refusal. */
export interface Check<S> {
  name: string;
  check(state: S): Promise<void> | void;
}

/** Runs `checks` in order on `state` (a throw ends the pipeline). */
export async function runChecks<S>(checks: readonly Check<S>[], state: S): Promise<void> {
  for (const { check } of checks) {
    const outcome = check(state);
    if (outcome instanceof Promise) await outcome;
  }
}

/**
 * A grant on what the request presents, which the protocol library carries (library.ts) once the
 * grant's own `checks` have passed; public clients may use it.
 */
export function libraryGrant<T>(
  library: LibraryGrants,
  grant: Pick<GrantType, 'name' | 'required'>,
  checks: readonly Check<Presenting<T>>[],
): GrantType {
  return {
    ...grant,
    publicClients: true,
    async handle(token) {
      await runChecks(checks, { token });
      return library.run(token.request, token.client);
    },
  };
}

/** What a code and a refresh token both carry: the client it was issued to, until when, and under which grant (none for an app's token). */
interface Issued {
  client_id: string;
  expires_at_us: number;
  account_id: string | null;
  grant_id: string | null;
}

/**
 * The checks a code exchange and a refresh share, each refusing with `invalid_grant` and its text:
 * issued to this client, not expired, and the member's grant it was issued under still live.
 */
export function issuedChecks<S extends { token: TokenRequest }>(
  issuedOf: (state: S) => Issued,
  texts: { otherClient: string; expired: string; grantRevoked: string },
): Check<S>[] {
  return [
    {
      name: 'issued to this client',
      check(state) {
        if (issuedOf(state).client_id !== state.token.client.known.client.client_id)
          throw new InvalidGrant(texts.otherClient);
      },
    },
    {
      name: 'not expired',
      check(state) {
        if (issuedOf(state).expires_at_us <= state.token.deps.clock.nowUs()) throw new InvalidGrant(texts.expired);
      },
    },
    {
      name: 'the grant it was issued under still live',
      async check(state) {
        const { account_id: accountId, client_id: clientId, grant_id: grantId } = issuedOf(state);
        if (accountId === null || grantId === null) return;
        if (!(await grantIsLive(state.token.deps.store, accountId, clientId, grantId)))
          throw new InvalidGrant(texts.grantRevoked);
      },
    },
  ];
}

/** RFC 6749 §3.3 scope text, as the protocol library reads it: trimmed, printable ASCII without `"` or `\\`, split on white space. */
const SCOPE_TEXT = /^[\u0020-\u0021\u0023-\u005B\u005D-\u007E]+$/;

/** The scopes a token request names (undefined: none given); InvalidScope when malformed. */
export function requestedScopes(body: Record<string, unknown>): string[] | undefined {
  const raw = body.scope;
  if (raw === undefined || raw === null) return undefined;
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!SCOPE_TEXT.test(text)) throw new InvalidScope('Invalid parameter: `scope`');
  return text.split(/\s+/g);
}

/** RFC 6749 VSCHAR: what a code or refresh token may be made of. */
const VISIBLE_ASCII = /^[\u0020-\u007E]+$/;

/** A body parameter of the token request (the endpoint has checked that each required one is given once). */
export const paramOf = (token: TokenRequest, name: string): string => token.request.body[name] as string;

/** The state of a grant that looks up what the request presents (a code, a refresh token). */
export interface Presenting<T> {
  token: TokenRequest;
  /** What the store holds for it, once the check that finds it has passed. */
  stored?: T;
}

/** What the store holds for the presented code or token (a check before has found it). */
export const storedOf = <T>(state: Presenting<T>): T =>
  present(state.stored, 'what a request presents is looked up before it is checked');

/**
 * The two checks a code exchange and a refresh open with: what body parameter `parameter` presents
 * is made of visible ASCII (else invalid_request), then known: found by its digest (never when it
 * is longer than any the server issues), else invalid_grant with `unknown`; it is kept on the state.
 */
export function presentedChecks<T>(
  parameter: string,
  known: { name: string; find: (deps: OAuthDeps, digest: string) => Promise<T | undefined>; unknown: string },
): Check<Presenting<T>>[] {
  return [
    {
      name: `${parameter} made of visible ASCII`,
      check(state) {
        if (!VISIBLE_ASCII.test(paramOf(state.token, parameter)))
          throw new InvalidRequest(`Invalid parameter: \`${parameter}\``);
      },
    },
    {
      name: known.name,
      async check(state) {
        const text = paramOf(state.token, parameter);
        const stored = text.length <= TOKEN_LENGTH_MAX ? await known.find(state.token.deps, digestOf(text)) : undefined;
        if (!stored) throw new InvalidGrant(known.unknown);
        state.stored = stored;
      },
    },
  ];
}
