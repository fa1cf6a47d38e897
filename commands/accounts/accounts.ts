// Operator commands on member accounts, each one engine input: open, update, deposit, withdraw,
// adjust. Used by /admin/v1 and by the demo seeder. Amounts arrive validated (whole cents).

import { randomUUID } from 'node:crypto';
import type { AccountFields } from '../../domain/engine/inputs.ts';
import type { AccountView, BalanceView, LedgerEntryView } from '../../domain/views.ts';
import type { AppContext } from '../context.ts';
import { lastEvent, submitOrThrow } from './engineCall.ts';
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
  const opened = lastEvent(reply.events, 'AccountOpened', (e) => e.account.account_id === accountId);
  if (!opened) throw new Error('engine accepted OpenAccount without an AccountOpened event');
  if (password !== undefined) await setPassword(ctx.store, accountId, password, ctx.clock.nowUs());
  return { account: opened.account, balance: opened.balance, position: reply.position };
}

export async function updateAccount(ctx: Ctx, accountId: string, fields: AccountFields, password?: string): Promise<{ account: AccountView; position: bigint }> {
  const reply = await submitOrThrow(ctx, { kind: 'UpdateAccount', account_id: accountId, fields });
  const updated = lastEvent(reply.events, 'AccountUpdated', (e) => e.account.account_id === accountId);
  if (!updated) throw new Error('engine accepted UpdateAccount without an AccountUpdated event');
  if (password !== undefined) await setPassword(ctx.store, accountId, password, ctx.clock.nowUs());
  return { account: updated.account, position: reply.position };
}

export async function deposit(ctx: Ctx, accountId: string, amount: string): Promise<{ balance: BalanceView; entry: LedgerEntryView | null }> {
  const entryId = randomUUID();
  const reply = await submitOrThrow(ctx, { kind: 'Deposit', account_id: accountId, entry_id: entryId, amount });
  const balance = lastEvent(reply.events, 'BalanceChanged', (e) => e.balance.account_id === accountId);
  if (!balance) throw new Error('engine accepted Deposit without a BalanceChanged event');
  const entry = lastEvent(reply.events, 'LedgerEntryRecorded', (e) => e.entry.id === entryId) ?? null;
  return { balance: balance.balance, entry: entry?.entry ?? null };
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
  const entry = ledgerEntryOf(reply.events, entryId, accountId);
  if (!entry) throw new Error('engine accepted Withdraw without a ledger entry');
  const balance = lastEvent(reply.events, 'BalanceChanged', (e) => e.balance.account_id === accountId);
  return { entry, balance: balance?.balance ?? null };
}

export async function adjust(ctx: Ctx, accountId: string, amount: string, reason: string | null): Promise<{ entry: LedgerEntryView; balance: BalanceView | null }> {
  const entryId = randomUUID();
  const reply = await submitOrThrow(ctx, { kind: 'Adjust', account_id: accountId, entry_id: entryId, amount, reason });
  const entry = ledgerEntryOf(reply.events, entryId, accountId);
  if (!entry) throw new Error('engine accepted Adjust without a ledger entry');
  const balance = lastEvent(reply.events, 'BalanceChanged', (e) => e.balance.account_id === accountId);
  return { entry, balance: balance?.balance ?? null };
}

/** The entry the engine recorded under our id (or, failing that, the account's last entry). */
function ledgerEntryOf(events: Parameters<typeof lastEvent>[0], entryId: string, accountId: string): LedgerEntryView | undefined {
  return (
    lastEvent(events, 'LedgerEntryRecorded', (e) => e.entry.id === entryId)?.entry ??
    lastEvent(events, 'LedgerEntryRecorded', (e) => e.entry.account_id === accountId)?.entry
  );
}
