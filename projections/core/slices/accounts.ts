// Accounts and balances: AccountOpened/AccountUpdated (account + balance), BalanceChanged.

import type { AccountView, BalanceView } from '../../../domain/views.ts';
import { newestByKey, type JournaledEvent } from '../engineEvents.ts';
import { renderAccount, renderBalance } from '../render.ts';
import { upsertSnapshots, type Batch, type Slice } from './batch.ts';

export const accountsSlice: Slice = {
  name: 'accounts',
  async apply(batch: Batch): Promise<void> {
    const accounts: Array<{ item: AccountView; key: string; at: JournaledEvent }> = [];
    const balances: Array<{ item: BalanceView; key: string; at: JournaledEvent }> = [];
    for (const at of batch.events) {
      const e = at.event;
      if (e.type === 'AccountOpened' || e.type === 'AccountUpdated') {
        accounts.push({ item: e.account, key: e.account.account_id, at });
        balances.push({ item: e.balance, key: e.balance.account_id, at });
      } else if (e.type === 'BalanceChanged') {
        balances.push({ item: e.balance, key: e.balance.account_id, at });
      }
    }

    const newestAccounts = newestByKey(accounts);
    const writtenAccounts = await upsertSnapshots(batch.tx, {
      table: 'core_accounts',
      key: ['account_id'],
      columns: [['account_id', 'text'], ['user_id', 'text'], ['status', 'text'], ['seq', 'bigint'], ['doc', 'json']],
    }, newestAccounts.map(({ item, at }) => ({ account_id: item.account_id, user_id: item.user_id, status: item.status, seq: at.seq, doc: item })));
    const accountWritten = new Set(writtenAccounts.map((row) => row.account_id));
    for (const { item } of newestAccounts) {
      if (accountWritten.has(item.account_id)) batch.changes.push({ kind: 'account', account_id: item.account_id, doc: renderAccount(item) });
    }

    const newestBalances = newestByKey(balances);
    const writtenBalances = await upsertSnapshots(batch.tx, {
      table: 'core_balances',
      key: ['account_id'],
      columns: [['account_id', 'text'], ['user_id', 'text'], ['seq', 'bigint'], ['doc', 'json']],
    }, newestBalances.map(({ item, at }) => ({ account_id: item.account_id, user_id: item.user_id, seq: at.seq, doc: item })));
    const balanceWritten = new Set(writtenBalances.map((row) => row.account_id));
    for (const { item } of newestBalances) {
      if (balanceWritten.has(item.account_id)) batch.changes.push({ kind: 'balance', account_id: item.account_id, doc: renderBalance(item) });
    }
  },
};
