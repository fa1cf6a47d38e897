// The one principal type every credential resolves to: a signed API key, a member session
// bearer token, or (later) an OAuth access token. Route guards look only at this.

export type CredentialMethod = 'api_key' | 'bearer';
export type CredentialSource = 'api_key' | 'session' | 'oauth';

export interface Principal {
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

const PRINCIPAL = Symbol('principal');

/** Attaches the authenticated principal to the request (done once, by the auth middleware). */
export function setPrincipal(req: object, principal: Principal): void {
  (req as Record<symbol, Principal>)[PRINCIPAL] = principal;
}

/** The request's principal; throws if a route forgot to sit behind the auth middleware. */
export function principalOf(req: object): Principal {
  const principal = (req as Record<symbol, Principal | undefined>)[PRINCIPAL];
  if (!principal) throw new Error('route reached without authentication');
  return principal;
}
