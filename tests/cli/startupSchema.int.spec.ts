// Nodes started at the same moment all come up: the schema work a node does at start (the
// migrations, then every projector's tables) runs from several connection pools at once against
// one fresh database, as several `npm start`s on one DATABASE_URL do, and every one succeeds.

import { expect } from 'chai';
import pg from 'pg';
import { createEventStore } from '../../eventstore/index.ts';
import { migrate } from '../../eventstore/postgres/migrate.ts';
import { createPool } from '../../eventstore/postgres/pool.ts';
import { allProjectors, RETIRED_PROJECTORS } from '../../projections/registry.ts';
import { ProjectionRunner } from '../../projections/runner.ts';
import { runOnServer, testServer } from '../support/pg.ts';

const NODES = 8;

/**
 * A node's start-up schema work: the migrations, then (once every node is through them, so the
 * rest starts at the same moment everywhere) what else the node makes at start: its stores' and
 * its projectors' tables.
 */
async function startUpSchema(connectionString: string, migrated: Promise<unknown>, done: () => void): Promise<void> {
  const pool = createPool({ connectionString, max: 3 });
  const store = await createEventStore({ kind: 'postgres', pool, connectionString });
  try {
    try {
      await migrate(pool);
    } finally {
      done();
    }
    await migrated;
    const runner = new ProjectionRunner({ pool, store, projectors: allProjectors(), retired: RETIRED_PROJECTORS });
    await runner.start();
    await runner.stop();
  } finally {
    await store.close();
    await pool.end();
  }
}

/** N nodes' start-up schema work on one database at once; the failures. */
async function race(connectionString: string): Promise<string[]> {
  let left = NODES;
  let allMigrated!: () => void;
  const migrated = new Promise<void>((resolve) => (allMigrated = resolve));
  const done = () => {
    left -= 1;
    if (left === 0) allMigrated();
  };
  const results = await Promise.allSettled(
    Array.from({ length: NODES }, () => startUpSchema(connectionString, migrated, done)),
  );
  return results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
}

describe('start-up schema work from several nodes at once', function () {
  this.timeout(120_000);

  it(`${NODES} nodes preparing one fresh database at the same moment all succeed, and every table is there once`, async () => {
    const server = await testServer();
    const name = `race_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    await runOnServer(server, `CREATE DATABASE ${name}`);
    const connectionString = server.connectionString(name);
    expect(await race(connectionString)).to.deep.equal([]);

    const check = new pg.Client({ connectionString });
    await check.connect();
    try {
      const tables = await check.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      const names = tables.rows.map((row) => row.table_name);
      for (const table of ['oauth_codes', 'oauth_tokens', 'oauth_revoked_grants', 'api_idempotency_keys'])
        expect(names).to.include(table);
      for (const projector of allProjectors()) for (const table of projector.tables) expect(names).to.include(table);
      const checkpoints = await check.query<{ name: string; position: string }>(
        'SELECT name, position FROM projection_checkpoints ORDER BY name',
      );
      expect(checkpoints.rows.map((row) => row.name)).to.deep.equal(
        allProjectors()
          .map((p) => p.name)
          .sort(),
      );
      const schemas = await check.query(`SELECT 1 FROM information_schema.schemata WHERE schema_name LIKE 'rebuild_%'`);
      expect(schemas.rowCount).to.equal(0);
    } finally {
      await check.end();
      const dropper = new pg.Client({ connectionString: server.connectionString('postgres') });
      await dropper.connect();
      await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).finally(() => dropper.end());
    }
  });
});
