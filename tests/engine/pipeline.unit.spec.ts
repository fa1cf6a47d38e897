// The engine process issues the next batch's append before the previous one has landed. A failed
// append must fail the batches issued behind it with the same error (not as fencing), leave the
// journal without them, and the engine must go on from the journal.

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { BATCH_INPUTS_MAX } from '../../engine/batch.ts';
import { startEngine } from '../../engine/process.ts';
import { ENGINE_STREAM, journalStepsOf } from '../../domain/engine/journal/journal.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import type { AppendResult, ExpectedRevision, NewEvent } from '../../eventstore/port.ts';
import { account, deposit, T0 } from '../domain/engine/support.ts';

describe('engine process: pipelined appends', () => {
  it('a failed append fails the batches issued behind it with its error; the engine reloads and goes on', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'engine-test-'));
    const store = new MemoryEventStore();
    let now = T0;
    const engine = await startEngine({
      store,
      dataDir,
      clock: { nowUs: () => (now += 1000) },
      logger: pino({ level: 'silent' }),
      writes: { note: () => undefined, lastFor: () => undefined },
    });
    try {
      expect((await engine.submit(account('a'))).ok).to.equal(true);
      const realAppend = store.append.bind(store);
      let calls = 0;
      const sizes: number[] = [];
      store.append = async (stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> => {
        calls += 1;
        sizes.push(events.length);
        if (calls === 1) {
          await new Promise((resolve) => setTimeout(resolve, 30)); // still in flight while the next batches are issued
          return realAppend(stream, events, expected);
        }
        if (calls === 2) {
          await new Promise((resolve) => setTimeout(resolve, 5));
          throw new Error('disk full');
        }
        return realAppend(stream, events, expected);
      };
      const count = BATCH_INPUTS_MAX * 2 + 10;
      const outcomes = await Promise.all(
        Array.from({ length: count }, () =>
          engine.submit(deposit('a', '1')).then(
            (reply) => (reply.ok ? 'ok' : 'refused'),
            (error: unknown) => String(error),
          ),
        ),
      );
      expect(calls).to.be.greaterThanOrEqual(2);
      // The first append's inputs succeed; the inputs of every append issued behind the failed one
      // fail with its error; inputs still waiting when the failure was seen are decided afresh
      // after the reload and succeed.
      const firstFailed = outcomes.indexOf('Error: disk full');
      expect(firstFailed).to.be.within(1, BATCH_INPUTS_MAX);
      let afterFailures = firstFailed;
      while (afterFailures < outcomes.length && outcomes[afterFailures] === 'Error: disk full') afterFailures++;
      expect(outcomes.slice(0, firstFailed).every((o) => o === 'ok')).to.equal(true);
      expect(outcomes.slice(afterFailures).every((o) => o === 'ok')).to.equal(true);
      const succeeded = outcomes.filter((o) => o === 'ok').length;

      // Not fenced: the engine answers again, from the state the journal holds.
      const after = await engine.submit(deposit('a', '1'));
      expect(after.ok).to.equal(true);
      const journal = await store.readStream(ENGINE_STREAM);
      expect(journal.flatMap((record) => journalStepsOf(record)).length).to.equal(1 + succeeded + 1);
      const cash = engine.engine.state.accounts.get('a')!.cash;
      expect(cash.toFixed(2)).to.equal(String(succeeded + 1) + '.00');
    } finally {
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
