// Member session bearer tokens, as a login would give. The token is random (`svc_st_` prefix);
// only its SHA-256 is recorded (stream `session-{session_id}`), with an expiry on ctx.clock.

import { hash, randomBytes, randomUUID } from 'node:crypto';
import { MICROS_PER_SECOND } from '../../domain/clock.ts';
import { SESSION_SCOPES } from '../../domain/auth/scopes.ts';
import type { TokenResolver } from '../auth/credentials.ts';
import type { AppContext } from '../context.ts';
import { accepted, refused, type CommandResult } from '../result.ts';
import { sessionStream, type SessionIssued } from '../../domain/credentials/events.ts';
import { credentialIndexOf, type SessionEntry } from './index.ts';

const SESSION_TOKEN_PREFIX = 'svc_st_';
const SESSION_LIFETIME_DEFAULT_S = 24 * 60 * 60;
export const SESSION_LIFETIME_MAX_S = 90 * 24 * 60 * 60;

interface IssueSessionInput {
  account_id: string;
  expires_in_s?: number | null;
}

interface IssuedSession {
  token: string;
  expires_at: number; // UNIX µs
}

export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

export async function issueSession(ctx: AppContext, input: IssueSessionInput): Promise<CommandResult<IssuedSession>> {
  if (typeof input.account_id !== 'string' || input.account_id === '')
    return refused({ code: 'invalid_input', message: 'account_id is required' });
  const lifetimeS = input.expires_in_s ?? SESSION_LIFETIME_DEFAULT_S;
  if (!Number.isInteger(lifetimeS) || lifetimeS < 1 || lifetimeS > SESSION_LIFETIME_MAX_S)
    return refused({
      code: 'invalid_input',
      message: `expires_in must be an integer between 1 and ${SESSION_LIFETIME_MAX_S}`,
    });
  const token = SESSION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
  const nowUs = ctx.clock.nowUs();
  const issued: SessionIssued = {
    session_id: randomUUID(),
    account_id: input.account_id,
    token_hash: hashToken(token),
    issued_at_us: nowUs,
    expires_at_us: nowUs + lifetimeS * MICROS_PER_SECOND,
  };
  await ctx.store.append(
    sessionStream(issued.session_id),
    [{ id: randomUUID(), type: 'SessionIssued', data: issued }],
    'no_stream',
  );
  credentialIndexOf(ctx).addSession(issued);
  return accepted({ token, expires_at: issued.expires_at_us });
}

/** The live session a bearer token names, or undefined (unknown, revoked or expired). */
async function resolveSession(ctx: AppContext, token: string): Promise<SessionEntry | undefined> {
  if (!token.startsWith(SESSION_TOKEN_PREFIX) || token.length > 200) return undefined;
  const entry = await credentialIndexOf(ctx).sessionByHash(hashToken(token));
  if (!entry || entry.revoked_at_us !== null || entry.expires_at_us <= ctx.clock.nowUs()) return undefined;
  return entry;
}

/** Member session tokens as one of the bearer token resolvers. */
export function sessionTokenResolver(ctx: AppContext): TokenResolver {
  return async (token) => {
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) return null;
    const session = await resolveSession(ctx, token);
    if (!session) return { code: 'unauthorized' };
    return {
      account_id: session.account_id,
      source: 'session',
      scopes: SESSION_SCOPES,
      client_id: null,
      token_id: session.session_id,
    };
  };
}
