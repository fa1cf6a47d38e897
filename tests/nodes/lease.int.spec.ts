// The writer lease on one embedded PostgreSQL: at most one holder, taken over once it ends, a
// deposed holder's renewal refused; and the engine behind it: a writer past its lease decides
// nothing, and a deposed writer that still decides (paused past its lease, unaware) has its
// append fenced by the journal's expected revision and answers nothing it did not journal.

import { FENCED } from '../../engine/pipeline.ts';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ENGINE_STREAM, journalStepsOf } from '../../domain/engine/journal/journal.ts';
import { EngineStoppedError } from '../../engine/gateway.ts';
import { startEngine } from '../../engine/process.ts';
import { WRITER_LEASE_ENDED } from '../../engine/writerGate.ts';
import { PostgresEventStore } from '../../eventstore/postgres.ts';
import { WriterLease, readWriterLease } from '../../cli/nodes/lease.ts';
import { testDatabase, type TestDatabase } from '../support/pg.ts';
import { account, deposit, T0 } from '../domain/engine/support.ts';

const SHORT_LEASE_MS = 300;
const silent = pino({ level: 'silent' });

/** Polls `attempt` until it answers a value (bounded: the test's own timeout is the failure). */
async function eventually<T>(attempt: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('writer lease', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let store: PostgresEventStore;
  const dirs: string[] = [];
  const leases: WriterLease[] = [];
  before(async () => {
    database = await testDatabase();
    store = new PostgresEventStore({ pool: database.pool, connectionString: database.connectionString });
  });
  after(async () => {
    for (const lease of leases) await lease.close();
    await store.close();
    await database.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const leaseFor = (nodeId: string): WriterLease => {
    const lease = new WriterLease(
      database.connectionString,
      nodeId,
      `http://127.0.0.1:1/${nodeId}`,
      silent,
      SHORT_LEASE_MS,
    );
    leases.push(lease);
    return lease;
  };
  const engineDeps = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lease-engine-'));
    dirs.push(dir);
    let now = T0;
    return {
      store,
      dataDir: dir,
      clock: { nowUs: () => (now += 1000) },
      logger: silent,
      writes: { note: () => undefined, lastFor: () => undefined },
    };
  };

  it('has one holder at a time; another takes it once it ends, with the next epoch, and the first can no longer renew', async () => {
    const first = leaseFor('first');
    const second = leaseFor('second');
    const taken = await first.tryAcquire();
    expect(taken).to.include({ nodeId: 'first', valid: true });
    expect(first.held()?.epoch).to.equal(taken!.epoch);

    const refused = await second.tryAcquire();
    expect(refused).to.include({ nodeId: 'first', valid: true });
    expect(second.held()).to.equal(undefined);
    expect(await first.renew()).to.equal(true);

    // the first stops renewing (paused, or its connection cut): once the lease ended the second takes it
    const takeover = await eventually(async () => {
      const row = await second.tryAcquire();
      return row?.nodeId === 'second' ? row : undefined;
    });
    expect(takeover.epoch).to.equal(taken!.epoch + 1n);
    expect(second.held()).to.deep.equal({ nodeId: 'second', epoch: takeover.epoch });
    expect(first.held()).to.equal(undefined);
    expect(await first.renew()).to.equal(false);

    // the deposed holder's release changes nothing of the new lease
    await first.release();
    expect(await readWriterLease(database.pool)).to.deep.include({
      nodeId: 'second',
      epoch: takeover.epoch,
      valid: true,
    });
    await second.release();
    expect(await readWriterLease(database.pool)).to.deep.include({ nodeId: 'second', valid: false });
  });

  it('a writer past its lease decides nothing (refused once deposed); a deposed writer that still decides is fenced and answers nothing it did not journal', async () => {
    const oldLease = leaseFor('old-writer');
    await eventually(async () => ((await oldLease.tryAcquire())?.nodeId === 'old-writer' ? true : undefined));
    const gated = await startEngine({ ...engineDeps(), mayDecide: () => oldLease.held() !== undefined });
    // a writer that does not know it was deposed (paused past its lease): it still decides
    const unaware = await startEngine(engineDeps());
    try {
      expect((await gated.submit(account('a'))).ok).to.equal(true);

      // the lease ends without renewal and another node takes it
      const newLease = leaseFor('new-writer');
      await eventually(async () => ((await newLease.tryAcquire())?.nodeId === 'new-writer' ? true : undefined));
      const newWriter = await startEngine({ ...engineDeps(), mayDecide: () => newLease.held() !== undefined });
      try {
        expect((await newWriter.submit(deposit('a', '100'))).ok).to.equal(true);
        const journaled = await store.readStream(ENGINE_STREAM);

        // the old writer, past its lease, decides nothing: the input waits undecided until its node
        // learns the lease is another's (its renewal refused) and halts it: refused, never answered
        const waiting = gated.submit(account('b')).then(
          () => 'answered',
          (error: unknown) => error,
        );
        await new Promise((resolve) => setTimeout(resolve, 3 * SHORT_LEASE_MS));
        expect((await store.readStream(ENGINE_STREAM)).map((record) => record.id)).to.deep.equal(
          journaled.map((record) => record.id),
        );
        expect(await oldLease.renew()).to.equal(false);
        gated.halt(WRITER_LEASE_ENDED);
        const gatedRefusal = await waiting;
        expect(gatedRefusal).to.be.instanceOf(EngineStoppedError);
        expect((gatedRefusal as EngineStoppedError).reason).to.equal(WRITER_LEASE_ENDED);

        let fenced: unknown;
        await unaware.submit(account('c')).catch((error: unknown) => (fenced = error));
        expect(fenced).to.be.instanceOf(EngineStoppedError); // fenced at the expected revision: nothing journaled
        expect((fenced as EngineStoppedError).reason).to.equal(FENCED);

        // nothing of either deposed writer reached the journal: only the two steps the lease holders journaled
        const after = await store.readStream(ENGINE_STREAM);
        expect(after.map((record) => record.id)).to.deep.equal(journaled.map((record) => record.id));
        expect(after.flatMap((record) => journalStepsOf(record)).map((step) => step.seq)).to.deep.equal([1, 2]);
      } finally {
        await newWriter.stop();
      }
    } finally {
      await gated.stop();
      await unaware.stop();
    }
  });
});
