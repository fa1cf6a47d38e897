// Accounts and balances: auth reads the status, admin reads the account, GET /account/balance
// reads the balance.

import type { AccountView, BalanceView } from '../../../domain/views.ts';
import { renderAccount, renderBalance, type AccountWire, type BalanceWire } from '../render.ts';
import type { Queryable } from './db.ts';

export async function getAccount(db: Queryable, accountId: string): Promise<AccountWire | null> {
  const result = await db.query<{ doc: AccountView }>('SELECT doc FROM core_accounts WHERE account_id = $1', [
    accountId,
  ]);
  const row = result.rows[0];
  return row ? renderAccount(row.doc) : null;
}

export async function getBalance(db: Queryable, accountId: string): Promise<BalanceWire | null> {
  const result = await db.query<{ doc: BalanceView }>('SELECT doc FROM core_balances WHERE account_id = $1', [
    accountId,
  ]);
  const row = result.rows[0];
  return row ? renderBalance(row.doc) : null;
}
