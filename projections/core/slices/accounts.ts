// Accounts and balances: what the fold changed of them (opened, details, loyalty tier; cash,
// totals and the funds the engine reserves).

import { accountView, balanceView } from '../../../domain/readModel/render.ts';
import { renderAccount, renderBalance } from '../render.ts';
import { snapshotTable, upsertWritten, type Batch, type Slice } from './batch.ts';

/** core_balances: one row per account, its balance as REST shows it. */
export const BALANCES_TABLE = snapshotTable({
  table: 'core_balances',
  key: ['account_id'],
  columns: [
    ['account_id', 'text'],
    ['user_id', 'text'],
  ],
});

/** core_accounts: one row per account. */
const ACCOUNTS_TABLE = snapshotTable({
  table: 'core_accounts',
  key: ['account_id'],
  columns: [
    ['account_id', 'text'],
    ['user_id', 'text'],
    ['status', 'text'],
  ],
});

export const accountsSlice: Slice = {
  name: 'accounts',
  async apply(batch: Batch): Promise<void> {
    const accounts = [...batch.fold.accounts.values()].map(({ record, at }) => ({
      view: accountView(record),
      seq: at.seq,
    }));
    const writtenAccounts = await upsertWritten(batch.tx, ACCOUNTS_TABLE, accounts, ({ view, seq }) => ({
      account_id: view.account_id,
      user_id: view.user_id,
      status: view.status,
      seq,
      doc: view,
    }));
    for (const { view } of writtenAccounts)
      batch.changes.push({ kind: 'account', account_id: view.account_id, doc: renderAccount(view) });

    const balances = [...batch.fold.balances.values()].map(({ record, at }) =>
      balanceView(record, record.funds, at.seq),
    );
    const writtenBalances = await upsertWritten(batch.tx, BALANCES_TABLE, balances, (view) => ({
      account_id: view.account_id,
      user_id: view.user_id,
      seq: view.seq,
      doc: view,
    }));
    for (const view of writtenBalances)
      batch.changes.push({ kind: 'balance', account_id: view.account_id, doc: renderBalance(view), seq: view.seq });
  },
};
