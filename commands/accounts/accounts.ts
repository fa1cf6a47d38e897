// Operator commands on member accounts, each one engine input: open, update, deposit, withdraw,
// adjust. Used by /admin/v1, the demo seeder and the sign-up page. Amounts arrive as whole-cent
// decimal strings (the engine checks them again). Each answers the engine's views or a refusal.

import { randomUUID } from 'node:crypto';
import type { AccountFields, EngineInput } from '../../domain/engine/inputs.ts';
import type { AccountView, BalanceView, LedgerEntryView } from '../../domain/views.ts';
import type { AppContext } from '../context.ts';
import { accepted, type CommandResult } from '../result.ts';
import { submitOperatorInput, type Accepted } from '../operatorInput.ts';
import { setPassword } from './password.ts';

type Ctx = Pick<AppContext, 'engine' | 'writes' | 'store' | 'clock'>;

export interface OpenedAccount {
  account: AccountView;
  balance: BalanceView | null;
  position: bigint;
}

export async function openAccount(
  ctx: Ctx,
  fields: AccountFields,
  password?: string,
): Promise<CommandResult<OpenedAccount>> {
  const accountId = randomUUID();
  const result = await submitOperatorInput(ctx, {
    kind: 'OpenAccount',
    account_id: accountId,
    user_id: randomUUID(),
    fields,
  });
  if (!result.ok) return result;
  const { answer, position } = result.value;
  const account = answer.accounts.find((a) => a.account_id === accountId);
  if (!account) throw new Error('engine accepted OpenAccount without opening the account');
  if (password !== undefined) await setPassword(ctx.store, accountId, password, ctx.clock.nowUs());
  return accepted({ account, balance: answer.balances.find((b) => b.account_id === accountId) ?? null, position });
}

export async function updateAccount(
  ctx: Ctx,
  accountId: string,
  fields: AccountFields,
  password?: string,
): Promise<CommandResult<{ account: AccountView; position: bigint }>> {
  const result = await submitOperatorInput(ctx, { kind: 'UpdateAccount', account_id: accountId, fields });
  if (!result.ok) return result;
  const account = result.value.answer.accounts.find((a) => a.account_id === accountId);
  if (!account) throw new Error('engine accepted UpdateAccount without updating the account');
  if (password !== undefined) await setPassword(ctx.store, accountId, password, ctx.clock.nowUs());
  return accepted({ account, position: result.value.position });
}

export async function deposit(
  ctx: Ctx,
  accountId: string,
  amount: string,
): Promise<CommandResult<{ balance: BalanceView; entry: LedgerEntryView | null }>> {
  const entryId = randomUUID();
  const result = await submitOperatorInput(ctx, { kind: 'Deposit', account_id: accountId, entry_id: entryId, amount });
  if (!result.ok) return result;
  const answer = result.value.answer;
  const balance = answer.balances.find((b) => b.account_id === accountId);
  if (!balance) throw new Error('engine accepted Deposit without changing the balance');
  return accepted({ balance, entry: answer.entries.find((e) => e.id === entryId) ?? null });
}

interface WithdrawalRequest {
  amount: string;
  method: string | null;
  reason: string | null;
  sub_method: string | null;
}

interface LedgerMovement {
  entry: LedgerEntryView;
  balance: BalanceView | null;
}

export function withdraw(
  ctx: Ctx,
  accountId: string,
  request: WithdrawalRequest,
): Promise<CommandResult<LedgerMovement>> {
  return ledgerMovement(ctx, accountId, (entryId) => ({
    kind: 'Withdraw',
    account_id: accountId,
    entry_id: entryId,
    ...request,
  }));
}

export function adjust(
  ctx: Ctx,
  accountId: string,
  amount: string,
  reason: string | null,
): Promise<CommandResult<LedgerMovement>> {
  return ledgerMovement(ctx, accountId, (entryId) => ({
    kind: 'Adjust',
    account_id: accountId,
    entry_id: entryId,
    amount,
    reason,
  }));
}

/** Submits the operator's movement of the account's money under a new ledger entry id; answers the entry and the balance after it. */
async function ledgerMovement(
  ctx: Ctx,
  accountId: string,
  inputOf: (entryId: string) => Extract<EngineInput, { kind: 'Withdraw' | 'Adjust' }>,
): Promise<CommandResult<LedgerMovement>> {
  const entryId = randomUUID();
  const input = inputOf(entryId);
  const result = await submitOperatorInput(ctx, input);
  if (!result.ok) return result;
  return accepted(movementOf(result.value, entryId, accountId, input.kind));
}

/** The entry the engine recorded under our id (or, failing that, the account's last entry), and the balance after it. */
function movementOf({ answer }: Accepted, entryId: string, accountId: string, kind: string): LedgerMovement {
  const entry =
    answer.entries.find((e) => e.id === entryId) ?? answer.entries.filter((e) => e.account_id === accountId).at(-1);
  if (!entry) throw new Error(`engine accepted ${kind} without a ledger entry`);
  return { entry, balance: answer.balances.find((b) => b.account_id === accountId) ?? null };
}
