// Checkpoint rows (table projection_checkpoints) and the per-projector lock. Every write to a
// projector's tables happens in a transaction holding its lock, so a live batch and a rebuild's
// swap never interleave, and each reads the checkpoint after taking the lock.

import type pg from 'pg';

/** First key of the two-part advisory lock; the second is hashtext(projector name). */
const PROJECTOR_LOCK_CLASS = 7_201_002;

interface CheckpointRow {
  name: string;
  version: number;
  position: bigint;
  updatedAt: Date;
}

type Queryable = Pick<pg.PoolClient, 'query'>;

export async function lockProjector(tx: Queryable, name: string): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [PROJECTOR_LOCK_CLASS, name]);
}

/** `SET LOCAL search_path`: unqualified names in schemaSql and handlers resolve to `schema` first. */
export async function useSchema(tx: Queryable, schema: string): Promise<void> {
  const quoted = `"${schema.replaceAll('"', '""')}"`;
  await tx.query(
    schema === 'public' ? 'SET LOCAL search_path TO public' : `SET LOCAL search_path TO ${quoted}, public`,
  );
}

export async function readCheckpoint(db: Queryable, name: string): Promise<CheckpointRow | undefined> {
  const { rows } = await db.query<{ name: string; version: number; position: string; updated_at: Date }>(
    'SELECT name, version, position, updated_at FROM public.projection_checkpoints WHERE name = $1',
    [name],
  );
  const row = rows[0];
  return row && { name: row.name, version: row.version, position: BigInt(row.position), updatedAt: row.updated_at };
}

export async function readAllCheckpoints(db: Queryable): Promise<CheckpointRow[]> {
  const { rows } = await db.query<{ name: string; version: number; position: string; updated_at: Date }>(
    'SELECT name, version, position, updated_at FROM public.projection_checkpoints ORDER BY name',
  );
  return rows.map((row) => ({
    name: row.name,
    version: row.version,
    position: BigInt(row.position),
    updatedAt: row.updated_at,
  }));
}

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * Opens a projector batch in ONE round trip: BEGIN, the projector's lock, search_path `public`
 * and the checkpoint read under the lock (the same statements as lockProjector, useSchema and
 * readCheckpoint, sent as one simple query). Returns the checkpoint position (-1n without a row).
 * The commit does not wait for its WAL flush (synchronous_commit off, this transaction only):
 * rows and checkpoint are lost or kept together, and a lost batch is projected again from the
 * durable journal; what the batch wrote is visible to readers as soon as COMMIT returns.
 */
export async function beginProjectorBatch(tx: Queryable, name: string): Promise<bigint> {
  const results = (await tx.query(
    `BEGIN; SET LOCAL synchronous_commit TO off; SELECT pg_advisory_xact_lock(${PROJECTOR_LOCK_CLASS}, hashtext(${literal(name)})); ` +
      'SET LOCAL search_path TO public; ' +
      `SELECT position FROM public.projection_checkpoints WHERE name = ${literal(name)}`,
  )) as unknown as Array<{ rows: Array<{ position: string }> }>;
  const row = results[results.length - 1]?.rows[0];
  return row ? BigInt(row.position) : -1n;
}

/**
 * Moves the checkpoint forward only, and COMMIT, in one round trip (COMMIT does not run if the
 * update fails). `also`: one more statement committed with them (the relay row, runtime/relay.ts).
 */
export async function commitProjectorBatch(
  tx: Queryable,
  name: string,
  position: bigint,
  also?: string,
): Promise<void> {
  await tx.query(
    `UPDATE public.projection_checkpoints SET position = GREATEST(position, ${BigInt(position).toString()}::bigint), updated_at = now() ` +
      `WHERE name = ${literal(name)}; ${also ? `${also}; ` : ''}COMMIT`,
  );
}

/**
 * Moves several checkpoints forward past events none of them had to handle, outside any
 * projector lock: GREATEST makes it commute with a concurrent batch or rebuild swap, and a
 * checkpoint left behind only makes a restart skip the same irrelevant events again.
 */
export async function advanceIdleCheckpoints(
  db: Queryable,
  names: readonly string[],
  position: bigint,
  also?: string,
): Promise<void> {
  await db.query(
    'BEGIN; SET LOCAL synchronous_commit TO off; ' +
      `UPDATE public.projection_checkpoints SET position = GREATEST(position, ${BigInt(position).toString()}::bigint), updated_at = now() ` +
      `WHERE name IN (${names.map(literal).join(', ')}); ${also ? `${also}; ` : ''}COMMIT`,
  );
}

/** Sets version and position outright (new projector, or the swap after a rebuild). */
export async function setCheckpoint(tx: Queryable, name: string, version: number, position: bigint): Promise<void> {
  await tx.query(
    `INSERT INTO public.projection_checkpoints (name, version, position, updated_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (name) DO UPDATE SET version = EXCLUDED.version, position = EXCLUDED.position, updated_at = now()`,
    [name, version, String(position)],
  );
}
