// Money moves as balanced transfers between member cash (AccountState.cash) and the engine's
// other ledger accounts: the outside world, fee revenue and each market's settlement pool. Each
// movement is stated as a Transferred fact (its kind, from, to, amount) and, except the PnL a
// closing trade realises, is one ledger entry. The sum of all accounts is zero after every step,
// and a settled or voided market's pool is zero: the engine process checks both with
// `assertBalanced` before it journals or acknowledges anything.

import { abs, decimalText, isNegative, isZero, minus, money, plus, ZERO, type Decimal } from '../money/decimal.ts';
import type { LedgerEntryRecord } from '../readModel/records.ts';
import type { StepContext } from './context.ts';
import { cashAccount, poolAccount, type LedgerAccount, type TransferKind } from './events.ts';
import type { AccountState, EngineState } from './state.ts';

export type Counterparty = { kind: 'outside' } | { kind: 'fees' } | { kind: 'pool'; marketId: string };
export const OUTSIDE: Counterparty = { kind: 'outside' };
export const FEES: Counterparty = { kind: 'fees' };
export const pool = (marketId: string): Counterparty => ({ kind: 'pool', marketId });

function ledgerAccountOf(counterparty: Counterparty): LedgerAccount {
  return counterparty.kind === 'pool' ? poolAccount(counterparty.marketId) : counterparty.kind;
}

/**
 * Moves `amount` (signed: into the member's cash when positive) from `counterparty`, states it as
 * a Transferred fact of `kind`, and records `entry`, the ledger entry it makes (null only for
 * `trade_pnl`). A zero amount moves nothing but is stated and recorded all the same (a fee of
 * 0.00 is still a fee entry).
 */
export function transfer(
  ctx: StepContext, account: AccountState, amount: Decimal, counterparty: Counterparty, kind: TransferKind, entry: LedgerEntryRecord | null,
): void {
  if (!isZero(amount)) {
    const ledger = ctx.state.ledger;
    account.cash = plus(account.cash, amount);
    switch (counterparty.kind) {
      case 'outside':
        ledger.outside = minus(ledger.outside, amount);
        break;
      case 'fees':
        ledger.feeRevenue = minus(ledger.feeRevenue, amount);
        break;
      case 'pool':
        ledger.pools.set(counterparty.marketId, minus(ledger.pools.get(counterparty.marketId) ?? ZERO, amount));
        break;
      default: {
        const never: never = counterparty;
        throw new Error(`unknown counterparty ${String(never)}`);
      }
    }
    ctx.balanceChanged(account);
  }
  const cash = cashAccount(account.id);
  const other = ledgerAccountOf(counterparty);
  // out of the member's cash when negative (and for a fee of zero: a fee is always charged)
  const out = isNegative(amount) || (isZero(amount) && kind === 'fee');
  ctx.emit({
    type: 'Transferred', id: entry?.id ?? null, kind, from: out ? cash : other, to: out ? other : cash, amount: money(abs(amount)),
    market_id: entry?.marketId ?? (counterparty.kind === 'pool' ? counterparty.marketId : null), fill_id: entry?.tradeId ?? null,
    settlement_id: entry?.settlementId ?? null, method: entry?.method ?? null, reason: entry?.reason ?? null, sub_method: entry?.subMethod ?? null,
  });
  if (entry) ctx.entries.push(entry);
}

/** Loyalty points credited for what the account risked in a settled market (a `rollup` entry; no cash moves). */
export function creditPoints(ctx: StepContext, account: AccountState, entry: LedgerEntryRecord & { marketId: string; settlementId: string; points: number }): void {
  ctx.emit({
    type: 'PointsCredited', id: entry.id, account_id: account.id, market_id: entry.marketId, settlement_id: entry.settlementId,
    points: entry.points, amount_risked: money(entry.amount),
  });
  ctx.entries.push(entry);
}

/** The books do not balance: a bug, never a business refusal. The engine stops on it. */
export class LedgerImbalance extends Error {
  constructor(message: string) {
    super(`ledger out of balance: ${message}`);
    this.name = 'LedgerImbalance';
  }
}

/**
 * Throws LedgerImbalance unless every ledger account sums to zero and the pool of every market
 * in `settledMarketIds` (settled or voided since the last check) is zero.
 */
export function assertBalanced(state: EngineState, settledMarketIds: Iterable<string>): void {
  const sum = ledgerSum(state);
  if (!isZero(sum)) throw new LedgerImbalance(`the accounts sum to ${decimalText(sum)} instead of 0`);
  for (const marketId of settledMarketIds) {
    const pool = state.ledger.pools.get(marketId) ?? ZERO;
    if (!isZero(pool)) throw new LedgerImbalance(`settled market ${marketId} has ${decimalText(pool)} left in its pool`);
  }
}

/** Sum of every ledger account; zero when the books balance. */
export function ledgerSum(state: EngineState): Decimal {
  let sum = plus(state.ledger.outside, state.ledger.feeRevenue);
  for (const value of state.ledger.pools.values()) sum = plus(sum, value);
  for (const account of state.accounts.values()) sum = plus(sum, account.cash);
  return sum;
}
