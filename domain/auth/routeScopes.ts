// Which OAuth scope covers which /api/v1 route (our choice; docs/OAUTH.md and
// the OpenAPI document's `security` state the same table). Member sessions and API keys are not
// judged here: they act with every scope their credential kind allows.

interface RouteScope {
  /** The scope that covers the route; null: no scope covers it (an OAuth token gets 403 without `scope`). */
  scope: string | null;
  /** Catalogue routes: any member token may read them too, whatever its scopes. */
  anyMemberToken: boolean;
}

interface Entry {
  method: string;
  /** Path below /api/v1; `{id}` matches one segment. */
  path: string;
  scope: string | null;
  anyMemberToken?: boolean;
}

const ROUTE_SCOPE_TABLE: readonly Entry[] = [
  { method: 'GET', path: '/me', scope: 'profile.read' },
  { method: 'PATCH', path: '/me/profile', scope: null },
  { method: 'GET', path: '/account/balance', scope: 'balance.read' },
  { method: 'GET', path: '/fills', scope: 'portfolio.read' },
  { method: 'GET', path: '/positions', scope: 'portfolio.read' },
  { method: 'GET', path: '/account/market_stats', scope: 'portfolio.read' },
  { method: 'GET', path: '/portfolio/loyalty', scope: 'portfolio.read' },
  { method: 'GET', path: '/portfolio/fees', scope: 'portfolio.read' },
  { method: 'GET', path: '/portfolio/adjustments', scope: 'portfolio.read' },
  { method: 'GET', path: '/portfolio/withdrawals', scope: 'transfers.read' },
  { method: 'GET', path: '/orders', scope: 'orders.read' },
  { method: 'GET', path: '/orders/{id}', scope: 'orders.read' },
  { method: 'POST', path: '/orders', scope: 'orders.write' },
  { method: 'POST', path: '/orders/batched', scope: 'orders.write' },
  { method: 'DELETE', path: '/orders/batched', scope: 'orders.write' },
  { method: 'GET', path: '/markets', scope: 'market_data', anyMemberToken: true },
  { method: 'GET', path: '/leaderboard', scope: 'market_data', anyMemberToken: true },
];

const exact = new Map<string, RouteScope>();
const patterns: { method: string; prefix: string; scope: RouteScope }[] = [];
for (const entry of ROUTE_SCOPE_TABLE) {
  const scope: RouteScope = { scope: entry.scope, anyMemberToken: entry.anyMemberToken === true };
  const brace = entry.path.indexOf('{');
  if (brace < 0) exact.set(`${entry.method} ${entry.path}`, scope);
  else patterns.push({ method: entry.method, prefix: entry.path.slice(0, brace), scope });
}

/** The scope rule of `method path` (path below /api/v1, no query), or undefined for a path that is no route. */
export function routeScopeOf(method: string, path: string): RouteScope | undefined {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const found = exact.get(`${method === 'HEAD' ? 'GET' : method} ${trimmed}`);
  if (found) return found;
  for (const pattern of patterns) {
    if (pattern.method !== method || !trimmed.startsWith(pattern.prefix)) continue;
    const rest = trimmed.slice(pattern.prefix.length);
    if (rest !== '' && !rest.includes('/')) return pattern.scope;
  }
  return undefined;
}

/** The scopes, in plain words, as the consent screen lists them. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  'profile.read': 'See your profile (name, handle, account status)',
  'balance.read': 'See your balance',
  'portfolio.read': 'See your fills, positions, market statistics, fees and loyalty points',
  'orders.read': 'See your orders',
  'transfers.read': 'See your withdrawals',
  'orders.write': 'Place and cancel orders for you',
  'terms.write': 'Accept terms on your behalf',
  market_data: 'Read markets and the leaderboard',
  events: 'Receive public event updates',
};
