// The ledger entry a fact makes (LedgerEntryRecord): a Transferred fact with an id is one entry of
// its kind, signed into the member's cash; PointsCredited a `rollup` entry; ReferralCredited one
// `referral` entry per party. The read models' fold records them with these.

import { decimalOf, ZERO, type Decimal } from '../money/decimal.ts';
import type { LedgerEntryRecord } from '../readModel/records.ts';
import type { EngineEvent } from '../engine/events.ts';

type Fact<T extends EngineEvent['type']> = Extract<EngineEvent, { type: T }>;

/**
 * The entry of a Transferred fact with an id (`id`, the fact's), for `member`, `signed` into its cash. `eventId` is
 * the event of the transfer's market; `settlementFee` the SettlementFeeBooked fact stated just
 * before it with the same id (a settlement-side fee or its refund), or undefined (a fee of its
 * kind is then a trade fee); `tradeFeeId` the fee entry a trade fee refund gives back.
 */
export function transferEntryOf(
  e: Fact<'Transferred'>,
  id: string,
  member: string,
  signed: Decimal,
  eventId: string | null,
  settlementFee: Fact<'SettlementFeeBooked'> | undefined,
  tradeFeeId: string | null,
): LedgerEntryRecord {
  const isFee = e.kind === 'fee' || e.kind === 'fee_refund';
  return {
    id,
    accountId: member,
    type: e.kind as LedgerEntryRecord['type'],
    amount: signed,
    eventId: settlementFee ? settlementFee.event_id : eventId,
    marketId: e.market_id,
    feeSource: settlementFee ? settlementFee.source : isFee ? 'trade' : null,
    tradeId: e.fill_id,
    settlementId: e.settlement_id,
    paymentId: e.kind === 'deposit' || e.kind === 'withdrawal' ? id : null,
    method: e.method,
    reason: e.reason,
    subMethod: e.sub_method,
    feeId: settlementFee ? settlementFee.fee_id : tradeFeeId,
  };
}

/** The `rollup` entry of PointsCredited. */
export function pointsEntryOf(e: Fact<'PointsCredited'>, eventId: string | null): LedgerEntryRecord {
  return {
    id: e.id,
    accountId: e.account_id,
    type: 'rollup',
    amount: decimalOf(e.amount_risked),
    points: e.points,
    eventId,
    marketId: e.market_id,
    settlementId: e.settlement_id,
  };
}

/** The `referral` entries of ReferralCredited: the referrer's (with the points) and the referee's. */
export function referralEntriesOf(e: Fact<'ReferralCredited'>): [LedgerEntryRecord, LedgerEntryRecord] {
  const parties = { refereeAccountId: e.referee_account_id, referrerAccountId: e.referrer_account_id };
  return [
    {
      id: e.referrer_entry_id,
      accountId: e.referrer_account_id,
      type: 'referral',
      amount: ZERO,
      points: e.points,
      ...parties,
    },
    { id: e.referee_entry_id, accountId: e.referee_account_id, type: 'referral', amount: ZERO, points: 0, ...parties },
  ];
}
