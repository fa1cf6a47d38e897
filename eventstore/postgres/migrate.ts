// Versioned migrations: files `migrations/NNNN_name.sql`, applied once each in order, recorded in
// `schema_migrations`, under an advisory lock so two processes starting together do not race.
// Every other schema statement the service runs (the projectors' tables, made and dropped at
// start) takes the same lock for its transaction (`lockSchema`): nodes started at the same moment
// never run two schema changes at once.

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Arbitrary constant key of the migration advisory lock. */
const MIGRATION_LOCK_KEY = 7_201_001;
const FILE_PATTERN = /^(\d{4})_[a-z0-9_]+\.sql$/;

/**
 * Takes the schema lock (the one migrations run under) until the end of the transaction `tx` is
 * in: a schema change outside the migrations calls it first.
 */
export async function lockSchema(tx: Pick<pg.PoolClient, 'query'>): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export async function loadMigrations(dir = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((file) => FILE_PATTERN.test(file)).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const version = Number.parseInt(file.slice(0, 4), 10);
    if (migrations.some((m) => m.version === version)) throw new Error(`two migrations numbered ${version}`);
    migrations.push({ version, name: file.replace(/\.sql$/, ''), sql: await readFile(path.join(dir, file), 'utf8') });
  }
  return migrations;
}

/** Applies every pending migration; returns the names applied now. */
export async function migrate(pool: pg.Pool, migrations?: Migration[]): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS public.schema_migrations (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
      const done = await client.query<{ version: number }>('SELECT version FROM public.schema_migrations');
      const doneVersions = new Set(done.rows.map((row) => row.version));
      for (const migration of all) {
        if (doneVersions.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO public.schema_migrations (version, name) VALUES ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
        }
        applied.push(migration.name);
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    }
  } finally {
    client.release();
  }
  return applied;
}
