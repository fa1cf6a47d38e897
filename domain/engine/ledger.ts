// Money moves as balanced transfers between member cash (AccountState.cash) and the engine's
// other ledger accounts: the outside world, fee revenue and each market's settlement pool. Each
// movement is stated as a Transferred fact (its kind, from, to, amount) and, except the PnL a
// closing trade realises, is one ledger entry. The sum of all accounts is zero after every step,
// and a settled or voided market's pool is zero: the engine process checks both with
// `assertBalanced` before it journals or acknowledges anything.
//
// Every ledger account changes only here (`transfer`: a member's cash through the account's evolve,
// domain/evolve/accounts.ts, which also moves the totals of the transfer's kind; `post`: the other
// side; the state's types make the balances read-only elsewhere), and each change is added to a
// running sum of all accounts,
// so the check costs nothing per account: a transfer posts both sides and leaves the sum as it
// was; a one-sided change (a bug) leaves it off zero. The running sum starts as the full sum of
// the state it is first used on (a fresh, recovered or reloaded state).

import {
  abs,
  decimalText,
  isNegative,
  isZero,
  minus,
  money,
  negated,
  plus,
  ZERO,
  type Decimal,
} from '../money/decimal.ts';
import type { LedgerEntryRecord } from '../readModel/records.ts';
import type { StepContext } from './context.ts';
import { cashAccount, poolAccount, type LedgerAccount, type TransferKind } from './events.ts';
import type { AccountState, EngineState } from './state.ts';
import { accountPointsCredited, accountTransferred } from '../evolve/accounts.ts';
import { movesPosition, positionTransferred } from '../evolve/positions.ts';
import { ledgerPosted, poolSet } from '../evolve/books.ts';

export type Counterparty = { kind: 'outside' } | { kind: 'fees' } | { kind: 'pool'; marketId: string };
export const OUTSIDE: Counterparty = { kind: 'outside' };
export const FEES: Counterparty = { kind: 'fees' };
export const pool = (marketId: string): Counterparty => ({ kind: 'pool', marketId });

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The running sum of every ledger account of each state (see above). */
const runningSums = new WeakMap<EngineState, { value: Decimal }>();

function runningSumOf(state: EngineState): { value: Decimal } {
  let sum = runningSums.get(state);
  if (sum === undefined) {
    sum = { value: ledgerSum(state) };
    runningSums.set(state, sum);
  }
  return sum;
}

/**
 * One side of a movement: adds `amount` (signed) to a member's cash or to another ledger account.
 * Only transfer() (both sides) and a pool's opening and closing call it; anything that posts one
 * side alone puts the books out of balance, which assertBalanced reports.
 */
export function post(state: EngineState, to: AccountState | Counterparty, amount: Decimal): void {
  const sum = runningSumOf(state);
  if ('id' in to) (to as Mutable<AccountState>).cash = plus(to.cash, amount);
  else ledgerPosted(state.ledger, to.kind, to.kind === 'pool' ? to.marketId : null, amount);
  sum.value = plus(sum.value, amount);
}

/** Opens a market's settlement pool at zero, or (`open` false) closes it: what it held leaves the books (it is zero when the market settles). */
export function setPool(state: EngineState, marketId: string, open: boolean): void {
  const sum = runningSumOf(state);
  const held = poolSet(state.ledger, marketId, open);
  if (held !== undefined) sum.value = minus(sum.value, held);
}

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
  ctx: StepContext,
  account: AccountState,
  amount: Decimal,
  counterparty: Counterparty,
  kind: TransferKind,
  entry: LedgerEntryRecord | null,
): void {
  const size = abs(amount);
  const marketId = entry?.marketId ?? (counterparty.kind === 'pool' ? counterparty.marketId : null);
  if (!isZero(amount)) {
    // the member's side through the account's evolve (its cash and totals), kept in the running sum
    runningSumOf(ctx.state).value = plus(runningSumOf(ctx.state).value, amount);
    post(ctx.state, counterparty, negated(amount));
    ctx.balanceChanged(account);
  }
  accountTransferred(account, kind, size, amount);
  if (marketId !== null && movesPosition(kind)) {
    const exposure = account.exposures.get(marketId);
    if (exposure) positionTransferred(exposure, kind, size, amount);
  }
  const cash = cashAccount(account.id);
  const other = ledgerAccountOf(counterparty);
  // out of the member's cash when negative (and for a fee of zero: a fee is always charged)
  const out = isNegative(amount) || (isZero(amount) && kind === 'fee');
  ctx.emit({
    type: 'Transferred',
    id: entry?.id ?? null,
    kind,
    from: out ? cash : other,
    to: out ? other : cash,
    amount: money(size),
    market_id: marketId,
    fill_id: entry?.tradeId ?? null,
    settlement_id: entry?.settlementId ?? null,
    method: entry?.method ?? null,
    reason: entry?.reason ?? null,
    sub_method: entry?.subMethod ?? null,
  });
  if (entry) ctx.entries.push(entry);
}

/** Loyalty points credited for what the account risked in a settled market (a `rollup` entry; no cash moves). */
export function creditPoints(
  ctx: StepContext,
  account: AccountState,
  entry: LedgerEntryRecord & { marketId: string; settlementId: string; points: number },
): void {
  accountPointsCredited(account, entry.points);
  ctx.emit({
    type: 'PointsCredited',
    id: entry.id,
    account_id: account.id,
    market_id: entry.marketId,
    settlement_id: entry.settlementId,
    points: entry.points,
    amount_risked: money(entry.amount),
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
 * Throws LedgerImbalance unless every ledger account sums to zero (the running sum: no work per
 * account) and the pool of every market in `settledMarketIds` (settled or voided since the last
 * check) is zero.
 */
export function assertBalanced(state: EngineState, settledMarketIds: Iterable<string>): void {
  const sum = runningSumOf(state).value;
  if (!isZero(sum)) throw new LedgerImbalance(`the accounts sum to ${decimalText(sum)} instead of 0`);
  for (const marketId of settledMarketIds) {
    const pool = state.ledger.pools.get(marketId) ?? ZERO;
    if (!isZero(pool))
      throw new LedgerImbalance(`settled market ${marketId} has ${decimalText(pool)} left in its pool`);
  }
}

/** Sum of every ledger account, account by account; zero when the books balance. */
export function ledgerSum(state: EngineState): Decimal {
  let sum = plus(state.ledger.outside, state.ledger.feeRevenue);
  for (const value of state.ledger.pools.values()) sum = plus(sum, value);
  for (const account of state.accounts.values()) sum = plus(sum, account.cash);
  return sum;
}
