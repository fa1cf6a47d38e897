// PATCH /me/profile as a command: read the profile stream, decide, reserve the handle through its
// own stream, append with the expected revision (commands/handleCommand.ts).
//
// Handle uniqueness: stream `handle-{handle}` holds HandleReserved / HandleReleased. Taking a
// handle appends HandleReserved with the stream's revision as read (`no_stream` for a handle
// never used), so of two concurrent takers exactly one append succeeds; the other sees
// WrongExpectedRevision and answers `Handle is taken`. A handle given up is released after the
// change is recorded and may then be taken again.

import { randomBytes, randomUUID } from 'node:crypto';
import type { Avatar } from '../../domain/avatar/avatar.ts';
import { generatedAvatar } from '../../domain/avatar/avatar.ts';
import { DomainError } from '../../domain/errors.ts';
import { generatedHandle, handleRuleBroken, type HandleLists } from '../../domain/profile/handle.ts';
import {
  decideProfile,
  evolveProfile,
  handleStream,
  initialProfile,
  profileStream,
  type ProfileEvent,
  type ProfileState,
} from '../../domain/profile/profile.ts';
import {
  WrongExpectedRevision,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
} from '../../eventstore/port.ts';
import type { AppContext } from '../context.ts';
import { accepted, refused, type CommandResult } from '../result.ts';
import { append, decideAgain, handleCommand, loadAggregate, refuse, type Aggregate } from '../handleCommand.ts';

/** Bound on optimistic retries (a concurrent change of the same profile, or a generated handle that was taken). */
const ATTEMPTS_MAX = 8;

export interface ProfilePatch {
  handle?: string;
  avatar?: Avatar;
  leaderboard_opt_in?: boolean;
}

interface LoadedProfile {
  state: ProfileState;
  revision: ExpectedRevision;
}

type HandleEvent =
  | { type: 'HandleReserved'; handle: string; account_id: string; at_us: number }
  | { type: 'HandleReleased'; handle: string; account_id: string; at_us: number };

const profileOf = (accountId: string): Aggregate<ProfileState> => ({
  stream: profileStream(accountId),
  initial: initialProfile,
  evolve: (state, record) => evolveProfile(state, { type: record.type, ...(record.data as object) } as ProfileEvent),
});

export async function loadProfile(store: EventStore, accountId: string): Promise<LoadedProfile> {
  return loadAggregate(store, profileOf(accountId));
}

interface HandleHolder {
  holder: string | null;
  revision: ExpectedRevision;
}

async function handleHolder(store: EventStore, handle: string): Promise<HandleHolder> {
  const records: RecordedEvent[] = await store.readStream(handleStream(handle));
  const last = records[records.length - 1];
  if (!last) return { holder: null, revision: 'no_stream' };
  const data = last.data as HandleEvent;
  return { holder: last.type === 'HandleReserved' ? data.account_id : null, revision: last.revision };
}

/** The account holding a handle now, or null. */
export async function handleHolderOf(store: EventStore, handle: string): Promise<string | null> {
  return (await handleHolder(store, handle)).holder;
}

/** Reserves the handle for the account; false when another account holds it (or won the race). */
async function reserveHandle(store: EventStore, handle: string, accountId: string, nowUs: number): Promise<boolean> {
  const { holder, revision } = await handleHolder(store, handle);
  if (holder === accountId) return true;
  if (holder !== null) return false;
  try {
    const data: HandleEvent = { type: 'HandleReserved', handle, account_id: accountId, at_us: nowUs };
    await store.append(handleStream(handle), [{ id: randomUUID(), type: data.type, data }], revision);
    return true;
  } catch (err) {
    if (err instanceof WrongExpectedRevision) return false;
    throw err;
  }
}

async function releaseHandle(store: EventStore, handle: string, accountId: string, nowUs: number): Promise<void> {
  const { holder, revision } = await handleHolder(store, handle);
  if (holder !== accountId) return;
  const data: HandleEvent = { type: 'HandleReleased', handle, account_id: accountId, at_us: nowUs };
  try {
    await store.append(handleStream(handle), [{ id: randomUUID(), type: data.type, data }], revision);
  } catch (err) {
    if (!(err instanceof WrongExpectedRevision)) throw err;
  }
}

function generated(lists: HandleLists): { handle: string; avatar: Avatar } {
  for (;;) {
    const handle = generatedHandle(randomBytes(8));
    if (handleRuleBroken(handle, lists) === null) return { handle, avatar: generatedAvatar(randomBytes(10)) };
  }
}

interface ProfileUpdated {
  state: ProfileState;
  /** Global position of the last event written, when anything was written. */
  position: bigint | null;
}

/** Applies the patch, or refuses naming the broken rule (nothing is applied then). */
export async function updateProfile(
  ctx: AppContext,
  accountId: string,
  patch: ProfilePatch,
): Promise<CommandResult<ProfileUpdated>> {
  const settings = ctx.settings.get();
  const lists: HandleLists = { reserved_handles: settings.reserved_handles, blocked_handles: settings.blocked_handles };
  let release: string | null = null;
  let nowUs = ctx.clock.nowUs();
  let result;
  try {
    result = await handleCommand(
      ctx.store,
      profileOf(accountId),
      async ({ state }, attempt) => {
        nowUs = ctx.clock.nowUs();
        let decision: ReturnType<typeof decideProfile>;
        try {
          decision = decideProfile(
            { account_id: accountId, ...patch, now_us: nowUs, generated: generated(lists) },
            state,
            lists,
          );
        } catch (err) {
          // the domain's decider throws the rule a patch breaks: the command answers it
          if (err instanceof DomainError) return refuse(err.refusal);
          throw err;
        }
        release = decision.release;
        if (decision.events.length === 0) return append([], undefined);
        const claimIsGenerated = decision.claim !== null && decision.claim !== patch.handle?.toLowerCase();
        if (decision.claim !== null && !(await reserveHandle(ctx.store, decision.claim, accountId, nowUs))) {
          if (claimIsGenerated && attempt < ATTEMPTS_MAX) return decideAgain;
          return refuse({ code: 'handle_refused', rule: 'taken' });
        }
        // A concurrent change of this profile makes the handler decide again on the new state. The
        // reservation is kept (the winner may be a request of this same account that relies on it).
        return append(
          decision.events.map((event) => {
            const { type, ...data } = event;
            return { type, data };
          }),
          undefined,
        );
      },
      { attemptsMax: ATTEMPTS_MAX },
    );
  } catch (err) {
    if (err instanceof WrongExpectedRevision) return refused({ code: 'profile_changed_concurrently' });
    throw err;
  }
  if (!result.ok) return result;
  const { state, position } = result.value;
  if (position === null) return accepted({ state, position: null });
  if (release !== null) await releaseHandle(ctx.store, release, accountId, nowUs);
  ctx.writes.note(accountId, position);
  return accepted({ state, position });
}
