// Account inputs: open, update (status, profile, fee schedule), deposit, withdraw, adjust.

import {
  compare,
  floorCent,
  isNegative,
  minus,
  negated,
  parseMoneyAmount,
  plus,
  type Decimal,
} from '../money/decimal.ts';
import type { LedgerEntryRecord } from '../readModel/records.ts';
import type { Refusal } from '../errors.ts';
import type { StepContext } from './context.ts';
import type { AccountDetails } from './events.ts';
import { tierFor } from './fees.ts';
import { reservedAtRates } from './funds.ts';
import type { AccountFields, EngineInput } from './inputs.ts';
import { OUTSIDE, transfer } from './ledger.ts';
import { CancellationReasons, cancelLive } from './orders.ts';
import type { AccountState } from './state.ts';
import { accountDetailsSet, accountTierChanged } from '../evolve/accounts.ts';
import { accountStateOf, OPENING_DETAILS } from '../evolve/engineRecords.ts';

type Result = Refusal | null;

type Details = Pick<
  AccountState,
  | 'id'
  | 'status'
  | 'firstName'
  | 'lastName'
  | 'email'
  | 'jurisdiction'
  | 'feeSchedule'
  | 'baseFeePercent'
  | 'makerFactor'
  | 'takerFactor'
  | 'createdAt'
>;

/** Every detail of the account with the fields an input gives (the account itself is changed by the fact: accountDetailsSet). */
function detailsWith(account: Details, fields: AccountFields): AccountDetails {
  return {
    account_id: account.id,
    status: fields.status !== undefined ? fields.status : account.status,
    first_name: fields.first_name !== undefined ? fields.first_name : account.firstName,
    last_name: fields.last_name !== undefined ? fields.last_name : account.lastName,
    email: fields.email !== undefined ? fields.email : account.email,
    jurisdiction: fields.jurisdiction !== undefined ? fields.jurisdiction : account.jurisdiction,
    fee_schedule: fields.fee_schedule !== undefined ? fields.fee_schedule : account.feeSchedule,
    base_fee_percent: fields.base_fee_percent !== undefined ? fields.base_fee_percent : account.baseFeePercent,
    maker_factor: fields.maker_factor !== undefined ? fields.maker_factor : account.makerFactor,
    taker_factor: fields.taker_factor !== undefined ? fields.taker_factor : account.takerFactor,
    created_at: fields.created_at !== undefined ? fields.created_at : account.createdAt,
  };
}

/**
 * After a fee-rate change: rebuilds every live order's reservation at the new rates. When the
 * higher fee reserves no longer fit the cash, the account's newest live orders are cancelled
 * (`insufficient_funds`) until they do, so the available balance never goes negative.
 */
export function rereserve(ctx: StepContext, account: AccountState): void {
  reservedAtRates(ctx.state, account);
  ctx.balanceChanged(account);
  if (isNegative(minus(account.cash, account.liability))) {
    const newestFirst = [...ctx.state.orders.values()].filter((order) => order.accountId === account.id).reverse();
    for (const order of newestFirst) {
      if (!isNegative(minus(account.cash, account.liability))) break;
      cancelLive(ctx, order, CancellationReasons.insufficientFunds);
    }
  }
}

/** Moves the account to the tier its credited points reach. */
export function retier(ctx: StepContext, account: AccountState): void {
  const tier = tierFor(account.points).tier;
  if (tier === account.loyaltyTier) return;
  ctx.emit({ type: 'LoyaltyTierChanged', account_id: account.id, tier });
  accountTierChanged(account, tier, ctx.now);
  ctx.accountChanged(account);
  if (account.feeSchedule === 'loyalty_tier_on_trade') rereserve(ctx, account);
}

export function openAccount(ctx: StepContext, input: Extract<EngineInput, { kind: 'OpenAccount' }>): Result {
  if (ctx.state.accounts.has(input.account_id)) return { code: 'account_exists' };
  const opened = {
    type: 'AccountOpened' as const,
    user_id: input.user_id,
    ...detailsWith({ id: input.account_id, ...OPENING_DETAILS, createdAt: ctx.now }, input.fields),
  };
  const account = accountStateOf(opened, ctx.now);
  ctx.state.accounts.set(account.id, account);
  ctx.changedAccounts.add(account);
  ctx.emit(opened);
  return null;
}

export function updateAccount(ctx: StepContext, input: Extract<EngineInput, { kind: 'UpdateAccount' }>): Result {
  const account = ctx.state.accounts.get(input.account_id);
  if (!account) return { code: 'account_not_found' };
  const feesBefore = `${account.feeSchedule}|${account.baseFeePercent}|${account.makerFactor}|${account.takerFactor}`;
  const updated = { type: 'AccountUpdated' as const, ...detailsWith(account, input.fields) };
  ctx.emit(updated);
  accountDetailsSet(account, updated, ctx.now);
  ctx.accountChanged(account);
  const feesAfter = `${account.feeSchedule}|${account.baseFeePercent}|${account.makerFactor}|${account.takerFactor}`;
  if (feesBefore !== feesAfter) rereserve(ctx, account);
  return null;
}

/** The account an operator's transfer names and its amount (signed for an adjustment), or the refusal. */
function operatorTransfer(
  ctx: StepContext,
  input: { account_id: string; amount: string },
  signed = false,
): { account: AccountState; amount: Decimal } | Refusal {
  const account = ctx.state.accounts.get(input.account_id);
  if (!account) return { code: 'account_not_found' };
  const amount = parseMoneyAmount(input.amount, signed);
  return amount.ok ? { account, amount: amount.value } : amount.error;
}

/** Moves `amount` between the outside world and the account, as its ledger entry (id `entryId`) of `type`. */
function outsideTransfer(
  ctx: StepContext,
  account: AccountState,
  amount: Decimal,
  type: 'deposit' | 'withdrawal' | 'adjustment',
  entryId: string,
  details: Pick<LedgerEntryRecord, 'paymentId' | 'method' | 'reason' | 'subMethod'>,
): void {
  transfer(ctx, account, amount, OUTSIDE, type, { id: entryId, accountId: account.id, type, amount, ...details });
}

export function deposit(ctx: StepContext, input: Extract<EngineInput, { kind: 'Deposit' }>): Result {
  const operator = operatorTransfer(ctx, input);
  if ('code' in operator) return operator;
  outsideTransfer(ctx, operator.account, operator.amount, 'deposit', input.entry_id, { paymentId: input.entry_id });
  return null;
}

export function withdraw(ctx: StepContext, input: Extract<EngineInput, { kind: 'Withdraw' }>): Result {
  const operator = operatorTransfer(ctx, input);
  if ('code' in operator) return operator;
  const { account, amount } = operator;
  const available = floorCent(minus(account.cash, account.liability));
  if (compare(amount, available) > 0) return { code: 'insufficient_funds' };
  outsideTransfer(ctx, account, negated(amount), 'withdrawal', input.entry_id, {
    paymentId: input.entry_id,
    method: input.method,
    reason: input.reason,
    subMethod: input.sub_method,
  });
  return null;
}

export function adjust(ctx: StepContext, input: Extract<EngineInput, { kind: 'Adjust' }>): Result {
  const operator = operatorTransfer(ctx, input, true);
  if ('code' in operator) return operator;
  const { account, amount } = operator;
  if (isNegative(amount) && isNegative(minus(plus(account.cash, amount), account.liability)))
    return { code: 'insufficient_funds' };
  outsideTransfer(ctx, account, amount, 'adjustment', input.entry_id, { reason: input.reason });
  return null;
}
