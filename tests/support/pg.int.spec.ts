// The PostgreSQL test harness: concurrent callers each get their own migrated database.
import { expect } from 'chai';
import { testDatabase } from './pg.ts';
import { migrate } from '../../eventstore/postgres/migrate.ts';
import { PostgresEventStore } from '../../eventstore/postgres.ts';

describe('test harness: embedded PostgreSQL', () => {
  it('gives concurrent callers separate, migrated databases', async () => {
    const databases = await Promise.all([testDatabase(), testDatabase(), testDatabase(), testDatabase()]);
    expect(new Set(databases.map((db) => db.name)).size).to.equal(4);
    for (const db of databases) {
      const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
      expect(rows.map((row) => row.name)).to.include('0001_event_store');
    }
    await databases[0].pool.query('CREATE TABLE only_here (x int)');
    const other = await databases[1].pool.query(`SELECT to_regclass('only_here') AS t`);
    expect(other.rows[0].t).to.equal(null);
    await Promise.all(databases.map((db) => db.drop()));
  });

  it('applies migrations once (re-running applies nothing)', async () => {
    const db = await testDatabase();
    expect(await migrate(db.pool)).to.deep.equal([]);
  });

  it('stores large event bodies uncompressed and reads them back whole (migration 0004)', async () => {
    const db = await testDatabase();
    const store = new PostgresEventStore({ pool: db.pool });
    try {
      const data = { steps: Array.from({ length: 2_000 }, (_, i) => ({ seq: i, text: 'x'.repeat(100) })) };
      await store.append('big', [{ id: '00000000-0000-4000-8000-000000000001', type: 'Big', data }], 'no_stream');
      const { rows } = await db.pool.query<{ compression: string | null; bytes: number }>(
        `SELECT pg_column_compression(data) AS compression, octet_length(data) AS bytes FROM events WHERE stream = 'big'`,
      );
      expect(rows[0]!.compression).to.equal(null);
      expect(rows[0]!.bytes).to.be.greaterThan(200_000);
      const [read] = await store.readStream('big');
      expect(read!.data).to.deep.equal(data);
    } finally {
      await store.close();
      await db.drop();
    }
  });
});
