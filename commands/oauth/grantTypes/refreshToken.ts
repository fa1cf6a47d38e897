// grant_type=refresh_token: rotation (every use answers a new refresh token; the answer has the
// code exchange's shape). The checks, in order (each refusal invalid_grant unless said otherwise);
// all of them run before anything is used up, so a refused refresh leaves the token usable:
//   1. refresh_token made of visible ASCII (invalid_request)
//   2. refresh token known (and not revoked)
//   3. not used before: reuse revokes its whole token family
//   4. issued to this client
//   5. not expired
//   6. the grant it was issued under still live
//   7. scope, when given, well-formed and within the token's (invalid_scope)
// then the protocol library runs the grant (library.ts), which marks the token used in the same
// statement that writes its successors.

import { InvalidGrant, InvalidScope } from '../errors.ts';
import type { StoredToken } from '../tokenStore.ts';
import {
  issuedChecks,
  libraryGrant,
  presentedChecks,
  requestedScopes,
  storedOf,
  type Check,
  type GrantType,
  type Presenting,
} from './grantType.ts';
import { REFRESH_REUSED, revokeReusedFamily, type LibraryGrants } from './library.ts';

type Refresh = Presenting<StoredToken>;

const CHECKS: readonly Check<Refresh>[] = [
  ...presentedChecks('refresh_token', {
    name: 'refresh token known',
    find: async (deps, digest) => {
      const stored = await deps.tokens.findToken(digest);
      return stored?.kind === 'refresh' ? stored : undefined;
    },
    unknown: 'refresh token is invalid',
  }),
  {
    name: 'not used before (reuse revokes the token family)',
    async check(state) {
      const stored = storedOf(state);
      if (stored.rotated) {
        await revokeReusedFamily(state.token.deps, stored);
        throw new InvalidGrant(REFRESH_REUSED);
      }
      if (stored.revoked_at_us !== null) throw new InvalidGrant('refresh token is invalid');
    },
  },
  ...issuedChecks<Refresh>(storedOf, {
    otherClient: 'refresh token was issued to another client',
    expired: 'refresh token has expired',
    grantRevoked: 'the member’s authorization this refresh token was issued under is revoked',
  }),
  {
    name: 'scope within the token’s',
    check(state) {
      const scopes = requestedScopes(state.token.request.body);
      if (scopes !== undefined && !scopes.every((scope) => storedOf(state).scopes.includes(scope)))
        throw new InvalidScope('Unable to add extra scopes');
    },
  },
];

export function refreshToken(library: LibraryGrants): GrantType {
  return libraryGrant(library, { name: 'refresh_token', required: ['refresh_token'] }, CHECKS);
}
