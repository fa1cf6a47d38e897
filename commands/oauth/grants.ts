// Grants as commands: consenting and revoking append events (auditors replay them; the operator's
// grants list is a projection of them). Deciding reads the grant's own stream, so a code is
// never issued on a grant a concurrent revocation ended: appends carry the expected revision
// (commands/handleCommand.ts: a concurrent change is decided again on a fresh read).

import { accepted, type CommandResult } from '../result.ts';
import { append, handleCommand, loadAggregate, type Aggregate } from '../handleCommand.ts';
import {
  evolveGrant,
  grantStream,
  type Grant,
  type GrantRevocationReason,
  type OAuthGrantConsented,
  type OAuthGrantRevoked,
} from '../../domain/oauth/events.ts';
import type { EventStore } from '../../eventstore/port.ts';
import { randomUUID } from 'node:crypto';

const grantOf = (accountId: string, clientId: string): Aggregate<Grant | null> => ({
  stream: grantStream(accountId, clientId),
  initial: () => null,
  evolve: evolveGrant,
});

/** The member's live grant to the client, or null. */
export async function activeGrant(store: EventStore, accountId: string, clientId: string): Promise<Grant | null> {
  const { state: grant } = await loadAggregate(store, grantOf(accountId, clientId));
  return grant && grant.revoked_at_us === null ? grant : null;
}

/** Whether `grantId` is still the member's live grant to the client (a revoked grant is never live again). */
export async function grantIsLive(
  store: EventStore,
  accountId: string,
  clientId: string,
  grantId: string,
): Promise<boolean> {
  return (await activeGrant(store, accountId, clientId))?.grant_id === grantId;
}

export const covers = (grant: Grant | null, scopes: readonly string[]): boolean =>
  grant !== null && grant.revoked_at_us === null && scopes.every((scope) => grant.scopes.includes(scope));

/** The member allowed `scopes`: a new grant, or the live one widened. Answers the grant as it now is. */
export async function consent(
  store: EventStore,
  input: { account_id: string; client_id: string; scopes: readonly string[]; now_us: number },
): Promise<CommandResult<Grant>> {
  const result = await handleCommand(store, grantOf(input.account_id, input.client_id), ({ state: grant }) => {
    const live = grant && grant.revoked_at_us === null ? grant : null;
    const current = live?.scopes ?? [];
    const added = input.scopes.filter((scope) => !current.includes(scope));
    if (live && added.length === 0) return append([], undefined);
    const data: OAuthGrantConsented = {
      grant_id: live?.grant_id ?? randomUUID(),
      account_id: input.account_id,
      client_id: input.client_id,
      scopes: [...current, ...added],
      added,
      at_us: input.now_us,
    };
    return append([{ type: 'OAuthGrantConsented', data }], undefined);
  });
  return result.ok ? accepted(result.value.state as Grant) : result;
}

/** Ends the grant `grantId` if it is still the live one; answers whether it did. */
export async function revokeGrant(
  store: EventStore,
  input: { account_id: string; client_id: string; grant_id: string; reason: GrantRevocationReason; now_us: number },
): Promise<CommandResult<boolean>> {
  const result = await handleCommand(store, grantOf(input.account_id, input.client_id), ({ state: grant }) => {
    if (!grant || grant.grant_id !== input.grant_id || grant.revoked_at_us !== null) return append([], false);
    const data: OAuthGrantRevoked = {
      grant_id: grant.grant_id,
      account_id: input.account_id,
      client_id: input.client_id,
      reason: input.reason,
      at_us: input.now_us,
    };
    return append([{ type: 'OAuthGrantRevoked', data }], true);
  });
  return result.ok ? accepted(result.value.value) : result;
}
