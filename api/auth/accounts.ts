// Account status as the auth middleware needs it (user id and status), from the core accounts
// read model (table core_accounts).

import type { AppContext } from '../../commands/context.ts';

export interface AccountStatusRow {
  account_id: string;
  user_id: string;
  status: string;
}

export async function accountStatusOf(ctx: AppContext, accountId: string): Promise<AccountStatusRow | undefined> {
  const result = await ctx.pool.query<AccountStatusRow>({
    name: 'auth_account_status',
    text: 'SELECT account_id, user_id, status FROM core_accounts WHERE account_id = $1',
    values: [accountId],
  });
  return result.rows[0];
}
