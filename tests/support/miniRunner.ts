// A projection runner for route tests on the memory event store: feeds new records to each
// projector in its own transaction and announces changes after commit, like the real runner,
// without checkpoints or rebuilds.

import type { MemoryEventStore } from '../../eventstore/memory.ts';
import { matchesFilter } from '../../eventstore/subscription.ts';
import type { ProjectionChange, Projector } from '../../projections/projector.ts';
import { inTransaction } from '../../projections/runtime/transaction.ts';
import type { TestDatabase } from './pg.ts';

export class MiniRunner {
  private after = -1n;
  private readonly listeners = new Set<(changes: ProjectionChange[]) => void>();
  private running: Promise<void> = Promise.resolve();
  constructor(
    private readonly db: TestDatabase,
    private readonly store: MemoryEventStore,
    private readonly projectors: readonly Projector[],
  ) {}

  async init(): Promise<void> {
    for (const projector of this.projectors) await this.db.pool.query(projector.schemaSql);
  }

  /** Change announcements after commit (the auth cache listens). */
  onChange(listener: (changes: ProjectionChange[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  catchUp(): Promise<void> {
    this.running = this.running.then(async () => {
      const records = await this.store.readAll(this.after >= 0n ? { after: this.after } : {});
      const last = records[records.length - 1];
      if (!last) return;
      for (const projector of this.projectors) {
        const wanted = records.filter((record) => matchesFilter(record, projector.filter));
        if (wanted.length === 0) continue;
        const changes = await inTransaction(this.db.pool, async (tx) => (await projector.handle(tx, wanted)) ?? []);
        if (changes.length > 0) for (const listener of this.listeners) listener(changes);
      }
      this.after = last.position;
    });
    return this.running;
  }
}
