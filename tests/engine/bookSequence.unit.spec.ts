// Each market's book seq is a function of the journal: the engine that decided the steps
// publishes, market by market, one change per journal record with seq +1 each; an engine
// recovered from zero and one recovered from a snapshot plus the journal tail count the same
// seqs, and an engine restarted from its snapshot goes on from them.

import { expect } from 'chai';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startEngine, type RunningEngine } from '../../engine/process.ts';
import { recover } from '../../engine/recovery.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { account, deposit, market, order, place, sportEvent, T0 } from '../domain/engine/support.ts';

const MARKETS = ['m1', 'm2', 'm3'];

function deps(store: MemoryEventStore, dataDir: string) {
  let now = T0;
  return {
    store,
    dataDir,
    clock: { nowUs: () => (now += 1000) },
    logger: pino({ level: 'silent' }),
    writes: { note: () => undefined, lastFor: () => undefined },
  };
}

/** A small deterministic generator (the test needs no particular numbers, only the same ones each run). */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('engine: the book seq is a function of the journal', () => {
  const dirs: string[] = [];
  const running: RunningEngine[] = [];
  const dir = () => {
    const made = mkdtempSync(path.join(os.tmpdir(), 'book-seq-'));
    dirs.push(made);
    return made;
  };
  afterEach(async () => {
    for (const engine of running.splice(0)) await engine.stop().catch(() => undefined);
    for (const made of dirs.splice(0)) rmSync(made, { recursive: true, force: true });
  });

  it('the writer, a replica from zero and one from a snapshot plus the tail give every market the same seq', async function () {
    this.timeout(60_000);
    const store = new MemoryEventStore();
    const writerDir = dir();
    const published = new Map<string, number[]>();
    const start = async (): Promise<RunningEngine> => {
      const engine = await startEngine(deps(store, writerDir));
      running.push(engine);
      engine.books.onChange((change) => {
        if (change.kind !== 'levels') return;
        for (const book of change.books)
          published.set(book.market_id, [...(published.get(book.market_id) ?? []), book.seq]);
      });
      return engine;
    };
    const random = generator(7);
    let orders = 0;
    // many orders at once: batches of several journal records, each record moving several markets
    const round = (engine: RunningEngine, count: number) =>
      Promise.all(
        Array.from({ length: count }, () => {
          const action = random() < 0.5 ? 'buy' : 'sell';
          const cents = 40 + Math.floor(random() * 20);
          const request = order(`o${++orders}`, action, `0.${cents}`, String(1 + Math.floor(random() * 3)), {
            market_id: MARKETS[Math.floor(random() * MARKETS.length)]!,
          });
          return engine.submit(place(random() < 0.5 ? 'a' : 'b', request));
        }),
      );

    let writer = await start();
    for (const input of [
      account('a'),
      account('b'),
      deposit('a', '100000'),
      deposit('b', '100000'),
      sportEvent(),
      ...MARKETS.map((id) => market(id)),
    ])
      expect((await writer.submit(input)).ok, input.kind).to.equal(true);
    await round(writer, 700);
    await round(writer, 300);
    await writer.stop(); // a clean stop writes the snapshot
    running.splice(running.indexOf(writer), 1);
    const snapshotDir = dir();
    cpSync(writerDir, snapshotDir, { recursive: true });

    writer = await start(); // from its snapshot
    const restarted = new Map(writer.books.snapshot().map((book) => [book.market_id, book.seq]));
    for (const id of MARKETS) expect(restarted.get(id), id).to.equal(published.get(id)!.at(-1));
    await round(writer, 900);
    const writerSeqs = new Map(writer.books.snapshot().map((book) => [book.market_id, book.seq]));

    // published: +1 per change, no gap, across the restart
    for (const id of MARKETS) {
      const seqs = published.get(id)!;
      expect(seqs.length, id).to.be.above(10);
      expect(seqs, id).to.deep.equal(seqs.map((_, i) => i + 1));
      expect(writerSeqs.get(id), id).to.equal(seqs.at(-1));
    }

    const fromZero = await recover(store, null);
    const fromSnapshot = await recover(store, snapshotDir);
    expect(fromZero.fromSnapshot).to.equal(false);
    expect(fromSnapshot.fromSnapshot).to.equal(true);
    expect(fromSnapshot.replayedSteps).to.be.above(0).and.below(fromZero.replayedSteps);
    const sorted = (seqs: ReadonlyMap<string, number>) => [...seqs].sort(([a], [b]) => (a < b ? -1 : 1));
    expect(sorted(fromZero.bookSequence.entries())).to.deep.equal(sorted(writerSeqs));
    expect(sorted(fromSnapshot.bookSequence.entries())).to.deep.equal(sorted(writerSeqs));
  });
});
