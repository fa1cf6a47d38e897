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
import { testServer } from '../support/pg.ts';

const NODES = 6;

/** A node's start-up schema work: migrations, then the projection runner preparing its tables. */
async function startUpSchema(connectionString: string): Promise<void> {
  const pool = createPool({ connectionString, max: 3 });
  const store = await createEventStore({ kind: 'postgres', pool, connectionString });
  try {
    await migrate(pool);
    const runner = new ProjectionRunner({ pool, store, projectors: allProjectors(), retired: RETIRED_PROJECTORS });
    await runner.start();
    await runner.stop();
  } finally {
    await store.close();
    await pool.end();
  }
}

describe('start-up schema work from several nodes at once', function () {
  this.timeout(120_000);

  it(`${NODES} nodes preparing one fresh database at the same moment all succeed, and every table is there once`, async () => {
    const server = await testServer();
    const name = `race_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    const admin = new pg.Client({ connectionString: server.connectionString('postgres') });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    const connectionString = server.connectionString(name);
    const results = await Promise.allSettled(Array.from({ length: NODES }, () => startUpSchema(connectionString)));
    const failures = results.flatMap((result) => (result.status === 'rejected' ? [String(result.reason)] : []));
    expect(failures).to.deep.equal([]);

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
      expect(checkpoints.rows.map((row) => row.name)).to.deep.equal(allProjectors().map((p) => p.name).sort());
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
