// Referrals: the operator records that one account referred another; when the referee trades for
// the first time the referrer is credited the referral points in force (the operator's
// `referral_points` setting, stated to the engine by SetReferralPoints; 100 until then), and
// both accounts get a `referral` loyalty entry naming the two of them.

import type { Refusal } from '../errors.ts';
import { ZERO } from '../money/decimal.ts';
import { retier } from './accounts.ts';
import { present } from '../assert.ts';
import { accountPointsCredited } from '../evolve/accounts.ts';
import { referralCredited, referralPointsSet, referralRecorded } from '../evolve/books.ts';
import type { StepContext } from './context.ts';
import type { EngineInput } from './inputs.ts';
import type { AccountState } from './state.ts';

export const DEFAULT_REFERRAL_POINTS = 100;
/** The most points one referral may credit (a bound on the setting). */
export const REFERRAL_POINTS_MAX = 1_000_000;

type Result = Refusal | null;

export function recordReferral(ctx: StepContext, input: Extract<EngineInput, { kind: 'RecordReferral' }>): Result {
  const accounts = ctx.state.accounts;
  if (!accounts.has(input.referrer_account_id)) return { code: 'account_not_found' };
  const referee = accounts.get(input.referee_account_id);
  if (!referee) return { code: 'referee_not_found' };
  if (referee.id === input.referrer_account_id) return { code: 'self_referral' };
  const books = ctx.state.referrals;
  if (books.byReferee.has(referee.id)) return { code: 'referee_already_referred' };
  // the credit is for the first trade: a referee who has traded already would never earn it
  if (referee.tradeCount > 0) return { code: 'referee_already_traded' };
  referralRecorded(books, input.referrer_account_id, referee.id, ctx.now);
  ctx.emit({
    type: 'ReferralRecorded',
    referrer_account_id: input.referrer_account_id,
    referee_account_id: referee.id,
  });
  return null;
}

export function setReferralPoints(
  ctx: StepContext,
  input: Extract<EngineInput, { kind: 'SetReferralPoints' }>,
): Result {
  if (!Number.isSafeInteger(input.points) || input.points < 0 || input.points > REFERRAL_POINTS_MAX) {
    return { code: 'referral_points_invalid', points_max: REFERRAL_POINTS_MAX };
  }
  referralPointsSet(ctx.state.referrals, input.points);
  ctx.emit({ type: 'ReferralPointsSet', points: input.points });
  return null;
}

/** After an account's first fill: credits its referrer, once. */
export function creditReferral(ctx: StepContext, referee: AccountState): void {
  const books = ctx.state.referrals;
  const referral = books.byReferee.get(referee.id);
  if (!referral || referral.credited) return;
  referralCredited(books, referee.id);
  const referrer = present(ctx.state.accounts.get(referral.referrerId), "a referral's referrer is an account");
  const points = books.points;
  const referrerEntryId = ctx.nextId('ledger');
  const refereeEntryId = ctx.nextId('ledger');
  ctx.emit({
    type: 'ReferralCredited',
    referrer_entry_id: referrerEntryId,
    referee_entry_id: refereeEntryId,
    referrer_account_id: referrer.id,
    referee_account_id: referee.id,
    points,
  });
  accountPointsCredited(referrer, points);
  const parties = { refereeAccountId: referee.id, referrerAccountId: referrer.id };
  ctx.entries.push(
    { id: referrerEntryId, accountId: referrer.id, type: 'referral', amount: ZERO, points, ...parties },
    { id: refereeEntryId, accountId: referee.id, type: 'referral', amount: ZERO, points: 0, ...parties },
  );
  ctx.balanceChanged(referrer);
  retier(ctx, referrer);
}
