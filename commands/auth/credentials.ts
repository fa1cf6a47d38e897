// Credentials → Principal, without any transport: REST, the WebSocket handshake and OAuth bearer
// checks all call this one resolver with what they know of a request (method, path with query, a
// header lookup, the peer address) and get a Principal or a typed refusal. Each transport maps
// refusals to its wire form in one table of its own.
//
// Checks, in order:
//   1. User-Agent present                                     else user_agent_required
//   2. any X-SVC-ACCESS-* header → the signed API key rules    else api_key_invalid
//      otherwise Authorization: Bearer → the token resolvers   else unauthorized (or theirs)
//      no credential at all                                    unauthorized
//   3. (reads) the caller's hook waits until the read models passed the account's last write
//   4. the account is known (else the credential's refusal) and active, else account_inactive
// A port that fails (the database is down) is `unavailable`: never a verdict about the data.

import type { Clock } from '../../domain/clock.ts';
import type { ApiKeyLookup } from './signedKey.ts';
import { hasSigningHeader, SignedKeyVerifier } from './signedKey.ts';
import type { AppPrincipal, MemberPrincipal, Principal } from './principal.ts';

export interface CredentialRequest {
  /** Upper case; `GET` for a WebSocket handshake. */
  method: string;
  /** The raw request target, query string included. */
  pathWithQuery: string;
  /** Looks a header up by its lower-case name. */
  header(name: string): string | undefined;
  /** The peer's normalised IP address. */
  remoteAddress: string | null;
}

export type CredentialRefusal =
  | { code: 'user_agent_required' }
  | { code: 'api_key_invalid' }
  | { code: 'unauthorized' }
  | { code: 'oauth_token_invalid' }
  | { code: 'ip_not_allowed' }
  | { code: 'account_inactive'; status: string }
  | { code: 'unavailable' };

export type CredentialResult = { ok: true; principal: Principal } | { ok: false; refusal: CredentialRefusal };

/** What a token resolver knows of a bearer token it recognises (`account_id` null: an app token). */
export interface TokenIdentity {
  account_id: string | null;
  source: 'session' | 'oauth';
  scopes: ReadonlySet<string>;
  client_id: string | null;
  token_id: string | null;
}

/** Recognises its own tokens (member sessions, OAuth access tokens); null means "not mine". */
export type TokenResolver = (
  token: string,
  request: CredentialRequest,
) => Promise<TokenIdentity | CredentialRefusal | null>;

/** The account facts the resolver needs: who owns it and whether it may act. */
export interface AccountStatus {
  user_id: string;
  status: string;
}

export interface AccountStatusReader {
  statusOf(accountId: string): Promise<AccountStatus | undefined>;
}

interface CredentialResolverDeps {
  clock: Clock;
  keys: ApiKeyLookup;
  accounts: AccountStatusReader;
  /** Tried in order; the first that recognises the token answers. */
  tokenResolvers: readonly TokenResolver[];
  /**
   * Read-your-writes: called before the account's status is read, so a member's read sees their
   * own last write (a status change included). Bounded by whoever implements it.
   */
  beforeAccountCheck?: (accountId: string, request: CredentialRequest) => Promise<void>;
  /** Told about a port failure that became `unavailable` (for the log). */
  onPortFailure?: (error: unknown) => void;
}

export interface CredentialResolver {
  /** Signing headers if any is present, else `Authorization: Bearer`, else a refusal. */
  resolve(request: CredentialRequest): Promise<CredentialResult>;
  /** A raw bearer token that arrived elsewhere (the WebSocket handshake's x-svc-oauth-token). */
  resolveToken(token: string, request: CredentialRequest): Promise<CredentialResult>;
}

const HEADER_USER_AGENT = 'user-agent';
const HEADER_AUTHORIZATION = 'authorization';
const BEARER_FORMAT = /^Bearer +([\x21-\x7e]{1,512}) *$/i;

const API_KEY_SCOPES: Record<'read_only' | 'read_write', ReadonlySet<string>> = {
  read_only: new Set(['read_only']),
  read_write: new Set(['read_only', 'read_write']),
};

const refuse = (refusal: CredentialRefusal): CredentialResult => ({ ok: false, refusal });
const isRefusal = (value: TokenIdentity | CredentialRefusal): value is CredentialRefusal => 'code' in value;

export function createCredentialResolver(deps: CredentialResolverDeps): CredentialResolver {
  const signedKeys = new SignedKeyVerifier(deps.clock, deps.keys);

  /** Runs a port call; a failure is `unavailable`, never an answer about the data. */
  async function guarded<T>(call: () => Promise<T>): Promise<T | (CredentialRefusal & { code: 'unavailable' })> {
    try {
      return await call();
    } catch (error) {
      deps.onPortFailure?.(error);
      return { code: 'unavailable' };
    }
  }
  const failed = (value: unknown): value is { code: 'unavailable' } =>
    typeof value === 'object' && value !== null && (value as { code?: unknown }).code === 'unavailable';

  async function member(
    request: CredentialRequest,
    accountId: string,
    whenUnknown: CredentialRefusal,
    principal: Omit<MemberPrincipal, 'kind' | 'account_id' | 'user_id'>,
  ): Promise<CredentialResult> {
    await deps.beforeAccountCheck?.(accountId, request);
    const account = await guarded(() => deps.accounts.statusOf(accountId));
    if (failed(account)) return refuse(account);
    if (!account) return refuse(whenUnknown);
    if (account.status !== 'active') return refuse({ code: 'account_inactive', status: account.status });
    return { ok: true, principal: { kind: 'member', account_id: accountId, user_id: account.user_id, ...principal } };
  }

  async function fromToken(token: string, request: CredentialRequest): Promise<CredentialResult> {
    for (const resolver of deps.tokenResolvers) {
      const identity = await guarded(() => resolver(token, request));
      if (identity === null) continue;
      if (isRefusal(identity)) return refuse(identity);
      if (identity.account_id === null) {
        if (identity.client_id === null) return refuse({ code: 'unauthorized' });
        const app: AppPrincipal = {
          kind: 'app',
          account_id: null,
          user_id: null,
          method: 'bearer',
          source: 'oauth',
          scopes: identity.scopes,
          key_scope: null,
          key_id: null,
          client_id: identity.client_id,
          token_id: identity.token_id,
        };
        return { ok: true, principal: app };
      }
      const whenUnknown: CredentialRefusal =
        identity.source === 'oauth' ? { code: 'oauth_token_invalid' } : { code: 'unauthorized' };
      return member(request, identity.account_id, whenUnknown, {
        method: 'bearer',
        source: identity.source,
        scopes: identity.scopes,
        key_scope: null,
        key_id: null,
        client_id: identity.client_id,
        token_id: identity.token_id,
      });
    }
    return refuse({ code: 'unauthorized' });
  }

  const hasUserAgent = (request: CredentialRequest): boolean => (request.header(HEADER_USER_AGENT) ?? '').trim() !== '';

  return {
    async resolve(request) {
      if (!hasUserAgent(request)) return refuse({ code: 'user_agent_required' });
      if (hasSigningHeader(request.header)) {
        const key = await guarded(() => signedKeys.verify(request));
        if (failed(key)) return refuse(key);
        if (!key) return refuse({ code: 'api_key_invalid' });
        return member(
          request,
          key.account_id,
          { code: 'api_key_invalid' },
          {
            method: 'api_key',
            source: 'api_key',
            scopes: API_KEY_SCOPES[key.scope],
            key_scope: key.scope,
            key_id: key.key_id,
            client_id: null,
            token_id: null,
          },
        );
      }
      const authorization = request.header(HEADER_AUTHORIZATION);
      if (authorization === undefined) return refuse({ code: 'unauthorized' });
      const match = BEARER_FORMAT.exec(authorization);
      if (!match) return refuse({ code: 'unauthorized' });
      return fromToken(match[1] as string, request);
    },
    async resolveToken(token, request) {
      if (!hasUserAgent(request)) return refuse({ code: 'user_agent_required' });
      return fromToken(token, request);
    },
  };
}
