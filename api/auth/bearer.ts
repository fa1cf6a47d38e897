// Bearer credentials (SPEC Authentication 2): `Authorization: Bearer <token>` only, never the
// query string or body. Resolvers are tried in order; each recognises its own tokens (member
// sessions now, OAuth access tokens later) and returns what it knows, or null to pass. A resolver
// may throw its own HttpError (OAuth's `Missing or invalid OAuth access token`). When nobody
// recognises the token the answer is 401 `Unauthorized`.

import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../../commands/context.ts';
import { resolveSession } from '../../commands/credentials/sessions.ts';
import { HttpError } from '../errors.ts';
import type { CredentialSource } from './principal.ts';

export const BEARER_ERROR = 'Unauthorized';
export const unauthorized = () => new HttpError(401, BEARER_ERROR);

/** What a bearer resolver knows; the middleware adds the user and account checks. */
export interface BearerIdentity {
  account_id: string;
  source: CredentialSource;
  scopes: ReadonlySet<string>;
  client_id: string | null;
  token_id: string | null;
}

export type BearerResolver = (ctx: AppContext, token: string) => Promise<BearerIdentity | null>;

export const MEMBER_SCOPES: ReadonlySet<string> = new Set([
  'profile.read', 'balance.read', 'portfolio.read', 'orders.read', 'transfers.read', 'orders.write', 'terms.write',
  'market_data', 'events',
]);

export const sessionResolver: BearerResolver = async (ctx, token) => {
  const session = await resolveSession(ctx, token);
  if (!session) return null;
  return { account_id: session.account_id, source: 'session', scopes: MEMBER_SCOPES, client_id: null, token_id: session.session_id };
};

const BEARER_FORMAT = /^Bearer +([\x21-\x7e]{1,512}) *$/i;

/** The bearer token of the Authorization header, or undefined when there is none. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  const header = headers.authorization;
  if (header === undefined) return undefined;
  const match = BEARER_FORMAT.exec(header);
  if (!match) throw unauthorized();
  return match[1];
}

export async function resolveBearer(ctx: AppContext, resolvers: readonly BearerResolver[], token: string): Promise<BearerIdentity> {
  for (const resolve of resolvers) {
    const identity = await resolve(ctx, token);
    if (identity) return identity;
  }
  throw unauthorized();
}
