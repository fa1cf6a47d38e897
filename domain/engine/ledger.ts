// Money moves as balanced transfers between member cash (AccountState.cash) and the engine's
// other ledger accounts: the outside world, fee revenue and each market's settlement pool.
// The sum of all of them is zero after every step, and a settled or voided market's pool is zero:
// the engine process checks both with `assertBalanced` before it journals or acknowledges anything.

import { decimalText, isZero, minus, plus, ZERO, type Decimal } from '../money/decimal.ts';
import type { StepContext } from './context.ts';
import { ledgerEntryView, type LedgerEntryInput } from './snapshots.ts';
import type { AccountState, EngineState } from './state.ts';

export type Counterparty = { kind: 'outside' } | { kind: 'fees' } | { kind: 'pool'; marketId: string };
export const OUTSIDE: Counterparty = { kind: 'outside' };
export const FEES: Counterparty = { kind: 'fees' };
export const pool = (marketId: string): Counterparty => ({ kind: 'pool', marketId });

/** Moves `amount` (signed) from `counterparty` into the member's cash. */
export function transfer(ctx: StepContext, account: AccountState, amount: Decimal, counterparty: Counterparty): void {
  if (isZero(amount)) return;
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

export function recordEntry(ctx: StepContext, entry: LedgerEntryInput): void {
  ctx.ledger.push({ type: 'LedgerEntryRecorded', entry: ledgerEntryView(entry, ctx.now, ctx.seq) });
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
