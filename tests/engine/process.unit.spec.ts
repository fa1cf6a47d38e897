// The engine process over the memory event store: journaling each group commit as EngineSteps
// records, replies with positions, fencing, and recovery from snapshot plus journal tail.

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { RECORD_EVENTS_MAX } from '../../engine/batch.ts';
import { startEngine, type RunningEngine } from '../../engine/process.ts';
import { engineEventsOf, ENGINE_STREAM, journalStepsOf } from '../../domain/engine/journal/journal.ts';
import { JOURNAL_READ_PAGE_SIZE, recover, writeSnapshot } from '../../engine/recovery.ts';
import { Engine } from '../../domain/engine/engine.ts';
import { decodeState, encodeState, stateHash } from '../../domain/engine/snapshot.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { EngineStoppedError } from '../../engine/gateway.ts';
import { FENCED } from '../../engine/pipeline.ts';
import { deposit, order, place, T0, twoFundedAccountsAndAMarket } from '../domain/engine/support.ts';

function deps(store: MemoryEventStore, dataDir: string) {
  const noted = new Map<string, bigint>();
  let now = T0;
  return {
    store,
    dataDir,
    noted,
    clock: { nowUs: () => (now += 1000) },
    logger: pino({ level: 'silent' }),
    writes: { note: (id: string, p: bigint) => noted.set(id, p), lastFor: (id: string) => noted.get(id) },
  };
}

describe('engine process', () => {
  let dataDir: string;
  const running: RunningEngine[] = [];
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'engine-test-'));
  });
  afterEach(async () => {
    for (const engine of running.splice(0)) await engine.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function setup(store = new MemoryEventStore()) {
    const d = deps(store, dataDir);
    const engine = await startEngine(d);
    running.push(engine);
    for (const input of twoFundedAccountsAndAMarket()) {
      const reply = await engine.submit(input);
      expect(reply.ok, input.kind).to.equal(true);
    }
    return { engine, store, d };
  }

  it('recovers a journal longer than one read page (JOURNAL_READ_PAGE_SIZE records)', async () => {
    const { engine, store } = await setup();
    const records = JOURNAL_READ_PAGE_SIZE * 2 + 7;
    for (let i = 6; i < records; i++) expect((await engine.submit(deposit('a', '1'))).ok).to.equal(true);
    expect(await store.readStream(ENGINE_STREAM)).to.have.length(records);
    const recovered = await recover(store, null);
    expect(recovered).to.include({ replayedSteps: records, fromSnapshot: false });
    expect(stateHash(recovered.engine.state)).to.equal(stateHash(engine.engine.state));
  });

  it('journals an accepted input as a step of an EngineSteps record, with the reply position of that record', async () => {
    const { engine, store, d } = await setup();
    const reply = await engine.submit(place('a', order('o1', 'buy', '0.40', '10')));
    expect(reply.ok).to.equal(true);
    const records = await store.readStream(ENGINE_STREAM);
    expect(records).to.have.length(7);
    const last = records[records.length - 1]!;
    expect(last.type).to.equal('EngineSteps');
    expect(journalStepsOf(last).map((step) => step.seq)).to.deep.equal([reply.seq]);
    expect(last.position).to.equal(reply.position);
    expect(engineEventsOf(last)).to.deep.equal(reply.events);
    expect(d.noted.get('a')).to.equal(reply.position);
  });

  it('does not journal a refused input and answers 422-style refusal', async () => {
    const { engine, store } = await setup();
    const reply = await engine.submit(place('a', order('o1', 'buy', '0.40', '10', { market_id: 'nope' })));
    expect(reply.ok).to.equal(false);
    expect(reply.error).to.deep.equal({ code: 'order_market_unknown' });
    expect(await store.readStream(ENGINE_STREAM)).to.have.length(6);
  });

  it('group-commits concurrent submissions and answers each with its own outcome', async () => {
    const { engine, store } = await setup();
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        engine.submit(place(i % 2 ? 'a' : 'b', order(`o${i}`, i % 2 ? 'buy' : 'sell', '0.50', '1'))),
      ),
    );
    expect(replies.every((r) => r.ok)).to.equal(true);
    expect(new Set(replies.map((r) => r.seq)).size).to.equal(50);
    const records = await store.readStream(ENGINE_STREAM);
    const batched = records.slice(6);
    // fewer records than inputs: concurrent submissions share a record
    expect(batched.length).to.be.within(1, 49);
    expect(batched.flatMap((r) => journalStepsOf(r)).map((step) => step.seq)).to.deep.equal(
      [...replies.map((r) => r.seq)].sort((x, y) => x - y),
    );
    for (const reply of replies) {
      const record = records.find((r) => r.position === reply.position)!;
      const step = journalStepsOf(record).find((s) => s.seq === reply.seq)!;
      expect(step.events).to.deep.equal(reply.events);
    }
  });

  it('closes a record once it holds RECORD_EVENTS_MAX outcome events (big batch steps), answering every leg', async () => {
    // appends that take a while, so that the burst below is decided into one batch
    class SlowStore extends MemoryEventStore {
      delayMs = 0;
      override async append(...args: Parameters<MemoryEventStore['append']>) {
        if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
        return super.append(...args);
      }
    }
    const { engine, store } = await setup(new SlowStore());
    await engine.submit({ kind: 'Deposit', account_id: 'a', entry_id: 'more-a', amount: '100000' });
    await engine.submit({ kind: 'Deposit', account_id: 'b', entry_id: 'more-b', amount: '100000' });
    const before = (await store.readStream(ENGINE_STREAM)).length;
    (store as SlowStore).delayMs = 50;
    // 40 batches of 100 crossing legs each, submitted together: far more than one record's worth
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, b) =>
        engine.submit({
          kind: 'PlaceOrders',
          account_id: b % 2 ? 'a' : 'b',
          orders: Array.from({ length: 100 }, (_, i) => order(`batch${b}-${i}`, b % 2 ? 'buy' : 'sell', '0.50', '1')),
        }),
      ),
    );
    expect(replies.every((reply) => reply.ok && reply.legs?.length === 100)).to.equal(true);
    const records = (await store.readStream(ENGINE_STREAM)).slice(before);
    for (const record of records) {
      const steps = journalStepsOf(record);
      const events = steps.reduce((sum, step) => sum + step.events.length, 0);
      // a record closes at the step that reaches the bound: below it before that step
      expect(events - steps[steps.length - 1]!.events.length, `record at ${record.position}`).to.be.below(
        RECORD_EVENTS_MAX,
      );
    }
    expect(records.flatMap((r) => journalStepsOf(r)).map((s) => s.seq)).to.deep.equal(
      replies.map((r) => r.seq).sort((x, y) => x - y),
    );
  });

  it('recovers the same state from the journal, and from a snapshot plus the tail', async () => {
    const { engine, store } = await setup();
    await engine.submit(place('a', order('o1', 'buy', '0.40', '10')));
    const atSeven = (await store.readStream(ENGINE_STREAM))[6]!;
    const snapshotState = encodeState(engine.engine.state);
    await engine.submit(place('b', order('o2', 'sell', '0.30', '4')));
    const hash = stateHash(engine.engine.state);
    await engine.stop();
    rmSync(path.join(dataDir, 'engine'), { recursive: true, force: true });
    const fromJournal = await startEngine(deps(store, dataDir));
    running.push(fromJournal);
    expect(stateHash(fromJournal.engine.state)).to.equal(hash);
    await fromJournal.stop();

    // A snapshot at seq 7 (market m's book moved by one record) plus the one-step tail gives the same state.
    const bookSeqs = new Map([['m', 1]]);
    const snapshotAtSeven = (recordId: string) =>
      writeSnapshot(
        dataDir,
        new Engine(decodeState(snapshotState)),
        6n,
        atSeven.position,
        recordId,
        undefined,
        undefined,
        bookSeqs,
      );
    await snapshotAtSeven(atSeven.id);
    const recovered = await recover(store, dataDir);
    expect(recovered).to.include({ fromSnapshot: true, replayedSteps: 1 });
    expect(stateHash(recovered.engine.state)).to.equal(hash);
    expect([...recovered.bookSequence.entries()]).to.deep.equal([['m', 2]]);

    // A snapshot without the book seqs (written before they were kept) is replayed past.
    await writeSnapshot(dataDir, new Engine(decodeState(snapshotState)), 6n, atSeven.position, atSeven.id);
    expect(await recover(store, dataDir)).to.include({ fromSnapshot: false, replayedSteps: 8 });

    // A snapshot of another journal (same seq, other record) is ignored.
    await snapshotAtSeven('another-journal');
    const ignored = await recover(store, dataDir);
    expect(ignored).to.include({ fromSnapshot: false, replayedSteps: 8 });
    expect(stateHash(ignored.engine.state)).to.equal(hash);
  });

  it('fences a second engine: its append fails at the expected revision, its caller is told the engine stopped (nothing journaled), and it stops', async () => {
    const { engine, store } = await setup();
    const secondDir = mkdtempSync(path.join(os.tmpdir(), 'engine-test-'));
    const second = await startEngine(deps(store, secondDir));
    running.push(second);
    try {
      expect((await engine.submit(deposit('a', '1'))).ok).to.equal(true);
      let failure: unknown;
      await second.submit(deposit('b', '1')).catch((error) => {
        failure = error;
      });
      expect(failure).to.be.instanceOf(EngineStoppedError);
      expect((failure as EngineStoppedError).reason).to.equal(FENCED);
      let stopped: unknown;
      await second.submit(deposit('b', '1')).catch((error) => {
        stopped = error;
      });
      expect(String(stopped)).to.match(/engine stopped/);
    } finally {
      await second.stop();
      rmSync(secondDir, { recursive: true, force: true });
    }
  });
});

describe('replay verification', () => {
  it('reproduces every journaled step and the state hash, also from a snapshot', async () => {
    const { verifyJournal } = await import('../../engine/verify.ts');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'engine-verify-'));
    const store = new MemoryEventStore();
    const engine = await startEngine(deps(store, dataDir));
    try {
      for (const input of twoFundedAccountsAndAMarket()) await engine.submit(input);
      await engine.submit(place('a', order('o1', 'buy', '0.40', '10')));
      const atSeven = (await store.readStream(ENGINE_STREAM))[6]!;
      await writeSnapshot(dataDir, engine.engine, 6n, atSeven.position, atSeven.id);
      await engine.submit(place('b', order('o2', 'sell', '0.30', '4')));
      await engine.submit({ kind: 'ResultMarket', market_id: 'm', result: 'win' });
      const report = await verifyJournal(store, dataDir);
      expect(report).to.include({ steps: 9, ok: true, finalStateHash: stateHash(engine.engine.state) });
      expect(report.snapshot).to.deep.equal({ seq: 7, matches: true, resumedHashMatches: true });
      // A tampered journal is caught.
      const records = await store.readStream(ENGINE_STREAM);
      const facts = (records[7]!.data as { steps: [number, number, unknown, unknown[][]][] }).steps[0]![3];
      const fact = facts[facts.length - 1]!; // [type code, ...values]: the step's last FundsReserved
      fact[fact.length - 1] = 'tampered';
      const tampered = new MemoryEventStore();
      await tampered.append(
        ENGINE_STREAM,
        records.map((r) => ({ id: r.id, type: r.type, data: r.data })),
        'no_stream',
      );
      const bad = await verifyJournal(tampered, null);
      expect(bad.ok).to.equal(false);
      expect(bad.mismatches[0]!.seq).to.equal(8);
      // Recovery re-runs inputs without decoding the events, but a step whose event count no
      // longer matches the journal stops it.
      const shortened = await store.readStream(ENGINE_STREAM);
      (shortened[7]!.data as { steps: [number, number, unknown, unknown[]][] }).steps[0]![3].pop();
      const short = new MemoryEventStore();
      await short.append(
        ENGINE_STREAM,
        shortened.map((r) => ({ id: r.id, type: r.type, data: r.data })),
        'no_stream',
      );
      let failure: unknown;
      await recover(short, null).catch((error: unknown) => {
        failure = error;
      });
      expect(failure)
        .to.be.instanceOf(Error)
        .with.property('message')
        .that.matches(/^journal step 8 produces \d+ events where \d+ were journaled$/);
    } finally {
      await engine.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
