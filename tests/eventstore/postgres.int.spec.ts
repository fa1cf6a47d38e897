// The event store contract on the PostgreSQL adapter (embedded server, fresh database per test).
import { expect } from 'chai';
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
    fresh: true,
    holdAppend,
    dispose: async () => {
      await store.close();
      await db.drop();
    },
  };
});

describe('postgres event store: why positions come from the locked counter', () => {
  it('a reader trusting a bare bigserial skips a transaction that commits late (the hazard the store avoids)', async () => {
    const db = await testDatabase();
    try {
      await db.pool.query('CREATE TABLE naive_events (position bigserial PRIMARY KEY, type text NOT NULL)');
      const late = await db.pool.connect();
      await late.query('BEGIN');
      await late.query(`INSERT INTO naive_events (type) VALUES ('Late')`); // takes position 1, not committed
      await db.pool.query(`INSERT INTO naive_events (type) VALUES ('Early')`); // position 2, committed
      const read = async (after: number) =>
        (
          await db.pool.query<{ position: string; type: string }>(
            'SELECT position, type FROM naive_events WHERE position > $1 ORDER BY position',
            [after],
          )
        ).rows;
      const first = await read(0);
      const checkpoint = Number(first[first.length - 1]!.position);
      await late.query('COMMIT');
      late.release();
      const second = await read(checkpoint);
      const delivered = [...first, ...second].map((row) => row.type);
      expect(delivered).to.deep.equal(['Early']); // 'Late' is never delivered
    } finally {
      await db.drop();
    }
  });
});

describe('postgres event store: several writers on one database (as separate processes would be)', () => {
  it('racing appends with the same expected revision: exactly one wins per revision, the others are refused, none duplicated', async () => {
    const db = await testDatabase();
    const stores = Array.from({ length: 4 }, () => new PostgresEventStore({ pool: db.pool, pollIntervalMs: 5000 }));
    try {
      let expected: bigint | 'no_stream' = 'no_stream';
      for (let round = 0; round < 15; round++) {
        const outcomes = await Promise.allSettled(
          stores.map((store, i) =>
            store.append('race', [{ id: `r${round}-w${i}`, type: 'Raced', data: { round, writer: i } }], expected),
          ),
        );
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        expect(won, `round ${round}`).to.have.length(1);
        for (const lost of outcomes.filter((o) => o.status === 'rejected')) {
          expect(lost.reason).to.have.property('name', 'WrongExpectedRevision');
        }
        expected = (won[0] as PromiseFulfilledResult<{ nextRevision: bigint }>).value.nextRevision;
      }
      const events = await stores[0]!.readStream('race');
      expect(events.map((e) => e.revision)).to.deep.equal(Array.from({ length: 15 }, (_, i) => BigInt(i)));
      const positions = (await stores[0]!.readAll()).map((e) => e.position);
      expect(positions).to.deep.equal(Array.from({ length: positions.length }, (_, i) => BigInt(i))); // dense, no gaps
    } finally {
      for (const store of stores) await store.close();
      await db.drop();
    }
  });

  it('re-appending ids another writer already wrote returns their original result and writes nothing', async () => {
    const db = await testDatabase();
    const first = new PostgresEventStore({ pool: db.pool, pollIntervalMs: 5000 });
    const second = new PostgresEventStore({ pool: db.pool, pollIntervalMs: 5000 });
    try {
      const events = [
        { id: 'same-1', type: 'T', data: {} },
        { id: 'same-2', type: 'T', data: {} },
      ];
      const original = await first.append('s', events, 'no_stream');
      const again = await second.append('s', events, 'no_stream');
      expect(again).to.deep.equal(original);
      expect(await first.readAll()).to.have.length(2);
    } finally {
      await first.close();
      await second.close();
      await db.drop();
    }
  });
});
