// The PostgreSQL test harness: concurrent callers each get their own migrated database.
import { expect } from 'chai';
import { testDatabase } from '../support/pg.ts';
import { migrate } from '../../eventstore/postgres/migrate.ts';

describe('test harness: embedded PostgreSQL', () => {
  it('gives concurrent callers separate, migrated databases', async () => {
    const databases = await Promise.all([testDatabase(), testDatabase(), testDatabase(), testDatabase()]);
    expect(new Set(databases.map((db) => db.name)).size).to.equal(4);
    for (const db of databases) {
      const { rows } = await db.pool.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY version');
      expect(rows.map((row) => row.name)).to.include('0001_event_store');
    }
    await databases[0]!.pool.query('CREATE TABLE only_here (x int)');
    const other = await databases[1]!.pool.query(`SELECT to_regclass('only_here') AS t`);
    expect(other.rows[0].t).to.equal(null);
    await Promise.all(databases.map((db) => db.drop()));
  });

  it('applies migrations once (re-running applies nothing)', async () => {
    const db = await testDatabase();
    expect(await migrate(db.pool)).to.deep.equal([]);
  });
});
