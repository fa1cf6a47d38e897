// Account status as the auth middleware needs it (user id and status), from the core accounts
// read model (table core_accounts). Kept in an in-process cache that the projection runner's
// change announcements (kind `account`, after each commit) keep current, so a request costs no
// query once its account is known. Without announcements (a runner that does not offer
// onChange) every request reads the table.

import type { AppContext } from '../../commands/context.ts';
import type { ProjectionChange } from '../../projections/projector.ts';

export interface AccountStatusRow {
  account_id: string;
  user_id: string;
  status: string;
}

type ChangeSource = { onChange?: (listener: (changes: ProjectionChange[]) => void) => () => void };

const CACHE_ENTRIES_MAX = 100_000;

class AccountStatusCache {
  private readonly rows = new Map<string, AccountStatusRow>();
  /** Bumped per account on every announcement: a table read started earlier must not overwrite it. */
  private readonly generations = new Map<string, number>();
  readonly live: boolean;

  constructor(private readonly ctx: AppContext) {
    const source = ctx.projections as unknown as ChangeSource;
    this.live = typeof source.onChange === 'function';
    source.onChange?.((changes) => {
      for (const change of changes) {
        if (change.kind !== 'account') continue;
        const doc = change.doc as Partial<AccountStatusRow> | undefined;
        const accountId = change.keys.account_id ?? doc?.account_id;
        if (!accountId) continue;
        this.generations.set(accountId, (this.generations.get(accountId) ?? 0) + 1);
        if (doc?.status && doc.user_id) this.rows.set(accountId, { account_id: accountId, user_id: doc.user_id, status: doc.status });
        else this.rows.delete(accountId);
      }
    });
  }

  async get(accountId: string): Promise<AccountStatusRow | undefined> {
    if (this.live) {
      const cached = this.rows.get(accountId);
      if (cached) return cached;
    }
    const generation = this.generations.get(accountId) ?? 0;
    const row = await readAccountStatus(this.ctx, accountId);
    if (this.live && row && (this.generations.get(accountId) ?? 0) === generation) {
      if (this.rows.size >= CACHE_ENTRIES_MAX) this.rows.clear();
      this.rows.set(accountId, row);
    }
    return row;
  }
}

async function readAccountStatus(ctx: AppContext, accountId: string): Promise<AccountStatusRow | undefined> {
  const result = await ctx.pool.query<AccountStatusRow>({
    name: 'auth_account_status',
    text: 'SELECT account_id, user_id, status FROM core_accounts WHERE account_id = $1',
    values: [accountId],
  });
  return result.rows[0];
}

const caches = new WeakMap<AppContext, AccountStatusCache>();

export function accountStatusOf(ctx: AppContext, accountId: string): Promise<AccountStatusRow | undefined> {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new AccountStatusCache(ctx);
    caches.set(ctx, cache);
  }
  return cache.get(accountId);
}
