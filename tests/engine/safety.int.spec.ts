// Money's invariants at run time, and the engine's bounded input queue:
// - a ledger that does not balance stops the engine before anything of the batch is journaled
//   or acknowledged, and every later write is refused;
// - a full input queue refuses new writes at once: REST answers 503 with Retry-After.

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { EngineStoppedError, startEngine, type RunningEngine } from '../../engine/process.ts';
import { ENGINE_STREAM } from '../../domain/engine/journal/journal.ts';
import { post } from '../../domain/engine/ledger.ts';
import { Big } from '../../domain/money/big.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { account, deposit, market, sportEvent, T0 } from '../domain/engine/support.ts';
import { startWholeService, type WholeService } from '../api/v1/harness.ts';

describe('engine safety', () => {
  describe('the ledger is asserted after every batch', () => {
    let dataDir: string;
    let engine: RunningEngine;
    let store: MemoryEventStore;

    beforeEach(async () => {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'engine-safety-'));
      store = new MemoryEventStore();
      let now = T0;
      engine = await startEngine({
        store,
        dataDir,
        clock: { nowUs: () => (now += 1000) },
        logger: pino({ level: 'silent' }),
        writes: { note: () => undefined, lastFor: () => undefined },
      });
      for (const input of [account('a'), account('b'), deposit('a', '100'), sportEvent(), market()])
        expect((await engine.submit(input)).ok).to.equal(true);
    });
    afterEach(async () => {
      await engine.stop().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('balanced steps are journaled and answered', async () => {
      const before = (await store.readStream(ENGINE_STREAM)).length;
      expect((await engine.submit(deposit('b', '5'))).ok).to.equal(true);
      expect(await store.readStream(ENGINE_STREAM)).to.have.length(before + 1);
    });

    it('an unbalanced transfer stops the engine: the step is neither journaled nor acknowledged, later writes are refused', async () => {
      const journaled = (await store.readStream(ENGINE_STREAM)).length;
      // the seam: a cent appears in one member's cash with no counterparty (what a bug would do:
      // one side of a movement posted without the other)
      const alice = engine.engine.state.accounts.get('a')!;
      post(engine.engine.state, alice, new Big('0.01'));
      let refused: unknown;
      await engine.submit(deposit('b', '5')).catch((error: unknown) => {
        refused = error;
      });
      expect(refused).to.be.instanceOf(EngineStoppedError);
      expect((refused as Error).message).to.match(/ledger out of balance: the accounts sum to 0\.01 instead of 0/);
      expect(await store.readStream(ENGINE_STREAM)).to.have.length(journaled);
      let later: unknown;
      await engine.submit(deposit('a', '1')).catch((error: unknown) => {
        later = error;
      });
      expect(later).to.be.instanceOf(EngineStoppedError);
    });
  });

  describe('the input queue is bounded', () => {
    let svc: WholeService;
    const QUEUE_MAX = 3;
    before(async () => {
      svc = await startWholeService({}, { engine: { queueInputsMax: QUEUE_MAX } });
    });
    after(async () => {
      await svc?.stop();
    });

    it('a full queue answers 503 with Retry-After at once; the queued writes go through once the journal moves', async () => {
      const alice = await svc.member();
      const { market_id: marketId } = await svc.market();
      // hold the journal: appends wait until released, so inputs pile up in the queue
      let release!: () => void;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const append = svc.store.append.bind(svc.store);
      svc.store.append = async (...args: Parameters<typeof append>) => {
        await gate;
        return append(...args);
      };
      const order = (i: number) =>
        alice.call('POST', '/api/v1/orders', {
          body: {
            action: 'buy',
            market_id: marketId,
            order_type: 'limit',
            price: '0.10',
            quantity: '1',
            client_order_id: `q-${i}`,
          },
        });
      const first = order(0); // decided, its append held at the gate
      await new Promise((resolve) => setTimeout(resolve, 50));
      const queued = Array.from({ length: QUEUE_MAX }, (_, i) => order(i + 1));
      await new Promise((resolve) => setTimeout(resolve, 50));
      const overflow = await order(99);
      expect(overflow.status).to.equal(503);
      expect(overflow.headers['retry-after']).to.be.a('string');
      expect(overflow.body.error).to.equal('The exchange is busy; retry shortly');
      release();
      svc.store.append = append;
      for (const answer of await Promise.all([first, ...queued])) expect(answer.status).to.equal(200);
    });
  });
});
