// OAuth scopes (docs/OAUTH.md): what a member may grant an application, and what an application
// may hold on its own (catalogue data). Member sessions and API keys act with every scope.

export const MEMBER_SCOPES = [
  'profile.read',
  'balance.read',
  'portfolio.read',
  'orders.read',
  'transfers.read',
  'orders.write',
  'terms.write',
] as const;
export const APP_SCOPES = ['market_data', 'events'] as const;
/** Member scopes that need an IP allowlist on the client (set only by the operator). */
export const WRITE_SCOPES = ['orders.write', 'terms.write'] as const;

export const ALL_SCOPES: readonly string[] = [...MEMBER_SCOPES, ...APP_SCOPES];
/** What a member session may do: everything a member may grant, and read the catalogue. */
export const SESSION_SCOPES: ReadonlySet<string> = new Set<string>(ALL_SCOPES);
