// The engine process on the postgres event store: journaling, fencing of a second engine, and
// recovery plus replay verification against a real database.

import { EngineStoppedError } from '../../engine/gateway.ts';
import { FENCED } from '../../engine/pipeline.ts';
import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { ENGINE_STREAM, journalStepsOf } from '../../domain/engine/journal/journal.ts';
import { startEngine } from '../../engine/process.ts';
import { verifyJournal } from '../../engine/verify.ts';
import { stateHash } from '../../domain/engine/snapshot.ts';
import { PostgresEventStore } from '../../eventstore/postgres.ts';
import { testDatabase, type TestDatabase } from '../support/pg.ts';
import { account, order, place, T0, twoFundedAccountsAndAMarket } from '../domain/engine/support.ts';

describe('engine process on postgres', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let store: PostgresEventStore;
  let dataDir: string;
  before(async () => {
    database = await testDatabase();
    store = new PostgresEventStore({ pool: database.pool, connectionString: database.connectionString });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'engine-int-'));
  });
  after(async () => {
    await store.close();
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const deps = (dir: string) => {
    let now = T0;
    return {
      store,
      dataDir: dir,
      clock: { nowUs: () => (now += 1000) },
      logger: pino({ level: 'silent' }),
      writes: { note: () => undefined, lastFor: () => undefined },
    };
  };

  it('journals, recovers the same state, verifies, and fences a second writer', async () => {
    const engine = await startEngine(deps(dataDir));
    const secondDir = mkdtempSync(path.join(os.tmpdir(), 'engine-int-'));
    const second = await startEngine(deps(secondDir));
    try {
      for (const input of twoFundedAccountsAndAMarket()) {
        expect((await engine.submit(input)).ok).to.equal(true);
      }
      const replies = await Promise.all([
        engine.submit(place('a', order('o1', 'buy', '0.40', '10'))),
        engine.submit(place('b', order('o2', 'sell', '0.35', '4'))),
        engine.submit(place('b', order('o3', 'sell', '0.45', '4'))),
      ]);
      const records = await store.readStream(ENGINE_STREAM);
      expect(records.flatMap((r) => journalStepsOf(r)).map((step) => step.seq)).to.deep.equal([
        1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
      for (const reply of replies) {
        const record = records.find((r) => r.position === reply.position)!;
        expect(journalStepsOf(record).map((step) => step.seq)).to.include(reply.seq);
      }

      let failure: unknown;
      await second.submit(account('z')).catch((error) => {
        failure = error;
      }); // its state is stale: started before any step
      expect(failure).to.be.instanceOf(EngineStoppedError); // fenced: nothing journaled
      expect((failure as EngineStoppedError).reason).to.equal(FENCED);

      const hash = stateHash(engine.engine.state);
      await engine.stop();
      const restarted = await startEngine(deps(dataDir));
      expect(stateHash(restarted.engine.state)).to.equal(hash);
      await restarted.stop();
      const report = await verifyJournal(store, dataDir);
      expect(report).to.include({ ok: true, steps: 9, finalStateHash: hash });
    } finally {
      await engine.stop();
      await second.stop();
      rmSync(secondDir, { recursive: true, force: true });
    }
  });
});
