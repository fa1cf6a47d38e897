// Accounts and balances: auth reads the status, admin reads the account, GET /account/balance
// reads the balance.

import type { AccountView, BalanceView } from '../../../domain/views.ts';
import { renderAccount, renderBalance, type AccountWire, type BalanceWire } from '../render.ts';
import { cursorParts, limitOf, pageFrom, type PageRequest, type Queryable } from './db.ts';

export async function getAccount(db: Queryable, accountId: string): Promise<AccountWire | null> {
  const result = await db.query<{ doc: AccountView }>('SELECT doc FROM core_accounts WHERE account_id = $1', [accountId]);
  const row = result.rows[0];
  return row ? renderAccount(row.doc) : null;
}

export async function getAccountByUserId(db: Queryable, userId: string): Promise<AccountWire | null> {
  const result = await db.query<{ doc: AccountView }>('SELECT doc FROM core_accounts WHERE user_id = $1 ORDER BY account_id LIMIT 1', [userId]);
  const row = result.rows[0];
  return row ? renderAccount(row.doc) : null;
}

/** Accounts by id (unknown ids left out), in account_id order. */
export async function getAccounts(db: Queryable, accountIds: readonly string[]): Promise<AccountWire[]> {
  if (accountIds.length === 0) return [];
  const result = await db.query<{ doc: AccountView }>('SELECT doc FROM core_accounts WHERE account_id = ANY($1::text[]) ORDER BY account_id', [[...accountIds]]);
  return result.rows.map((row) => renderAccount(row.doc));
}

/** Every account, by account_id, keyset paged (admin listings). */
export async function listAccounts(db: Queryable, page: PageRequest = {}): Promise<{ cursor: string | null; accounts: AccountWire[] }> {
  const limit = limitOf(page);
  const after = cursorParts(page.cursor, ['text']);
  const result = await db.query<{ doc: AccountView; key_account: string }>(
    `SELECT doc, account_id AS key_account FROM core_accounts ${after ? 'WHERE account_id > $2' : ''} ORDER BY account_id LIMIT $1`,
    after ? [limit + 1, after[0]] : [limit + 1],
  );
  const { page: rows, cursor } = pageFrom(result.rows, limit, (row) => [row.key_account]);
  return { cursor, accounts: rows.map((row) => renderAccount(row.doc)) };
}

export async function getBalance(db: Queryable, accountId: string): Promise<BalanceWire | null> {
  const result = await db.query<{ doc: BalanceView }>('SELECT doc FROM core_balances WHERE account_id = $1', [accountId]);
  const row = result.rows[0];
  return row ? renderBalance(row.doc) : null;
}
