// How facts change an account's record (AccountRecord: details, cash, totals, points). The
// engine's accounts extend it; both the engine and the read models' fold call these (see orders.ts).

import { isZero, minus, plus, plusContractsTimesCents, ZERO, type Decimal } from '../money/decimal.ts';
import type { AccountRecord } from '../readModel/records.ts';
import type { AccountDetails, EngineEvent, TransferKind } from '../engine/events.ts';

export { riskCentsOf } from './risk.ts';

/** An account as AccountOpened states it. */
export function accountRecordOf(fact: Extract<EngineEvent, { type: 'AccountOpened' }>, nowUs: number): AccountRecord {
  return {
    id: fact.account_id,
    userId: fact.user_id,
    status: fact.status,
    firstName: fact.first_name,
    lastName: fact.last_name,
    email: fact.email,
    jurisdiction: fact.jurisdiction,
    feeSchedule: fact.fee_schedule,
    baseFeePercent: fact.base_fee_percent,
    makerFactor: fact.maker_factor,
    takerFactor: fact.taker_factor,
    loyaltyTier: 'rookie',
    points: 0,
    createdAt: fact.created_at,
    updatedAt: nowUs,
    cash: ZERO,
    totals: { deposits: ZERO, withdrawals: ZERO, adjustments: ZERO, fees: ZERO, settlementPnl: ZERO, traded: ZERO },
    tradeCount: 0,
  };
}

/** AccountUpdated (and AccountOpened on an account being opened): every detail as the fact states it. */
export function accountDetailsSet(account: AccountRecord, d: AccountDetails, nowUs: number): void {
  account.status = d.status;
  account.firstName = d.first_name;
  account.lastName = d.last_name;
  account.email = d.email;
  account.jurisdiction = d.jurisdiction;
  account.feeSchedule = d.fee_schedule;
  account.baseFeePercent = d.base_fee_percent;
  account.makerFactor = d.maker_factor;
  account.takerFactor = d.taker_factor;
  account.createdAt = d.created_at;
  account.updatedAt = nowUs;
}

/** LoyaltyTierChanged. */
export function accountTierChanged(account: AccountRecord, tier: string, nowUs: number): void {
  account.loyaltyTier = tier;
  account.updatedAt = nowUs;
}

/**
 * A Transferred fact naming the account's cash: `amount` (>= 0) moved, `signed` into the cash
 * when positive. The cash moves, and the total of its kind.
 */
export function accountTransferred(account: AccountRecord, kind: TransferKind, amount: Decimal, signed: Decimal): void {
  if (!isZero(signed)) account.cash = plus(account.cash, signed);
  const totals = account.totals;
  switch (kind) {
    case 'deposit':
      totals.deposits = plus(totals.deposits, amount);
      break;
    case 'withdrawal':
      totals.withdrawals = plus(totals.withdrawals, amount);
      break;
    case 'adjustment':
      totals.adjustments = plus(totals.adjustments, signed);
      break;
    case 'fee':
      totals.fees = plus(totals.fees, amount);
      break;
    case 'fee_refund':
      totals.fees = minus(totals.fees, amount);
      break;
    case 'trade_pnl':
    case 'settlement':
      totals.settlementPnl = plus(totals.settlementPnl, signed);
      break;
    default: {
      const unknown: never = kind;
      void unknown;
    }
  }
}

/** One side of a Traded fact: `nanos` contracts risking `riskCents` each traded. */
export function accountTraded(account: AccountRecord, nanos: number, riskCents: number): void {
  account.totals.traded = plusContractsTimesCents(account.totals.traded, nanos, riskCents);
  account.tradeCount += 1;
}

/** FillAmended: what the fill risked traded again at its new size and risk. */
export function accountTradeAmended(
  account: AccountRecord,
  nanosBefore: number,
  riskBefore: number,
  nanos: number,
  riskCents: number,
): void {
  account.totals.traded = plusContractsTimesCents(
    plusContractsTimesCents(account.totals.traded, nanosBefore, -riskBefore),
    nanos,
    riskCents,
  );
}

/** PointsCredited and ReferralCredited: loyalty points added. */
export function accountPointsCredited(account: AccountRecord, points: number): void {
  account.points += points;
}
