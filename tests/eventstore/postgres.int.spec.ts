// The event store contract on the PostgreSQL adapter (embedded server, fresh database per test).
import { PostgresEventStore, LOCK_POSITION_SQL } from '../../eventstore/postgres.ts';
import type { NewEvent } from '../../eventstore/port.ts';
import { testDatabase } from '../support/pg.ts';
import { eventStoreContract, type HeldAppend } from './contract.ts';

eventStoreContract('postgres', async () => {
  const db = await testDatabase();
  const store = new PostgresEventStore({ pool: db.pool, connectionString: db.connectionString, pollIntervalMs: 5000 });
  // A raw append transaction written the way any writer must: lock the position counter, take
  // the next position, insert, and commit later. A store whose readers trusted a bare sequence
  // would deliver the early commit and skip this one.
  const holdAppend = async (stream: string, event: NewEvent): Promise<HeldAppend> => {
    const client = await db.pool.connect();
    await client.query('BEGIN');
    const { rows } = await client.query<{ position: string }>(LOCK_POSITION_SQL);
    const position = BigInt(rows[0]!.position) + 1n;
    await client.query(
      `INSERT INTO events (position, stream, revision, id, type, data, metadata) VALUES ($1, $2, 0, $3, $4, $5, '{}')`,
      [String(position), stream, event.id, event.type, JSON.stringify(event.data)],
    );
    await client.query('UPDATE event_position SET position = $1', [String(position)]);
    return {
      async commit() {
        await client.query(`SELECT pg_notify('exchange_events', $1)`, [String(position)]);
        await client.query('COMMIT');
        client.release();
      },
    };
  };
  return {
    store,
    holdAppend,
    dispose: async () => {
      await store.close();
      await db.drop();
    },
  };
});
