// Test harness for PostgreSQL: ONE embedded server per mocha process (temporary directory,
// free port), started on first use; every caller of testDatabase() gets its own fresh,
// migrated database. The root hook (tests/support/hooks.ts) stops the server after the run.

import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedPostgresServer } from '../../eventstore/postgres/embedded.ts';
import { migrate } from '../../eventstore/postgres/migrate.ts';
import { createPool } from '../../eventstore/postgres/pool.ts';

const TEMPLATE_DATABASE = 'exchange_template';
const TEST_POOL_SIZE = 8;
const TEST_POOL_IDLE_TIMEOUT_MS = 2000;
/** Throwaway cluster: durability settings off for speed, room for every test file's pool. */
const TEST_SERVER_FLAGS = [
  '-c',
  'fsync=off',
  '-c',
  'synchronous_commit=off',
  '-c',
  'full_page_writes=off',
  '-c',
  'max_connections=600',
];

export interface TestDatabase {
  name: string;
  connectionString: string;
  pool: pg.Pool;
  /** Closes the pool and drops the database (optional: everything goes at process exit). */
  drop(): Promise<void>;
}

interface Harness {
  server: EmbeddedPostgresServer;
  dir: string;
  pools: Set<pg.Pool>;
}

let harness: Promise<Harness> | undefined;
let createChain: Promise<unknown> = Promise.resolve();
let databaseCount = 0;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function startHarness(): Promise<Harness> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'exchange-test-pg-'));
  chmodSync(dir, 0o755); // the server runs as the postgres user when we are root
  const server = new EmbeddedPostgresServer({
    dataDir: path.join(dir, 'data'),
    port: await freePort(),
    postgresFlags: TEST_SERVER_FLAGS,
  });
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  await server.start();
  await runOnServer(server, `CREATE DATABASE ${TEMPLATE_DATABASE}`);
  const templatePool = createPool({ connectionString: server.connectionString(TEMPLATE_DATABASE), max: 1 });
  try {
    await migrate(templatePool);
  } finally {
    await templatePool.end();
  }
  return { server, dir, pools: new Set() };
}

function started(): Promise<Harness> {
  harness ??= startHarness();
  return harness;
}

/** The running test server (starting it if needed): for tests that need an admin connection. */
export async function testServer(): Promise<EmbeddedPostgresServer> {
  return (await started()).server;
}

/** Runs one statement (CREATE or DROP DATABASE) in `server`'s `postgres` database, on a connection of its own. */
export async function runOnServer(
  server: Pick<EmbeddedPostgresServer, 'connectionString'>,
  statement: string,
): Promise<void> {
  const admin = new pg.Client({ connectionString: server.connectionString('postgres') });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** A fresh database with every migration applied, its own pool and connection string. */
export async function testDatabase(): Promise<TestDatabase> {
  const { server, pools } = await started();
  databaseCount += 1;
  const name = `test_${process.pid}_${databaseCount}_${Math.random().toString(36).slice(2, 8)}`;
  // CREATE DATABASE copies the template; one at a time so no copy finds it busy.
  const created = createChain.then(async () => {
    await runOnServer(server, `CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
  });
  createChain = created.catch(() => undefined);
  await created;
  const connectionString = server.connectionString(name);
  const pool = createPool({ connectionString, max: TEST_POOL_SIZE, idleTimeoutMs: TEST_POOL_IDLE_TIMEOUT_MS });
  pools.add(pool);
  return {
    name,
    connectionString,
    pool,
    async drop() {
      if (!pools.delete(pool)) return;
      await pool.end();
      await runOnServer(server, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

/** Stops the server and removes its directory; called once by the mocha root hook. */
export async function stopTestPostgres(): Promise<void> {
  if (!harness) return;
  const current = harness;
  harness = undefined;
  const { server, dir, pools } = await current;
  await Promise.allSettled([...pools].map((pool) => pool.end()));
  pools.clear();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
