// Grants as commands: consenting and revoking append events (auditors replay them; the operator's
// grants list is a projection of them). Deciding reads the grant's own stream, so a code is
// never issued on a grant a concurrent revocation ended: appends carry the expected revision.

import { randomUUID } from 'node:crypto';
import { WrongExpectedRevision, type EventStore } from '../../eventstore/port.ts';
import { foldStream } from './streams.ts';
import {
  evolveGrant, grantStream, type Grant, type GrantRevocationReason, type OAuthGrantConsented, type OAuthGrantRevoked,
} from '../../domain/oauth/events.ts';

const APPEND_ATTEMPTS_MAX = 3;

async function load(store: EventStore, accountId: string, clientId: string) {
  const { state, revision } = await foldStream(store, grantStream(accountId, clientId), evolveGrant);
  return { grant: state, revision };
}

/** The member's live grant to the client, or null. */
export async function activeGrant(store: EventStore, accountId: string, clientId: string): Promise<Grant | null> {
  const { grant } = await load(store, accountId, clientId);
  return grant && grant.revoked_at_us === null ? grant : null;
}

export const covers = (grant: Grant | null, scopes: readonly string[]): boolean =>
  grant !== null && grant.revoked_at_us === null && scopes.every((scope) => grant.scopes.includes(scope));

async function retrying<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n += 1) {
    try {
      return await attempt();
    } catch (err) {
      if (!(err instanceof WrongExpectedRevision) || n >= APPEND_ATTEMPTS_MAX) throw err;
    }
  }
}

/** The member allowed `scopes`: a new grant, or the live one widened. Returns the grant as it now is. */
export function consent(store: EventStore, input: { account_id: string; client_id: string; scopes: readonly string[]; now_us: number }): Promise<Grant> {
  return retrying(async () => {
    const { grant, revision } = await load(store, input.account_id, input.client_id);
    const live = grant && grant.revoked_at_us === null ? grant : null;
    const current = live?.scopes ?? [];
    const added = input.scopes.filter((scope) => !current.includes(scope));
    if (live && added.length === 0) return live;
    const data: OAuthGrantConsented = {
      grant_id: live?.grant_id ?? randomUUID(),
      account_id: input.account_id,
      client_id: input.client_id,
      scopes: [...current, ...added],
      added,
      at_us: input.now_us,
    };
    await store.append(grantStream(input.account_id, input.client_id), [{ id: randomUUID(), type: 'OAuthGrantConsented', data }], revision);
    return { grant_id: data.grant_id, account_id: data.account_id, client_id: data.client_id, scopes: data.scopes, created_at_us: live?.created_at_us ?? input.now_us, revoked_at_us: null };
  });
}

/** Ends the grant `grantId` if it is still the live one; returns whether it did. */
export function revokeGrant(
  store: EventStore, input: { account_id: string; client_id: string; grant_id: string; reason: GrantRevocationReason; now_us: number },
): Promise<boolean> {
  return retrying(async () => {
    const { grant, revision } = await load(store, input.account_id, input.client_id);
    if (!grant || grant.grant_id !== input.grant_id || grant.revoked_at_us !== null) return false;
    const data: OAuthGrantRevoked = { grant_id: grant.grant_id, account_id: input.account_id, client_id: input.client_id, reason: input.reason, at_us: input.now_us };
    await store.append(grantStream(input.account_id, input.client_id), [{ id: randomUUID(), type: 'OAuthGrantRevoked', data }], revision);
    return true;
  });
}
