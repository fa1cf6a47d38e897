// Operator commands on settlement-side fees and referrals: a market group's percent
// (`group_fee_percent`, for markets sharing a grouping_id, listed or not yet) and who referred
// whom. One engine input each; the answer is what the engine changed, or a refusal.

import type { FeeScope } from '../../domain/engine/events.ts';
import type { StepAnswer } from '../../domain/engine/engine.ts';
import type { MarketStateView, SportEventView } from '../../domain/views.ts';
import { accepted, type CommandResult } from '../result.ts';
import { submitOperatorInput, type EngineCaller } from '../operatorInput.ts';

interface FeeSet {
  /** The markets the percent now applies to, as the engine left them. */
  markets: MarketStateView[];
  /** The event whose percent changed (scope `event`). */
  sportEvents: SportEventView[];
  position: bigint;
}

/** Sets (or with null removes) the settlement-side percent of a market, an event or a market group. */
export async function setSettlementFee(
  caller: EngineCaller,
  scope: FeeScope,
  scopeId: string,
  percent: number | null,
): Promise<CommandResult<FeeSet>> {
  const result = await submitOperatorInput(caller, { kind: 'SetSettlementFee', scope, scope_id: scopeId, percent });
  if (!result.ok) return result;
  const { markets, sportEvents } = result.value.answer;
  return accepted({ markets, sportEvents, position: result.value.position });
}

type Referral = NonNullable<StepAnswer['referral']>;

/** Records that `referrerId` referred `refereeId` (credited when the referee first trades). */
export async function recordReferral(
  caller: EngineCaller,
  referrerId: string,
  refereeId: string,
): Promise<CommandResult<Referral>> {
  const result = await submitOperatorInput(caller, {
    kind: 'RecordReferral',
    referrer_account_id: referrerId,
    referee_account_id: refereeId,
  });
  if (!result.ok) return result;
  const referral = result.value.answer.referral;
  if (!referral) throw new Error('engine accepted RecordReferral without recording a referral');
  return accepted(referral);
}
