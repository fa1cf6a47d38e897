// What GET /me is read from (the member's profile row and their core account), cached in process:
// the projection runner announces every committed change of either (kinds `profile` and
// `account`), which drops the member's entry, so a request costs no query once the member is
// known and never answers from a row older than the read models. Reads that started before an
// announcement are not remembered (a generation per account). Bounded by ME_SOURCES_CACHED_MAX.
// When the database drops a connection (the pool reports an error), the cache is not trusted
// until a read succeeds again: an outage is answered as one (503), not from memory.

import type pg from 'pg';
import { getAccount } from '../core/queries/accounts.ts';
import type { ChangeSource } from '../core/queries/accountStatus.ts';
import type { AccountWire } from '../core/render.ts';
import { profileOf, type ProfileRow } from './queries.ts';

const ME_SOURCES_CACHED_MAX = 50_000;

export interface MeSources {
  row: ProfileRow | undefined;
  account: AccountWire | null;
}

export class MeSourcesCache {
  private readonly entries = new Map<string, MeSources>();
  private readonly generations = new Map<string, number>();
  private readonly live: boolean;
  /** A connection failed since the last successful read: answer from the database only. */
  private suspect = false;

  constructor(
    private readonly pool: pg.Pool,
    changes: ChangeSource,
  ) {
    this.live = typeof changes.onChange === 'function';
    pool.on('error', () => {
      this.suspect = true;
    });
    changes.onChange?.((announced) => {
      for (const change of announced) {
        if (change.kind !== 'account' && change.kind !== 'profile') continue;
        const accountId = change.keys.account_id ?? (change.doc as { account_id?: string } | undefined)?.account_id;
        if (accountId === undefined) continue;
        this.entries.delete(accountId);
        this.generations.set(accountId, (this.generations.get(accountId) ?? 0) + 1);
        if (this.generations.size > ME_SOURCES_CACHED_MAX) this.generations.clear();
      }
    });
  }

  /** The member's sources; `complete` tells whether they may be remembered (both rows present). */
  async read(accountId: string, complete: (sources: MeSources) => boolean): Promise<MeSources> {
    const cached = this.live && !this.suspect ? this.entries.get(accountId) : undefined;
    if (cached) return cached;
    const generation = this.generations.get(accountId) ?? 0;
    const [row, account] = await Promise.all([profileOf(this.pool, accountId), getAccount(this.pool, accountId)]);
    this.suspect = false;
    const sources = { row, account };
    if (this.live && complete(sources) && (this.generations.get(accountId) ?? 0) === generation) {
      if (this.entries.size >= ME_SOURCES_CACHED_MAX) {
        const oldest = this.entries.keys().next();
        if (!oldest.done) this.entries.delete(oldest.value);
      }
      this.entries.set(accountId, sources);
    }
    return sources;
  }
}
