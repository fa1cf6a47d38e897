// What happens to a member's authorizations, as the event store records it. A grant is one
// member's consent to one application (stream `oauth-grant-{account_id}-{client_id}`): consent
// sets or widens its scopes, a revocation ends it (by the member, the operator, or the server
// when a code is replayed). Two-factor login is stream `account-totp-{account_id}`: the secret
// when it is turned on, and each step whose code was accepted (a code is accepted once).

export const GRANT_STREAM_PREFIX = 'oauth-grant-';
const TOTP_STREAM_PREFIX = 'account-totp-';

export const grantStream = (accountId: string, clientId: string): string =>
  `${GRANT_STREAM_PREFIX}${accountId}-${clientId}`;
export const totpStream = (accountId: string): string => `${TOTP_STREAM_PREFIX}${accountId}`;

export type GrantRevocationReason = 'code_replayed' | 'member' | 'operator';

export interface OAuthGrantConsented {
  grant_id: string;
  account_id: string;
  client_id: string;
  /** The grant's scopes after this consent (a re-consent only widens). */
  scopes: string[];
  /** Scopes this consent added. */
  added: string[];
  at_us: number;
}

export interface OAuthGrantRevoked {
  grant_id: string;
  account_id: string;
  client_id: string;
  reason: GrantRevocationReason;
  at_us: number;
}

type GrantEvent =
  { type: 'OAuthGrantConsented'; data: OAuthGrantConsented } | { type: 'OAuthGrantRevoked'; data: OAuthGrantRevoked };

export interface Grant {
  grant_id: string;
  account_id: string;
  client_id: string;
  scopes: string[];
  created_at_us: number;
  revoked_at_us: number | null;
}

/** The latest grant of a stream (an active one, or the last revoked), folded from its events. */
export function evolveGrant(state: Grant | null, event: { type: string; data: unknown }): Grant | null {
  switch (event.type) {
    case 'OAuthGrantConsented': {
      const d = event.data as OAuthGrantConsented;
      if (state && state.grant_id === d.grant_id) return { ...state, scopes: [...d.scopes] };
      return {
        grant_id: d.grant_id,
        account_id: d.account_id,
        client_id: d.client_id,
        scopes: [...d.scopes],
        created_at_us: d.at_us,
        revoked_at_us: null,
      };
    }
    case 'OAuthGrantRevoked': {
      const d = event.data as OAuthGrantRevoked;
      if (!state || state.grant_id !== d.grant_id) return state;
      return { ...state, revoked_at_us: state.revoked_at_us ?? d.at_us };
    }
    default:
      return state;
  }
}

export const isGrantEvent = (event: { type: string }): event is GrantEvent =>
  event.type === 'OAuthGrantConsented' || event.type === 'OAuthGrantRevoked';

export interface TotpEnabled {
  account_id: string;
  /** Base32, as given to the operator once. */
  secret: string;
  at_us: number;
}

export interface TotpCodeUsed {
  account_id: string;
  step: number;
  at_us: number;
}

interface TotpState {
  secret: string;
  lastUsedStep: number | null;
}

export function evolveTotp(state: TotpState | null, event: { type: string; data: unknown }): TotpState | null {
  switch (event.type) {
    case 'TotpEnabled':
      return { secret: (event.data as TotpEnabled).secret, lastUsedStep: null };
    case 'TotpCodeUsed':
      return state ? { ...state, lastUsedStep: (event.data as TotpCodeUsed).step } : state;
    default:
      return state;
  }
}
