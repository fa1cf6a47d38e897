// grant_type=authorization_code: a code from /oauth/authorize for its tokens. The checks, in order
// (each refusal invalid_grant unless said otherwise); all of them run before anything is used up,
// so a refused exchange leaves the code usable:
//   1. code made of visible ASCII (invalid_request)
//   2. code known
//   3. code not used before: a replay revokes the member's grant and everything under it
//   4. code issued to this client
//   5. code not expired
//   6. the grant it was issued under still live (a revoked grant revokes every code of it)
//   7. code_verifier matches the code_challenge (S256)
//   8. redirect_uri exactly the one of the authorization request
// then the protocol library runs the grant (library.ts), which marks the code used in the same
// statement that writes the tokens.

import { createHash } from 'node:crypto';
import { InvalidGrant } from '../errors.ts';
import type { StoredCode } from '../tokenStore.ts';
import {
  issuedChecks,
  libraryGrant,
  paramOf,
  presentedChecks,
  storedOf,
  type Check,
  type GrantType,
  type Presenting,
} from './grantType.ts';
import { CODE_REPLAYED, revokeReplayedGrant, type LibraryGrants } from './library.ts';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER_FORMAT = /^[A-Za-z0-9._~-]{43,128}$/;

type CodeExchange = Presenting<StoredCode>;

const param = (state: CodeExchange, name: string): string => paramOf(state.token, name);

const CHECKS: readonly Check<CodeExchange>[] = [
  ...presentedChecks('code', {
    name: 'code known',
    find: (deps, digest) => deps.tokens.findCode(digest),
    unknown: 'authorization code is invalid',
  }),
  {
    name: 'code not used before (a replay revokes the grant and everything under it)',
    async check(state) {
      const code = storedOf(state);
      if (code.consumed_at_us === null) return;
      await revokeReplayedGrant(state.token.deps, code);
      throw new InvalidGrant(CODE_REPLAYED);
    },
  },
  ...issuedChecks<CodeExchange>(storedOf, {
    otherClient: 'authorization code is invalid',
    expired: 'authorization code has expired',
    grantRevoked: 'the member’s authorization this code was issued under is revoked',
  }),
  {
    name: 'code_verifier matches the code_challenge (S256)',
    check(state) {
      const verifier = param(state, 'code_verifier');
      const ok =
        CODE_VERIFIER_FORMAT.test(verifier) &&
        createHash('sha256').update(verifier).digest('base64url') === storedOf(state).code_challenge;
      if (!ok) throw new InvalidGrant('code verifier is invalid');
    },
  },
  {
    name: 'redirect_uri exactly the one of the authorization request',
    check(state) {
      if (param(state, 'redirect_uri') !== storedOf(state).redirect_uri)
        throw new InvalidGrant('redirect_uri differs from the one of the authorization request');
    },
  },
];

export function authorizationCode(library: LibraryGrants): GrantType {
  return libraryGrant(
    library,
    { name: 'authorization_code', required: ['code', 'redirect_uri', 'code_verifier'] },
    CHECKS,
  );
}
