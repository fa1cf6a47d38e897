// Table creation and rebuilds. A rebuild replays the whole log into a scratch schema while
// reads keep using the tables in `public`; once it has caught up it takes the projector's lock,
// applies the last few events, and in that same transaction drops the old tables, moves the new
// ones into `public` and sets the checkpoint, so readers switch from old to new atomically.

import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { EventStore, RecordedEvent } from '../../eventstore/port.ts';
import { lockSchema } from '../../eventstore/postgres/migrate.ts';
import { matchesFilter } from '../../eventstore/subscription.ts';
import type { Projector } from '../projector.ts';
import { lockProjector, readCheckpoint, setCheckpoint, useSchema } from './checkpoints.ts';
import { inTransaction } from './transaction.ts';

const REBUILD_BATCH_EVENTS = 1000;

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;

/**
 * Creates the projector's tables in `public` (dropping leftovers) and a checkpoint before any
 * event, under the schema lock; nothing when another process made them meanwhile (its checkpoint
 * is there): false then.
 */
export async function createProjectorTables(pool: pg.Pool, projector: Projector): Promise<boolean> {
  return inTransaction(pool, async (tx) => {
    await lockSchema(tx);
    await lockProjector(tx, projector.name);
    if (await readCheckpoint(tx, projector.name)) return false;
    for (const table of projector.tables) await tx.query(`DROP TABLE IF EXISTS public.${quote(table)} CASCADE`);
    await useSchema(tx, 'public');
    await tx.query(projector.schemaSql);
    await setCheckpoint(tx, projector.name, projector.version, -1n);
    return true;
  });
}

/** Drops a projector's tables and checkpoint (one no longer registered); nothing when it has no checkpoint. */
export async function dropRetiredProjector(
  pool: pg.Pool,
  retired: Pick<Projector, 'name' | 'tables'>,
): Promise<boolean> {
  return inTransaction(pool, async (tx) => {
    await lockSchema(tx);
    await lockProjector(tx, retired.name);
    const deleted = await tx.query('DELETE FROM public.projection_checkpoints WHERE name = $1', [retired.name]);
    if (deleted.rowCount === 0) return false;
    for (const table of retired.tables) await tx.query(`DROP TABLE IF EXISTS public.${quote(table)} CASCADE`);
    return true;
  });
}

async function applyInto(tx: pg.PoolClient, projector: Projector, events: RecordedEvent[]): Promise<void> {
  const relevant = projector.filter ? events.filter((event) => matchesFilter(event, projector.filter)) : events;
  if (relevant.length > 0) await projector.handle(tx, relevant);
}

interface RebuildResult {
  position: bigint;
  events: number;
}

/**
 * Rebuilds one projector from position zero and swaps the result in. `onProgress` reports the
 * position reached; `shouldStop` aborts (the scratch schema is dropped, nothing is swapped).
 */
export async function rebuildProjector(
  pool: pg.Pool,
  store: EventStore,
  projector: Projector,
  options: { onProgress?: (position: bigint) => void; shouldStop?: () => boolean } = {},
): Promise<RebuildResult> {
  const scratch = `rebuild_${projector.name.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  let position = -1n;
  let eventCount = 0;
  await inTransaction(pool, async (tx) => {
    await lockSchema(tx);
    await tx.query(`CREATE SCHEMA ${quote(scratch)}`);
  });
  try {
    await inTransaction(pool, async (tx) => {
      await lockSchema(tx);
      await useSchema(tx, scratch);
      await tx.query(projector.schemaSql);
    });
    // Catch up without the lock: live batches keep serving the old tables meanwhile.
    for (;;) {
      if (options.shouldStop?.()) throw new Error(`rebuild of ${projector.name} stopped`);
      const events = await store.readAll({ after: position, maxCount: REBUILD_BATCH_EVENTS });
      if (events.length === 0) break;
      await inTransaction(pool, async (tx) => {
        await useSchema(tx, scratch);
        await applyInto(tx, projector, events);
      });
      position = events[events.length - 1]!.position;
      eventCount += events.length;
      options.onProgress?.(position);
    }
    // Swap: under the projector's lock, apply what arrived since, then move the tables in.
    await inTransaction(pool, async (tx) => {
      await lockSchema(tx);
      await lockProjector(tx, projector.name);
      await useSchema(tx, scratch);
      for (;;) {
        const events = await store.readAll({ after: position, maxCount: REBUILD_BATCH_EVENTS });
        if (events.length === 0) break;
        await applyInto(tx, projector, events);
        position = events[events.length - 1]!.position;
        eventCount += events.length;
      }
      for (const table of projector.tables) {
        await tx.query(`DROP TABLE IF EXISTS public.${quote(table)} CASCADE`);
        await tx.query(`ALTER TABLE ${quote(scratch)}.${quote(table)} SET SCHEMA public`);
      }
      await setCheckpoint(tx, projector.name, projector.version, position);
    });
    options.onProgress?.(position);
    return { position, events: eventCount };
  } finally {
    await pool.query(`DROP SCHEMA IF EXISTS ${quote(scratch)} CASCADE`).catch(() => undefined);
  }
}
