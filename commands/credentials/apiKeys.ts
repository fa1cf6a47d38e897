// API key commands: issue (with a client-supplied public key, or a generated pair whose seed is
// returned once) and revoke. Stream `apikey-{key_id}`; the in-process index is updated as soon as
// the append has committed, so a revoked key fails on the very next request.

import { randomUUID } from 'node:crypto';
import { accepted, judged, refused, type CommandResult } from '../result.ts';
import type { AppContext } from '../context.ts';
import { generateKeyPair, parsePublicKey } from './ed25519.ts';
import {
  API_KEY_SCOPES,
  apiKeyStream,
  type ApiKeyIssued,
  type ApiKeyRevoked,
  type ApiKeyScope,
} from '../../domain/credentials/events.ts';
import { credentialIndexOf } from './index.ts';

interface IssueApiKeyInput {
  account_id: string;
  scope: ApiKeyScope | string;
  public_key?: string | null;
}

export interface IssuedApiKey {
  key_id: string;
  scope: ApiKeyScope;
  public_key: string;
  /** base64 of the 32-byte Ed25519 seed; only when the service generated the pair. */
  private_key?: string;
}

interface RevokedApiKey {
  key_id: string;
  scope: ApiKeyScope;
  public_key: string;
  revoked_at: number; // UNIX µs
}

interface ApiKeyState {
  issued: ApiKeyIssued | null;
  revoked_at_us: number | null;
}

function evolve(state: ApiKeyState, event: { type: string; data: unknown }): ApiKeyState {
  switch (event.type) {
    case 'ApiKeyIssued':
      return { ...state, issued: event.data as ApiKeyIssued };
    case 'ApiKeyRevoked':
      return { ...state, revoked_at_us: state.revoked_at_us ?? (event.data as ApiKeyRevoked).revoked_at_us };
    default:
      return state;
  }
}

export async function issueApiKey(ctx: AppContext, input: IssueApiKeyInput): Promise<CommandResult<IssuedApiKey>> {
  if (!(API_KEY_SCOPES as readonly string[]).includes(input.scope))
    return refused({ code: 'invalid_input', message: 'scope must be read_only or read_write' });
  if (typeof input.account_id !== 'string' || input.account_id === '')
    return refused({ code: 'invalid_input', message: 'account_id is required' });
  let publicKey: Uint8Array;
  let seed: Uint8Array | undefined;
  if (input.public_key === undefined || input.public_key === null) {
    ({ seed, publicKey } = generateKeyPair());
  } else {
    if (typeof input.public_key !== 'string')
      return refused({ code: 'invalid_input', message: 'public_key must be a string' });
    const parsed = judged(() => parsePublicKey(input.public_key as string));
    if (!parsed.ok) return parsed;
    publicKey = parsed.value;
  }
  const issued: ApiKeyIssued = {
    key_id: randomUUID(),
    account_id: input.account_id,
    scope: input.scope as ApiKeyScope,
    public_key: Buffer.from(publicKey).toString('base64'),
    issued_at_us: ctx.clock.nowUs(),
  };
  await ctx.store.append(
    apiKeyStream(issued.key_id),
    [{ id: randomUUID(), type: 'ApiKeyIssued', data: issued }],
    'no_stream',
  );
  credentialIndexOf(ctx).addKey(issued);
  const answer: IssuedApiKey = { key_id: issued.key_id, scope: issued.scope, public_key: issued.public_key };
  if (seed) answer.private_key = Buffer.from(seed).toString('base64');
  return accepted(answer);
}

/** Revokes a key (idempotent: revoking twice answers the first revocation). Unknown id: api_key_not_found. */
export async function revokeApiKey(ctx: AppContext, keyId: string): Promise<CommandResult<RevokedApiKey>> {
  const stream = apiKeyStream(keyId);
  const events = await ctx.store.readStream(stream); // a missing stream is []; a failing store is an error, not "no such key"
  const state = events.reduce(evolve, { issued: null, revoked_at_us: null } as ApiKeyState);
  const last = events[events.length - 1];
  if (!state.issued || !last) return refused({ code: 'api_key_not_found' });
  let revokedAtUs = state.revoked_at_us;
  if (revokedAtUs === null) {
    revokedAtUs = ctx.clock.nowUs();
    const revoked: ApiKeyRevoked = { key_id: keyId, revoked_at_us: revokedAtUs };
    await ctx.store.append(stream, [{ id: randomUUID(), type: 'ApiKeyRevoked', data: revoked }], last.revision);
  }
  const index = credentialIndexOf(ctx);
  index.addKey(state.issued, revokedAtUs);
  index.revokeKey(keyId, revokedAtUs);
  return accepted({
    key_id: keyId,
    scope: state.issued.scope,
    public_key: state.issued.public_key,
    revoked_at: revokedAtUs,
  });
}
