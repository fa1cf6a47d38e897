// The projection runner over PostgreSQL: checkpoints commit with the rows, batches are applied
// once, rebuilds swap in while reads continue, waitFor names the projector that lags.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type pg from 'pg';
import { PostgresEventStore } from '../../../eventstore/postgres.ts';
import type { NewEvent, RecordedEvent } from '../../../eventstore/port.ts';
import type { ProjectionChange, Projector } from '../../../projections/projector.ts';
import { cutByWork, dispatchIntervalFor, ProjectionRunner } from '../../../projections/runner.ts';
import { ProjectionLagTimeout } from '../../../projections/runtime/waiters.ts';
import { ENGINE_STEPS_TYPE, ENGINE_STREAM } from '../../../domain/engine/journal/journal.ts';
import { readCheckpoint, setCheckpoint } from '../../../projections/runtime/checkpoints.ts';
import { testDatabase, type TestDatabase } from '../../support/pg.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (type = 'Counted'): NewEvent => ({ id: randomUUID(), type, data: {} });

/** Counts events per stream. Deliberately NOT idempotent itself: the runner must make it so. */
function counter(options: { version?: number; failOn?: string; name?: string; delayMs?: number } = {}): Projector {
  return {
    name: options.name ?? 'counter',
    version: options.version ?? 1,
    tables: ['counts'],
    schemaSql: 'CREATE TABLE counts (stream text PRIMARY KEY, n integer NOT NULL)',
    filter: { streamPrefixes: ['count-'] },
    async handle(tx: pg.PoolClient, events: RecordedEvent[]): Promise<ProjectionChange[]> {
      const changes: ProjectionChange[] = [];
      for (const recorded of events) {
        await tx.query(
          `INSERT INTO counts (stream, n) VALUES ($1, 1) ON CONFLICT (stream) DO UPDATE SET n = counts.n + 1`,
          [recorded.stream],
        );
        if (recorded.type === options.failOn) throw new Error('handler failed');
        changes.push({ projector: 'counter', kind: 'count', keys: { stream: recorded.stream } });
      }
      if (options.delayMs) await sleep(options.delayMs);
      return changes;
    },
  };
}

async function counts(pool: pg.Pool): Promise<Record<string, number>> {
  const { rows } = await pool.query<{ stream: string; n: number }>('SELECT stream, n FROM counts ORDER BY stream');
  return Object.fromEntries(rows.map((row) => [row.stream, row.n]));
}

describe('projection runner', function () {
  this.timeout(30_000);
  let db: TestDatabase;
  let store: PostgresEventStore;
  const runners: ProjectionRunner[] = [];
  const runner = (projectors: Projector[], batchSizeMax?: number) => {
    const created = new ProjectionRunner({ pool: db.pool, store, projectors, batchSizeMax });
    runners.push(created);
    return created;
  };
  /** A counter runner started, fed `events` new events of `count-a`, and stopped once it projected them; their last position. */
  const countedAndStopped = async (events: number): Promise<bigint> => {
    const first = runner([counter()]);
    await first.start();
    const written = await store.append(
      'count-a',
      Array.from({ length: events }, () => event()),
      'any',
    );
    await first.waitFor(written.position);
    await first.stop();
    return written.position;
  };

  beforeEach(async () => {
    db = await testDatabase();
    store = new PostgresEventStore({ pool: db.pool, connectionString: db.connectionString });
  });
  afterEach(async () => {
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await store.close();
    await db.drop();
  });

  it('projects events, advances the checkpoint past unrelated events, and waitFor resolves', async () => {
    await store.append('count-a', [event(), event()], 'any');
    const running = runner([counter()]);
    await running.start();
    await store.append('count-b', [event()], 'any');
    const last = await store.append('other', [event()], 'any');
    await running.waitFor(last.position);
    expect(await counts(db.pool)).to.deep.equal({ 'count-a': 2, 'count-b': 1 });
    expect((await readCheckpoint(db.pool, 'counter'))!.position).to.equal(last.position);
  });

  it('announces changes after commit', async () => {
    const running = runner([counter()]);
    await running.start();
    const seenInDatabase: number[] = [];
    const announced = new Promise<ProjectionChange[]>((resolve) =>
      running.onChange((changes) => {
        void counts(db.pool).then((rows) => {
          seenInDatabase.push(rows['count-x'] ?? 0);
          resolve(changes);
        });
      }),
    );
    await store.append('count-x', [event()], 'any');
    const changes = await announced;
    expect(changes).to.deep.equal([{ projector: 'counter', kind: 'count', keys: { stream: 'count-x' } }]);
    expect(seenInDatabase).to.deep.equal([1]);
  });

  it('a failing handler leaves neither rows nor checkpoint, and waitFor names the lagging projector', async () => {
    const running = runner([counter({ failOn: 'Boom' })]);
    await running.start();
    const written = await store.append('count-a', [event(), event('Boom')], 'any');
    const error = await running.waitFor(written.position, 300).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ProjectionLagTimeout);
    expect((error as Error).message).to.contain('counter');
    expect((error as ProjectionLagTimeout).lagging.map((l) => l.name)).to.deep.equal(['counter']);
    expect(await counts(db.pool)).to.deep.equal({});
    expect((await readCheckpoint(db.pool, 'counter'))!.position).to.equal(-1n);
  });

  it('applies a delivered batch holding much work in several transactions, cut at record boundaries', async () => {
    const sizes: number[] = [];
    const sizing = {
      ...counter(),
      async handle(tx: pg.PoolClient, events: RecordedEvent[]) {
        sizes.push(events.length);
        return counter().handle(tx, events);
      },
    };
    await store.append(
      'count-a',
      Array.from({ length: 7 }, () => event()),
      'any',
    );
    const head = (
      await store.append(
        'count-b',
        Array.from({ length: 3 }, () => event()),
        'any',
      )
    ).position;
    const running = new ProjectionRunner({ pool: db.pool, store, projectors: [sizing], transactionEventsMax: 3 });
    runners.push(running);
    await running.start();
    await running.waitFor(head);
    expect(sizes).to.deep.equal([3, 3, 3, 1]);
    expect(await counts(db.pool)).to.deep.equal({ 'count-a': 7, 'count-b': 3 });
    expect((await readCheckpoint(db.pool, 'counter'))?.position).to.equal(head);
  });

  it('sets a projector that keeps failing aside: the others go on, and it catches up once it can', async () => {
    let broken = true;
    const fragile: Projector = {
      name: 'fragile',
      version: 1,
      tables: ['fragile_seen'],
      schemaSql: 'CREATE TABLE fragile_seen (id text PRIMARY KEY)',
      filter: { streamPrefixes: ['count-'] },
      async handle(tx: pg.PoolClient, events: RecordedEvent[]) {
        if (broken) throw new Error('cannot project yet');
        for (const recorded of events) await tx.query('INSERT INTO fragile_seen (id) VALUES ($1)', [recorded.id]);
        return [];
      },
    };
    const running = new ProjectionRunner({
      pool: db.pool,
      store,
      projectors: [counter(), fragile],
      stallAfterAttempts: 2,
      stalledRetryMs: 300,
    });
    runners.push(running);
    await running.start();
    await store.append('count-a', [event(), event()], 'any');
    const later = await store.append('count-b', [event()], 'any');
    // the healthy projector reaches the head although the other keeps failing
    for (let i = 0; i < 100 && running.positions().counter! < later.position; i++) await sleep(50);
    expect(running.positions().counter).to.equal(later.position);
    expect(await counts(db.pool)).to.deep.equal({ 'count-a': 2, 'count-b': 1 });
    expect(running.positions().fragile! < later.position).to.equal(true);
    await running.waitFor(later.position, 200).then(
      () => expect.fail('waitFor resolved'),
      (error: unknown) => {
        expect(error).to.be.instanceOf(ProjectionLagTimeout);
        expect((error as ProjectionLagTimeout).lagging.map((p) => p.name)).to.deep.equal(['fragile']);
      },
    );
    // once it can, it is caught up at the next delivery after its retry time
    broken = false;
    await sleep(350);
    const last = await store.append('count-c', [event()], 'any');
    await running.waitFor(last.position, 10_000);
    const seen = await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM fragile_seen');
    expect(seen.rows[0]!.n).to.equal(4);
    expect(await counts(db.pool)).to.deep.equal({ 'count-a': 2, 'count-b': 1, 'count-c': 1 });
  });

  it('weighs an engine record by the outcome events it holds (cutByWork)', () => {
    const record = (position: number, stepEvents: number[]): RecordedEvent => ({
      id: `r${position}`,
      stream: ENGINE_STREAM,
      type: ENGINE_STEPS_TYPE,
      revision: BigInt(position),
      position: BigInt(position),
      data: {
        v: 3,
        steps: stepEvents.map((n, i) => ({
          seq: i,
          now_us: 0,
          input: { kind: 'Tick' },
          events: Array.from({ length: n }, () => ({ type: 'X' })),
        })),
      },
      metadata: {},
      recordedAt: new Date(0),
    });
    const other = (position: number): RecordedEvent => ({
      ...record(position, []),
      stream: 'count-x',
      type: 'Counted',
      data: {},
    });
    const events = [record(1, [3, 4]), record(2, [2]), other(3), record(4, [50]), other(5), other(6)];
    const runs = cutByWork(events, 10).map((run) => run.map((e) => Number(e.position)));
    // 7 + 2 + 1 = 10 fit; the 50-event record goes alone (a record is never split); then the rest
    expect(runs).to.deep.equal([[1, 2, 3], [4], [5, 6]]);
    expect(cutByWork([], 10)).to.deep.equal([]);
  });

  it('pauses longer between batches as the flow rises, within its bounds (dispatchIntervalFor)', () => {
    const bounds = { minMs: 20, maxMs: 100, flowHighPerS: 6_000 };
    // a low flow, or the first batch after a quiet spell: the shortest pause
    expect(dispatchIntervalFor(bounds, 3, 1000)).to.be.closeTo(20, 0.1);
    expect(dispatchIntervalFor(bounds, 600, Number.POSITIVE_INFINITY)).to.equal(20);
    // half the high flow (3,000 events/s): half way
    expect(dispatchIntervalFor(bounds, 60, 20)).to.equal(60);
    // at and above the high flow: the longest pause, never more
    expect(dispatchIntervalFor(bounds, 600, 100)).to.equal(100);
    expect(dispatchIntervalFor(bounds, 60_000, 100)).to.equal(100);
    // a batch begun sooner than the shortest pause counts over the shortest pause
    expect(dispatchIntervalFor(bounds, 60, 1)).to.equal(60);
    // no growth configured: always the shortest
    expect(dispatchIntervalFor({ minMs: 20, maxMs: 20, flowHighPerS: 6_000 }, 60_000, 20)).to.equal(20);
  });

  it('applies each event once even when two runners process the same log', async () => {
    const first = runner([counter()], 3);
    const second = runner([counter()], 5);
    await first.start();
    await second.start();
    const writes = [];
    for (let i = 0; i < 40; i += 1) writes.push(store.append(`count-${i % 4}`, [event()], 'any'));
    const results = await Promise.all(writes);
    const head = results.reduce((max, r) => (r.position > max ? r.position : max), -1n);
    await Promise.all([first.waitFor(head), second.waitFor(head)]);
    expect(await counts(db.pool)).to.deep.equal({ 'count-0': 10, 'count-1': 10, 'count-2': 10, 'count-3': 10 });
  });

  it('resumes from its checkpoint after a restart without repeating', async () => {
    await countedAndStopped(2);
    const after = await store.append('count-a', [event()], 'any');
    const second = runner([counter()]);
    await second.start();
    await second.waitFor(after.position);
    expect(await counts(db.pool)).to.deep.equal({ 'count-a': 3 });
  });

  it('rebuilds into fresh tables and swaps them in while reads keep working', async () => {
    for (let i = 0; i < 30; i += 1) await store.append(`count-${i % 3}`, [event(), event(), event()], 'any');
    const running = runner([counter({ delayMs: 5 })], 10);
    await running.start();
    await running.waitFor(await store.headPosition());
    const expected = { 'count-0': 30, 'count-1': 30, 'count-2': 30 };
    expect(await counts(db.pool)).to.deep.equal(expected);

    let reading = true;
    const readErrors: unknown[] = [];
    const wrongReads: unknown[] = [];
    const reader = (async () => {
      while (reading) {
        try {
          const rows = await counts(db.pool);
          const total = Object.values(rows).reduce((a, b) => a + b, 0);
          if (total < 90) wrongReads.push(rows); // never an empty or half-built table
        } catch (error) {
          readErrors.push(error);
        }
        await sleep(2);
      }
    })();
    const rebuilding = running.rebuild('counter');
    // Writes during the rebuild land in both the live tables and the rebuilt ones.
    const during = await store.append('count-0', [event()], 'any');
    const result = await rebuilding;
    await running.waitFor(during.position);
    reading = false;
    await reader;
    expect(readErrors).to.deep.equal([]);
    expect(wrongReads).to.deep.equal([]);
    expect(result.position >= (await readCheckpoint(db.pool, 'counter'))!.position - 1n).to.equal(true);
    expect(await counts(db.pool)).to.deep.equal({ ...expected, 'count-0': 31 });
    const { rows } = await db.pool.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild_%'`);
    expect(rows).to.deep.equal([]);
  });

  it('rebuilds from zero at start when the projector version changed', async () => {
    const written = await countedAndStopped(2);
    await db.pool.query(`UPDATE counts SET n = 99`); // a stale, wrong read model
    const upgraded = runner([counter({ version: 2 })]);
    await upgraded.start();
    await upgraded.waitFor(written);
    expect(await counts(db.pool)).to.deep.equal({ 'count-a': 2 });
    expect((await readCheckpoint(db.pool, 'counter'))!.version).to.equal(2);
  });

  it('drops the tables and checkpoint of a retired projector at start, and nothing of a registered one', async () => {
    const old = runner([counter()]);
    await old.start();
    await old.waitFor((await store.append('count-a', [event()], 'any')).position);
    await old.stop();
    // what a build that still ran it left: its table and checkpoint
    await db.pool.query('CREATE TABLE retired_extra (x integer)');
    await setCheckpoint(db.pool, 'retired_counter', 1, 0n);
    const retired = [
      { name: 'retired_counter', tables: ['retired_extra'] },
      { name: 'counter', tables: ['counts'] },
    ];
    const upgraded = new ProjectionRunner({ pool: db.pool, store, projectors: [counter()], retired });
    runners.push(upgraded);
    await upgraded.start();
    const tables = await db.pool.query<{ name: string }>(
      "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename IN ('retired_extra', 'counts')",
    );
    expect(tables.rows.map((r) => r.name)).to.deep.equal(['counts']);
    expect(await readCheckpoint(db.pool, 'retired_counter')).to.equal(undefined);
    expect(await readCheckpoint(db.pool, 'counter')).to.not.equal(undefined);
    expect(await counts(db.pool)).to.deep.equal({ 'count-a': 1 });
  });
});
