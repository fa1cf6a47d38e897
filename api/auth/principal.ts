// The principal of a request, attached once by the auth middleware (commands/auth resolves it).
// Member routes read `principalOf`; the few routes an OAuth application token may call (the
// catalogue) read `anyPrincipalOf`.

import type { MemberPrincipal, Principal } from '../../commands/auth/principal.ts';
import { memberOf } from '../../commands/auth/access.ts';
import { httpErrorOf } from '../errors.ts';

export type { MemberPrincipal, Principal } from '../../commands/auth/principal.ts';

const PRINCIPAL = Symbol('principal');

/** Attaches the authenticated principal to the request (done once, by the auth middleware). */
export function setPrincipal(req: object, principal: Principal): void {
  (req as Record<symbol, Principal>)[PRINCIPAL] = principal;
}

/** The request's principal, member or application; throws if a route forgot the auth middleware. */
export function anyPrincipalOf(req: object): Principal {
  const principal = (req as Record<symbol, Principal | undefined>)[PRINCIPAL];
  if (!principal) throw new Error('route reached without authentication');
  return principal;
}

/** The member behind the request; an application token on a member route is 403. */
export function principalOf(req: object): MemberPrincipal {
  const member = memberOf(anyPrincipalOf(req));
  if (!member.ok) throw httpErrorOf(member.refusal);
  return member.member;
}
