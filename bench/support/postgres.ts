// A fresh embedded PostgreSQL for benchmarks, with the server's durable defaults (fsync and
// synchronous_commit on), migrated: figures measured against it are what a deployment would see.

import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { freePortOn } from '../../cli/ports.ts';
import { EmbeddedPostgresServer } from '../../eventstore/postgres/embedded.ts';
import { migrate } from '../../eventstore/postgres/migrate.ts';
import { createPool } from '../../eventstore/postgres/pool.ts';

export interface BenchPostgres {
  pool: pg.Pool;
  connectionString: string;
  /** `fsync` and `synchronous_commit` as the server reports them. */
  settings: { fsync: string; synchronousCommit: string };
  stop(): Promise<void>;
}

export async function startBenchPostgres(poolSize = 4): Promise<BenchPostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'exchange-bench-pg-'));
  chmodSync(dir, 0o755);
  const server = new EmbeddedPostgresServer({ dataDir: path.join(dir, 'data'), port: await freePortOn('127.0.0.1') });
  try {
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const connectionString = server.connectionString('postgres');
  const pool = createPool({ connectionString, max: poolSize });
  await migrate(pool);
  const settings = await pool.query<{ fsync: string; sync: string }>(
    `SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS sync`,
  );
  return {
    pool,
    connectionString,
    settings: { fsync: settings.rows[0]!.fsync, synchronousCommit: settings.rows[0]!.sync },
    async stop() {
      await pool.end().catch(() => undefined);
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
