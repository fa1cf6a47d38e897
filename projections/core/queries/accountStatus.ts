// Account status as credential checks need it (user id and status), from the core accounts read
// model (table core_accounts). Kept in an in-process cache that the projection runner's change
// announcements (kind `account`, after each commit) keep current, so a request costs no query
// once its account is known. Without announcements (a runner that does not offer onChange) every
// request reads the table. A failed read throws: the caller answers 503, not "no such account".

import type pg from 'pg';
import type { ProjectionChange } from '../../projector.ts';

interface AccountStatusRow {
  account_id: string;
  user_id: string;
  status: string;
}

export interface ChangeSource {
  onChange?(listener: (changes: ProjectionChange[]) => void): () => void;
}

const CACHE_ENTRIES_MAX = 100_000;

export class AccountStatusCache {
  private readonly rows = new Map<string, AccountStatusRow>();
  /** Bumped per account on every announcement: a table read started earlier must not overwrite it. */
  private readonly generations = new Map<string, number>();
  readonly live: boolean;

  constructor(
    private readonly pool: pg.Pool,
    changes: ChangeSource,
  ) {
    this.live = typeof changes.onChange === 'function';
    changes.onChange?.((announced) => {
      for (const change of announced) {
        if (change.kind !== 'account') continue;
        const doc = change.doc as Partial<AccountStatusRow> | undefined;
        const accountId = change.keys.account_id ?? doc?.account_id;
        if (!accountId) continue;
        if (this.generations.size >= CACHE_ENTRIES_MAX) this.generations.clear();
        this.generations.set(accountId, (this.generations.get(accountId) ?? 0) + 1);
        if (doc?.status && doc.user_id)
          this.remember({ account_id: accountId, user_id: doc.user_id, status: doc.status });
        else this.rows.delete(accountId);
      }
    });
  }

  async statusOf(accountId: string): Promise<AccountStatusRow | undefined> {
    if (this.live) {
      const cached = this.rows.get(accountId);
      if (cached) return cached;
    }
    const generation = this.generations.get(accountId) ?? 0;
    const result = await this.pool.query<AccountStatusRow>({
      name: 'auth_account_status',
      text: 'SELECT account_id, user_id, status FROM core_accounts WHERE account_id = $1',
      values: [accountId],
    });
    const row = result.rows[0];
    if (this.live && row && (this.generations.get(accountId) ?? 0) === generation) this.remember(row);
    return row;
  }

  private remember(row: AccountStatusRow): void {
    if (this.rows.size >= CACHE_ENTRIES_MAX && !this.rows.has(row.account_id)) this.rows.clear();
    this.rows.set(row.account_id, row);
  }
}
