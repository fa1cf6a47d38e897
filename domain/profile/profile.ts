// The profile aggregate (stream `profile-{account_id}`): handle, avatar and leaderboard consent.
// A decider in the usual shape: decide(command, state) → events, evolve(state, event) → state.
// Handle availability is not decided here: the command handler reserves the handle through its
// own stream (`handle-{handle}`), so two accounts can never both take one.

import type { Avatar } from '../avatar/avatar.ts';
import { DomainError } from '../errors.ts';
import type { Jurisdiction } from '../views.ts';
import { HANDLE_CHANGE_WINDOW_US, foldHandle, handleRuleBroken, type HandleLists } from './handle.ts';

export type ProfileEvent =
  | {
      type: 'HandleChanged';
      account_id: string;
      handle: string;
      previous_handle: string | null;
      generated: boolean;
      at_us: number;
    }
  | { type: 'AvatarChanged'; account_id: string; avatar: Avatar; generated: boolean; at_us: number }
  | { type: 'LeaderboardOptInChanged'; account_id: string; opt_in: boolean; at_us: number };

export const profileStream = (accountId: string) => `profile-${accountId}`;
export const handleStream = (handle: string) => `handle-${handle}`;

export interface ProfileState {
  handle: string | null;
  /** Last change chosen by the member (generated handles do not start the 30-day window). */
  handle_changed_at_us: number | null;
  avatar: Avatar | null;
  /** Explicit consent; null until the member (or a join) recorded one: the default then applies. */
  opt_in: boolean | null;
  opt_in_changed_at_us: number | null;
}

export const initialProfile = (): ProfileState => ({
  handle: null,
  handle_changed_at_us: null,
  avatar: null,
  opt_in: null,
  opt_in_changed_at_us: null,
});

/** evolve never throws: replay can never fail. */
export function evolveProfile(state: ProfileState, event: ProfileEvent): ProfileState {
  switch (event.type) {
    case 'HandleChanged':
      return {
        ...state,
        handle: event.handle,
        handle_changed_at_us: event.generated ? state.handle_changed_at_us : event.at_us,
      };
    case 'AvatarChanged':
      return { ...state, avatar: event.avatar };
    case 'LeaderboardOptInChanged':
      return { ...state, opt_in: event.opt_in, opt_in_changed_at_us: event.at_us };
    default:
      return state;
  }
}

/** When the leaderboard launched: accounts created earlier start opted out. */
export const LEADERBOARD_LAUNCH_US = Date.UTC(2025, 5, 1) * 1000; // 2025-06-01T00:00:00Z

/**
 * Jurisdiction defaults for accounts created after the launch: the United States deployment
 * lists members unless they leave; the Canadian one asks first (express consent for showing
 * personal information publicly), so members there start opted out.
 */
export const OPT_IN_DEFAULT_BY_JURISDICTION: Record<Jurisdiction, boolean> = { us: true, ca: false };

export function defaultOptIn(account: { jurisdiction: Jurisdiction; created_at: number }): boolean {
  if (account.created_at < LEADERBOARD_LAUNCH_US) return false;
  return OPT_IN_DEFAULT_BY_JURISDICTION[account.jurisdiction] ?? false;
}

export function effectiveOptIn(
  state: ProfileState,
  account: { jurisdiction: Jurisdiction; created_at: number },
): boolean {
  return state.opt_in ?? defaultOptIn(account);
}

/** End of the 30-day window, or null when the handle may be changed now. */
export function handleChangeableAtUs(state: ProfileState, nowUs: number): number | null {
  if (state.handle_changed_at_us === null) return null;
  const at = state.handle_changed_at_us + HANDLE_CHANGE_WINDOW_US;
  return at > nowUs ? at : null;
}

export interface UpdateProfile {
  account_id: string;
  handle?: string;
  avatar?: Avatar;
  leaderboard_opt_in?: boolean;
  now_us: number;
  /** Used only when joining without a handle or avatar; supplied by the handler. */
  generated: { handle: string; avatar: Avatar };
}

interface ProfileDecision {
  events: ProfileEvent[];
  /** The handle the member is taking (chosen or generated), which must be reserved first. */
  claim: string | null;
  /** The handle given up, to release after the change is recorded. */
  release: string | null;
}

/**
 * Rules for handle (see handle.ts), then the 30-day window; a re-sent current handle is no change.
 * Joining (`leaderboard_opt_in: true`) with no handle yet takes the generated one; with no avatar
 * yet, the generated avatar. Throws a handle_refused DomainError naming the broken rule; nothing is applied then.
 */
export function decideProfile(command: UpdateProfile, state: ProfileState, lists: HandleLists): ProfileDecision {
  const events: ProfileEvent[] = [];
  const { account_id, now_us } = command;
  let claim: string | null = null;
  let release: string | null = null;
  let handleAfter = state.handle;

  if (command.handle !== undefined) {
    const handle = foldHandle(command.handle);
    const broken = handleRuleBroken(handle, lists);
    if (broken) throw new DomainError({ code: 'handle_refused', rule: broken });
    if (handle !== state.handle) {
      if (handleChangeableAtUs(state, now_us) !== null)
        throw new DomainError({ code: 'handle_refused', rule: 'window' });
      events.push({
        type: 'HandleChanged',
        account_id,
        handle,
        previous_handle: state.handle,
        generated: false,
        at_us: now_us,
      });
      claim = handle;
      release = state.handle;
      handleAfter = handle;
    }
  }

  const joining = command.leaderboard_opt_in === true;
  if (joining && handleAfter === null) {
    events.push({
      type: 'HandleChanged',
      account_id,
      handle: command.generated.handle,
      previous_handle: null,
      generated: true,
      at_us: now_us,
    });
    claim = command.generated.handle;
  }

  if (command.avatar !== undefined) {
    const same =
      state.avatar &&
      state.avatar.style === command.avatar.style &&
      state.avatar.palette === command.avatar.palette &&
      state.avatar.seed === command.avatar.seed;
    if (!same)
      events.push({ type: 'AvatarChanged', account_id, avatar: command.avatar, generated: false, at_us: now_us });
  } else if (joining && state.avatar === null) {
    events.push({
      type: 'AvatarChanged',
      account_id,
      avatar: command.generated.avatar,
      generated: true,
      at_us: now_us,
    });
  }

  if (command.leaderboard_opt_in !== undefined && command.leaderboard_opt_in !== state.opt_in) {
    events.push({ type: 'LeaderboardOptInChanged', account_id, opt_in: command.leaderboard_opt_in, at_us: now_us });
  }

  return { events, claim, release };
}
