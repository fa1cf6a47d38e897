// Periodic engine snapshots made by a worker thread from the journal on postgres: the snapshot
// it writes is the engine's state at a journaled step (recovery from it reaches the live state's
// hash), a stop while it runs leaves no partial file and a snapshot at the last step, and a worker
// that cannot reach the journal only costs a warning.

import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { startEngine, type EngineDeps } from '../../engine/process.ts';
import { recover, snapshotPath } from '../../engine/recovery.ts';
import type { SnapshotSource } from '../../engine/snapshotter.ts';
import { stateHash } from '../../domain/engine/snapshot.ts';
import { PostgresEventStore } from '../../eventstore/postgres.ts';
import { testDatabase, type TestDatabase } from '../support/pg.ts';
import { account, deposit, market, order, place, sportEvent, T0 } from '../domain/engine/support.ts';

/** A logger whose lines are kept for the test to read. */
function capturingLogger() {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line.trim()) lines.push(JSON.parse(line) as (typeof lines)[number]);
      callback();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const snapshotSeq = (dataDir: string): number | undefined => {
  try {
    const text = readFileSync(snapshotPath(dataDir), 'utf8');
    return (JSON.parse(text.slice(0, text.indexOf('\n'))) as { seq: number }).seq;
  } catch {
    return undefined;
  }
};

const leftovers = (dataDir: string): string[] => {
  try {
    return readdirSync(path.join(dataDir, 'engine')).filter((name) => name.endsWith('.tmp'));
  } catch {
    return [];
  }
};

describe('engine snapshots made by a worker thread', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let store: PostgresEventStore;
  const dirs: string[] = [];
  before(async () => {
    database = await testDatabase();
    store = new PostgresEventStore({ pool: database.pool, connectionString: database.connectionString });
  });
  after(async () => {
    await store.close();
    await database.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const newDir = (): string => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'engine-snap-'));
    dirs.push(dir);
    return dir;
  };

  const deps = (dataDir: string, logger: pino.Logger, source: SnapshotSource, every: number): EngineDeps => {
    let now = T0;
    return {
      store,
      dataDir,
      logger,
      snapshotSource: source,
      snapshotEverySteps: every,
      clock: { nowUs: () => (now += 1000) },
      writes: { note: () => undefined, lastFor: () => undefined },
    };
  };

  /** Opens accounts and a market under fresh ids, then places `orders` crossing and resting orders. */
  async function trade(engine: Awaited<ReturnType<typeof startEngine>>, tag: string, orders: number): Promise<void> {
    for (const input of [
      account(`${tag}a`),
      account(`${tag}b`),
      deposit(`${tag}a`, '1000'),
      deposit(`${tag}b`, '1000'),
      sportEvent(`${tag}ev`),
      market(`${tag}m`, { event_id: `${tag}ev` }),
    ]) {
      expect((await engine.submit(input)).ok).to.equal(true);
    }
    for (let i = 0; i < orders; i += 5) {
      const replies = await Promise.all(
        Array.from({ length: 5 }, (_, k) => {
          const n = i + k;
          const owner = n % 2 === 0 ? `${tag}a` : `${tag}b`;
          return engine.submit(
            place(owner, {
              ...order(`${tag}o${n}`, n % 2 === 0 ? 'buy' : 'sell', n % 3 === 0 ? '0.50' : '0.40', '2'),
              market_id: `${tag}m`,
            }),
          );
        }),
      );
      for (const reply of replies) expect(reply.ok).to.equal(true);
    }
  }

  it('writes a snapshot of a journaled step; recovery from it reaches the live state', async () => {
    const dataDir = newDir();
    const { logger, lines } = capturingLogger();
    const engine = await startEngine(
      deps(dataDir, logger, { kind: 'postgres', connectionString: database.connectionString }, 20),
    );
    try {
      await trade(engine, 's1', 40);
      await until(() => lines.some((line) => line.msg === 'engine snapshot written by worker'), 'the worker snapshot');
      const written = lines.find((line) => line.msg === 'engine snapshot written by worker')!;
      expect(written).to.include({ written: true });
      const seq = snapshotSeq(dataDir);
      expect(seq).to.be.a('number').and.to.be.at.least(20);
      expect(leftovers(dataDir)).to.deep.equal([]);

      const live = stateHash(engine.engine.state);
      const recovered = await recover(store, dataDir);
      expect(recovered.fromSnapshot).to.equal(true);
      expect(recovered.replayedSteps).to.equal(engine.engine.state.seq - seq!);
      expect(stateHash(recovered.engine.state)).to.equal(live);
    } finally {
      await engine.stop();
    }
  });

  it('a stop while the worker runs leaves no partial file and a snapshot at the last step', async () => {
    const dataDir = newDir();
    const { logger, lines } = capturingLogger();
    const engine = await startEngine(
      deps(dataDir, logger, { kind: 'postgres', connectionString: database.connectionString }, 5),
    );
    await trade(engine, 's2', 10);
    const last = engine.engine.state.seq;
    const hash = stateHash(engine.engine.state);
    await engine.stop();
    expect(leftovers(dataDir)).to.deep.equal([]);
    expect(snapshotSeq(dataDir)).to.equal(last);
    expect(lines.map((line) => line.msg)).to.include(
      'engine snapshot worker stopped: the engine is stopping and writes its own',
    );
    expect(lines.filter((line) => line.level >= 40)).to.deep.equal([]);
    const recovered = await recover(store, dataDir);
    expect(recovered).to.include({ fromSnapshot: true, replayedSteps: 0 });
    expect(stateHash(recovered.engine.state)).to.equal(hash);
  });

  it('recovery from a store that cannot be read fails instead of starting from an empty state', async () => {
    const failing = {
      ...store,
      kind: 'postgres',
      readStream: () => Promise.reject(new Error('connection refused')),
    } as unknown as PostgresEventStore;
    let failure: unknown;
    await recover(failing, newDir()).catch((error: unknown) => {
      failure = error;
    });
    expect(failure).to.be.instanceOf(Error).with.property('message', 'connection refused');
  });

  it('a worker that cannot reach the journal is a warning; the engine goes on', async () => {
    const dataDir = newDir();
    const { logger, lines } = capturingLogger();
    const unreachable: SnapshotSource = {
      kind: 'postgres',
      connectionString: 'postgres://nobody:wrong@127.0.0.1:1/none',
    };
    const engine = await startEngine(deps(dataDir, logger, unreachable, 10));
    try {
      await trade(engine, 's3', 20);
      await until(
        () => lines.some((line) => line.msg.startsWith('engine snapshot worker failed')),
        'the worker failure',
      );
      expect(lines.find((line) => line.msg.startsWith('engine snapshot worker failed'))).to.have.property('level', 40);
      expect(snapshotSeq(dataDir)).to.equal(undefined);
      expect(leftovers(dataDir)).to.deep.equal([]);
      expect((await engine.submit(deposit('s3a', '1'))).ok).to.equal(true);
    } finally {
      await engine.stop();
    }
  });
});
