// What a Principal may do, as typed refusals for every transport (each maps them in its own table):
// - an OAuth token: the scope the route → scope table (domain/auth/routeScopes.ts) names;
//   catalogue routes take any member token too; a route no scope covers: insufficient_scope
//   without a scope;
// - order writes: an API key needs `read_write`; a member session may always write; an OAuth
//   token needs the write scope (and a member behind it);
// - profile changes: an API key needs `read_write`; no OAuth scope covers them;
// - member routes: an application token (no member behind it) is refused.

import { routeScopeOf } from '../../domain/auth/routeScopes.ts';
import type { MemberPrincipal, Principal } from './principal.ts';

export type AccessRefusal =
  /** An OAuth token outside its scopes; `scope` is the one that would cover it (null: none does). */
  | { code: 'insufficient_scope'; scope: string | null }
  /** An application token on a route that acts for a member. */
  | { code: 'member_required' }
  /** A read-only API key on a write. */
  | { code: 'read_only_key'; write: 'orders' | 'profile' };

const ORDERS_WRITE_SCOPE = 'orders.write';

/** An OAuth token on `method path` (below the API's mount point); null when it may go on (or the path is no route). */
export function routeAccessRefusal(principal: Principal, method: string, path: string): AccessRefusal | null {
  if (principal.source !== 'oauth') return null;
  const rule = routeScopeOf(method, path);
  if (rule === undefined) return null; // not a route: the transport's 404 follows
  if (rule.scope === null) return { code: 'insufficient_scope', scope: null };
  if (principal.scopes.has(rule.scope)) return null;
  if (rule.anyMemberToken && principal.kind === 'member') return null;
  return { code: 'insufficient_scope', scope: rule.scope };
}

export function orderWriteRefusal(principal: Principal, oauthScope = ORDERS_WRITE_SCOPE): AccessRefusal | null {
  if (principal.source === 'oauth' && !(principal.kind === 'member' && principal.scopes.has(oauthScope)))
    return { code: 'insufficient_scope', scope: oauthScope };
  if (principal.kind !== 'member') return { code: 'member_required' };
  if (principal.source === 'api_key' && principal.key_scope !== 'read_write')
    return { code: 'read_only_key', write: 'orders' };
  return null;
}

export function profileWriteRefusal(principal: MemberPrincipal): AccessRefusal | null {
  if (principal.source === 'api_key' && principal.key_scope !== 'read_write')
    return { code: 'read_only_key', write: 'profile' };
  if (principal.source === 'oauth') return { code: 'insufficient_scope', scope: null };
  return null;
}

/** The member behind the principal, or the refusal of an application token. */
export function memberOf(
  principal: Principal,
): { ok: true; member: MemberPrincipal } | { ok: false; refusal: AccessRefusal } {
  return principal.kind === 'member'
    ? { ok: true, member: principal }
    : { ok: false, refusal: { code: 'member_required' } };
}
