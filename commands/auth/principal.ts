// The one principal type every credential resolves to, whatever the transport (REST, the
// WebSocket handshake, later FIX): a member acting through a signed API key, a session token or an
// OAuth access token, or an OAuth application token (client_credentials) that acts for no member.
// Route guards and command handlers look only at this.

export type CredentialMethod = 'api_key' | 'bearer';
export type CredentialSource = 'api_key' | 'session' | 'oauth';

/** A member of the exchange, through one of their credentials. */
export interface MemberPrincipal {
  kind: 'member';
  account_id: string;
  user_id: string;
  method: CredentialMethod;
  source: CredentialSource;
  /** API keys: `read_only` | `read_write`. Sessions: every member scope. OAuth: the granted scopes. */
  scopes: ReadonlySet<string>;
  /** `read_only` | `read_write` for API keys; null for bearer credentials. */
  key_scope: 'read_only' | 'read_write' | null;
  key_id: string | null;
  client_id: string | null;
  token_id: string | null;
}

/** An OAuth application token (client_credentials): catalogue data only, no member behind it. */
export interface AppPrincipal {
  kind: 'app';
  account_id: null;
  user_id: null;
  method: 'bearer';
  source: 'oauth';
  scopes: ReadonlySet<string>;
  key_scope: null;
  key_id: null;
  client_id: string;
  token_id: string | null;
}

export type Principal = MemberPrincipal | AppPrincipal;
