// Operator commands on member accounts, each one engine input: open, update, deposit, withdraw,
// adjust. Used by /admin/v1 and by the demo seeder. Amounts arrive validated (whole cents).

import { randomUUID } from 'node:crypto';
import type { AccountFields } from '../../domain/engine/inputs.ts';
import type { AccountView, BalanceView, LedgerEntryView } from '../../domain/views.ts';
import type { AppContext } from '../context.ts';
import type { EngineReply } from '../engine/gateway.ts';
import { answerOf, submitOrThrow } from './engineCall.ts';
import { setPassword } from './password.ts';

type Ctx = Pick<AppContext, 'engine' | 'writes' | 'store' | 'clock'>;

export interface OpenedAccount {
  account: AccountView;
  balance: BalanceView | null;
  position: bigint;
}

export async function openAccount(ctx: Ctx, fields: AccountFields, password?: string): Promise<OpenedAccount> {
  const accountId = randomUUID();
  const reply = await submitOrThrow(ctx, { kind: 'OpenAccount', account_id: accountId, user_id: randomUUID(), fields });
  const answer = answerOf(reply);
  const account = answer.accounts.find((a) => a.account_id === accountId);
  if (!account) throw new Error('engine accepted OpenAccount without opening the account');
  if (password !== undefined) await setPassword(ctx.store, accountId, password, ctx.clock.nowUs());
  return { account, balance: answer.balances.find((b) => b.account_id === accountId) ?? null, position: reply.position };
}

export async function updateAccount(ctx: Ctx, accountId: string, fields: AccountFields, password?: string): Promise<{ account: AccountView; position: bigint }> {
  const reply = await submitOrThrow(ctx, { kind: 'UpdateAccount', account_id: accountId, fields });
  const account = answerOf(reply).accounts.find((a) => a.account_id === accountId);
  if (!account) throw new Error('engine accepted UpdateAccount without updating the account');
  if (password !== undefined) await setPassword(ctx.store, accountId, password, ctx.clock.nowUs());
  return { account, position: reply.position };
}

export async function deposit(ctx: Ctx, accountId: string, amount: string): Promise<{ balance: BalanceView; entry: LedgerEntryView | null }> {
  const entryId = randomUUID();
  const reply = await submitOrThrow(ctx, { kind: 'Deposit', account_id: accountId, entry_id: entryId, amount });
  const answer = answerOf(reply);
  const balance = answer.balances.find((b) => b.account_id === accountId);
  if (!balance) throw new Error('engine accepted Deposit without changing the balance');
  return { balance, entry: answer.entries.find((e) => e.id === entryId) ?? null };
}

export interface WithdrawalRequest {
  amount: string;
  method: string | null;
  reason: string | null;
  sub_method: string | null;
}

export async function withdraw(ctx: Ctx, accountId: string, request: WithdrawalRequest): Promise<{ entry: LedgerEntryView; balance: BalanceView | null }> {
  const entryId = randomUUID();
  const reply = await submitOrThrow(ctx, { kind: 'Withdraw', account_id: accountId, entry_id: entryId, ...request });
  const entry = ledgerEntryOf(reply, entryId, accountId);
  if (!entry) throw new Error('engine accepted Withdraw without a ledger entry');
  return { entry, balance: answerOf(reply).balances.find((b) => b.account_id === accountId) ?? null };
}

export async function adjust(ctx: Ctx, accountId: string, amount: string, reason: string | null): Promise<{ entry: LedgerEntryView; balance: BalanceView | null }> {
  const entryId = randomUUID();
  const reply = await submitOrThrow(ctx, { kind: 'Adjust', account_id: accountId, entry_id: entryId, amount, reason });
  const entry = ledgerEntryOf(reply, entryId, accountId);
  if (!entry) throw new Error('engine accepted Adjust without a ledger entry');
  return { entry, balance: answerOf(reply).balances.find((b) => b.account_id === accountId) ?? null };
}

/** The entry the engine recorded under our id (or, failing that, the account's last entry). */
function ledgerEntryOf(reply: EngineReply, entryId: string, accountId: string): LedgerEntryView | undefined {
  const entries = answerOf(reply).entries;
  return entries.find((e) => e.id === entryId) ?? entries.filter((e) => e.account_id === accountId).at(-1);
}
