// Each account's last write position, so its next read can wait until projections passed it.
// Bounded: past the limit the least recently written account is forgotten (its reads then do
// not wait, which is only as stale as a read by another client would be).

import type { WriteTracker } from './context.ts';

const TRACKED_ACCOUNTS_MAX = 100_000;

class InMemoryWriteTracker implements WriteTracker {
  private readonly last = new Map<string, bigint>();

  constructor(private readonly accountsMax = TRACKED_ACCOUNTS_MAX) {}

  note(accountId: string, position: bigint): void {
    const previous = this.last.get(accountId);
    if (previous !== undefined && previous >= position) return;
    this.last.delete(accountId); // re-insert: Map order is recency order
    this.last.set(accountId, position);
    if (this.last.size > this.accountsMax) {
      const oldest = this.last.keys().next().value;
      if (oldest !== undefined) this.last.delete(oldest);
    }
  }

  lastFor(accountId: string): bigint | undefined {
    return this.last.get(accountId);
  }
}

export function createWriteTracker(): WriteTracker {
  return new InMemoryWriteTracker();
}
