// Accounts and balances: what the fold changed of them (opened, details, loyalty tier; cash,
// totals and the funds the engine reserves).

import { accountView, balanceView } from '../../../domain/readModel/render.ts';
import { renderAccount, renderBalance } from '../render.ts';
import { snapshotTable, upsertSnapshots, type Batch, type Slice } from './batch.ts';

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
    const writtenAccounts = await upsertSnapshots(
      batch.tx,
      ACCOUNTS_TABLE,
      accounts.map(({ view, seq }) => ({
        account_id: view.account_id,
        user_id: view.user_id,
        status: view.status,
        seq,
        doc: view,
      })),
    );
    const accountWritten = new Set(writtenAccounts.map((row) => row.account_id));
    for (const { view } of accounts) {
      if (accountWritten.has(view.account_id))
        batch.changes.push({ kind: 'account', account_id: view.account_id, doc: renderAccount(view) });
    }

    const balances = [...batch.fold.balances.values()].map(({ record, at }) =>
      balanceView(record, record.funds, at.seq),
    );
    const writtenBalances = await upsertSnapshots(
      batch.tx,
      BALANCES_TABLE,
      balances.map((view) => ({ account_id: view.account_id, user_id: view.user_id, seq: view.seq, doc: view })),
    );
    const balanceWritten = new Set(writtenBalances.map((row) => row.account_id));
    for (const view of balances) {
      if (balanceWritten.has(view.account_id))
        batch.changes.push({ kind: 'balance', account_id: view.account_id, doc: renderBalance(view), seq: view.seq });
    }
  },
};
