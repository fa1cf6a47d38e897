// The ONE contract every event store adapter passes (memory, postgres, esdb). Each adapter's
// spec file calls eventStoreContract() with a factory giving a fresh, empty store.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import {
  DuplicateEventId,
  WrongExpectedRevision,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
  type SubscribeOptions,
} from '../../eventstore/port.ts';

/** An append that has taken its global position but not committed yet (adapter specific). */
export interface HeldAppend {
  commit(): Promise<void>;
}

export interface ContractSubject {
  store: EventStore;
  /** True when the store starts empty for each test (memory, a fresh database); a shared server is not. */
  fresh: boolean;
  /** Optional: begin an append that holds its position uncommitted, to force out-of-order commits. */
  holdAppend?: (stream: string, event: NewEvent) => Promise<HeldAppend>;
  dispose(): Promise<void>;
}

const event = (type = 'Happened', data: unknown = { n: 1 }): NewEvent => ({ id: randomUUID(), type, data });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Collects a subscription's deliveries; waitForCount resolves when `count` events arrived. */
function collect(store: EventStore, options?: SubscribeOptions) {
  const seen: RecordedEvent[] = [];
  const batches: number[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const subscription = store.subscribeToAll(async (events) => {
    seen.push(...events);
    batches.push(events.length);
    for (const waiter of [...waiters]) {
      if (seen.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  }, options);
  return {
    seen,
    batches,
    subscription,
    waitForCount(count: number, timeoutMs = 10_000): Promise<void> {
      if (seen.length >= count) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`saw ${seen.length} of ${count} events`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/**
 * Every event of the log after `before` exactly once, in the log's own order: the subscriber's
 * sequence equals a read of all events after `before`, and positions strictly increase.
 */
async function expectSameAsLog(store: EventStore, seen: RecordedEvent[], before: bigint): Promise<void> {
  const log = await store.readAll({ after: before });
  expect(seen.map((recorded) => recorded.id)).to.deep.equal(log.map((recorded) => recorded.id));
  seen.forEach((recorded, index) => {
    if (index > 0) expect(recorded.position > seen[index - 1]!.position).to.equal(true);
  });
  expect(new Set(seen.map((recorded) => recorded.id)).size).to.equal(seen.length);
}

export function eventStoreContract(name: string, create: () => Promise<ContractSubject>): void {
  describe(`event store contract: ${name}`, function () {
    this.timeout(30_000);
    let subject: ContractSubject;
    let store: EventStore;
    /** Head before the test: reads of "all" start after it, so a shared server works too. */
    let start: bigint;
    let namespace: string;
    /** The test's own stream name (unique per test). */
    const s = (name: string) => `${namespace}${name}`;

    beforeEach(async () => {
      subject = await create();
      store = subject.store;
      start = await store.headPosition();
      namespace = `t${randomUUID().slice(0, 8)}-`;
    });
    afterEach(async () => {
      await subject.dispose();
    });

    describe('append and read', () => {
      it('an empty store has head position -1 and reads nothing', async () => {
        if (subject.fresh) {
          expect(await store.headPosition()).to.equal(-1n);
          expect(await store.readAll()).to.deep.equal([]);
        }
        expect(await store.readAll({ after: start })).to.deep.equal([]);
        expect(await store.readStream(s('nothing-here'))).to.deep.equal([]);
      });

      it('appends many events and returns the last revision and global position', async () => {
        const first = await store.append(s('order-1'), [event('A'), event('B')], 'no_stream');
        expect(first.nextRevision).to.equal(1n);
        const second = await store.append(s('order-2'), [event('C')], 'no_stream');
        expect(second.nextRevision).to.equal(0n);
        expect(second.position > first.position).to.equal(true);
        expect(await store.headPosition()).to.equal(second.position);
        const all = await store.readAll({ after: start });
        expect(all.map((e) => e.type)).to.deep.equal(['A', 'B', 'C']);
        expect(all.map((e) => e.stream)).to.deep.equal([s('order-1'), s('order-1'), s('order-2')]);
      });

      it('keeps data, metadata and the event id as written', async () => {
        const written: NewEvent = {
          id: randomUUID(),
          type: 'OrderPlaced',
          data: { price: '0.55', nested: { list: [1, 'two', null] }, text: 'quote " and \\ backslash é' },
          metadata: { correlation_id: 'c-1' },
        };
        await store.append(s('order-9'), [written], 'any');
        const [read] = await store.readStream(s('order-9'));
        expect(read!.id).to.equal(written.id);
        expect(read!.type).to.equal('OrderPlaced');
        expect(read!.data).to.deep.equal(written.data);
        expect(read!.metadata).to.deep.equal(written.metadata);
        expect(read!.revision).to.equal(0n);
        expect(read!.recordedAt).to.be.instanceOf(Date);
      });

      it('an event given with its JSON text already made reads back as that data', async () => {
        const data = {
          v: 4,
          steps: [{ seq: 1, events: [['FundsReserved', 'a', '1.00', null, true]] }],
          text: 'quote " é',
        };
        const json = JSON.stringify(data);
        // data parsed only if a store asks for it (the engine's journal records are made so)
        const written: NewEvent = {
          id: randomUUID(),
          type: 'EngineSteps',
          json,
          get data() {
            return JSON.parse(json) as unknown;
          },
        };
        await store.append(s('journal'), [written], 'any');
        const [read] = await store.readStream(s('journal'));
        expect(read!.data).to.deep.equal(data);
      });

      it('reads a stream forwards and backwards, from a revision, bounded', async () => {
        await store.append(s('s'), [event('E0'), event('E1'), event('E2'), event('E3')], 'no_stream');
        await store.append(s('other'), [event('X')], 'no_stream');
        const types = (events: RecordedEvent[]) => events.map((e) => e.type);
        expect(types(await store.readStream(s('s')))).to.deep.equal(['E0', 'E1', 'E2', 'E3']);
        expect(types(await store.readStream(s('s'), { fromRevision: 2n }))).to.deep.equal(['E2', 'E3']);
        expect(types(await store.readStream(s('s'), { maxCount: 2 }))).to.deep.equal(['E0', 'E1']);
        expect(types(await store.readStream(s('s'), { direction: 'backwards' }))).to.deep.equal([
          'E3',
          'E2',
          'E1',
          'E0',
        ]);
        expect(types(await store.readStream(s('s'), { direction: 'backwards', maxCount: 1 }))).to.deep.equal(['E3']);
        expect(types(await store.readStream(s('s'), { direction: 'backwards', fromRevision: 1n }))).to.deep.equal([
          'E1',
          'E0',
        ]);
      });

      it('reads all strictly after a position, bounded', async () => {
        await store.append(s('a'), [event('A0'), event('A1')], 'any');
        await store.append(s('b'), [event('B0')], 'any');
        const all = await store.readAll({ after: start });
        const after = await store.readAll({ after: all[0]!.position, maxCount: 1 });
        expect(after.map((e) => e.type)).to.deep.equal(['A1']);
        expect(await store.readAll({ after: all[2]!.position })).to.deep.equal([]);
      });
    });

    describe('expected revision', () => {
      it('no_stream refuses an existing stream', async () => {
        await store.append(s('acct'), [event()], 'no_stream');
        const error = await store.append(s('acct'), [event()], 'no_stream').catch((e: unknown) => e);
        expect(error).to.be.instanceOf(WrongExpectedRevision);
        expect((error as WrongExpectedRevision).actual).to.equal(0n);
        expect((error as WrongExpectedRevision).stream).to.equal(s('acct'));
      });

      it('stream_exists refuses a missing stream and accepts an existing one', async () => {
        const error = await store.append(s('acct'), [event()], 'stream_exists').catch((e: unknown) => e);
        expect(error).to.be.instanceOf(WrongExpectedRevision);
        expect((error as WrongExpectedRevision).actual).to.equal('no_stream');
        await store.append(s('acct'), [event()], 'any');
        expect((await store.append(s('acct'), [event()], 'stream_exists')).nextRevision).to.equal(1n);
      });

      it('an exact revision must be the last one', async () => {
        await store.append(s('acct'), [event(), event()], 'no_stream');
        const error = await store.append(s('acct'), [event()], 0n).catch((e: unknown) => e);
        expect(error).to.be.instanceOf(WrongExpectedRevision);
        expect((error as WrongExpectedRevision).actual).to.equal(1n);
        expect((await store.append(s('acct'), [event()], 1n)).nextRevision).to.equal(2n);
        const missing = await store.append(s('nobody'), [event()], 0n).catch((e: unknown) => e);
        expect(missing).to.be.instanceOf(WrongExpectedRevision);
      });

      it('a refused append writes nothing', async () => {
        await store.append(s('acct'), [event()], 'no_stream');
        await store.append(s('acct'), [event(), event()], 5n).catch(() => undefined);
        expect(await store.readStream(s('acct'))).to.have.length(1);
        expect(await store.headPosition()).to.equal((await store.readAll({ after: start }))[0]!.position);
      });

      it('concurrent appenders on one stream: exactly one wins each revision', async () => {
        const writers = 20;
        const rounds = 5;
        let expected: bigint | 'no_stream' = 'no_stream';
        for (let round = 0; round < rounds; round += 1) {
          const attempts = await Promise.allSettled(
            Array.from({ length: writers }, () => store.append(s('contended'), [event()], expected)),
          );
          const winners = attempts.filter((a) => a.status === 'fulfilled');
          const losers = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
          expect(winners, `round ${round}`).to.have.length(1);
          for (const loser of losers) expect(loser.reason).to.be.instanceOf(WrongExpectedRevision);
          expected = (winners[0] as PromiseFulfilledResult<{ nextRevision: bigint }>).value.nextRevision;
          expect(expected).to.equal(BigInt(round));
        }
        expect(await store.readStream(s('contended'))).to.have.length(rounds);
      });

      it('one refused append among concurrent ones fails only itself', async () => {
        await store.append(s('busy'), [event()], 'no_stream');
        const results = await Promise.allSettled([
          store.append(s('x1'), [event()], 'no_stream'),
          store.append(s('busy'), [event()], 'no_stream'),
          store.append(s('x2'), [event()], 'any'),
        ]);
        expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'rejected', 'fulfilled']);
      });
    });

    describe('idempotent re-append', () => {
      it('re-appending the same event ids returns the original result and writes nothing', async () => {
        const events = [event('A'), event('B')];
        const first = await store.append(s('idem'), events, 'no_stream');
        const again = await store.append(s('idem'), events, 'no_stream');
        expect(again).to.deep.equal(first);
        const concurrently = await Promise.all([
          store.append(s('idem'), events, 'any'),
          store.append(s('idem'), events, 0n),
        ]);
        for (const result of concurrently) expect(result).to.deep.equal(first);
        expect(await store.readStream(s('idem'))).to.have.length(2);
      });

      it('a concurrent duplicate of a fresh append is written once', async () => {
        const events = [event('A')];
        const results = await Promise.all([
          store.append(s('idem2'), events, 'any'),
          store.append(s('idem2'), events, 'any'),
        ]);
        expect(results[0]).to.deep.equal(results[1]);
        expect(await store.readStream(s('idem2'))).to.have.length(1);
      });

      it('an id already used beside new events is refused', async () => {
        const used = event('A');
        await store.append(s('idem3'), [used], 'no_stream');
        const error = await store.append(s('idem3'), [used, event('B')], 'any').catch((e: unknown) => e);
        expect(error).to.be.instanceOf(DuplicateEventId);
      });
    });

    describe('subscriptions', () => {
      it('catches up from the beginning, then delivers live events', async () => {
        await store.append(s('a'), [event('Old1'), event('Old2')], 'any');
        const collector = collect(store, { after: start });
        await collector.waitForCount(2);
        await store.append(s('a'), [event('New1')], 'any');
        await collector.waitForCount(3);
        await collector.subscription.stop();
        expect(collector.seen.map((e) => e.type)).to.deep.equal(['Old1', 'Old2', 'New1']);
      });

      it('resuming from a checkpoint loses and repeats nothing', async () => {
        for (let i = 0; i < 10; i += 1) await store.append(s(`s-${i % 3}`), [event(`E${i}`)], 'any');
        const first = collect(store, { after: start });
        await first.waitForCount(6);
        await first.subscription.stop();
        const checkpoint = first.seen[first.seen.length - 1]!.position;
        const delivered = first.seen.length;
        for (let i = 10; i < 15; i += 1) await store.append(s(`s-${i % 3}`), [event(`E${i}`)], 'any');
        const second = collect(store, { after: checkpoint });
        await second.waitForCount(15 - delivered);
        await sleep(50);
        await second.subscription.stop();
        const all = [...first.seen, ...second.seen];
        expect(all.map((e) => e.type)).to.deep.equal(Array.from({ length: 15 }, (_, i) => `E${i}`));
      });

      it('filters by stream prefix and by event type, and bounds batches', async () => {
        const byPrefix = collect(store, { after: start, filter: { streamPrefixes: [s('order-')] }, batchSizeMax: 2 });
        const byType = collect(store, { after: start, filter: { eventTypes: ['Deposited'] } });
        await store.append(s('order-1'), [event('Placed'), event('Placed'), event('Placed')], 'any');
        await store.append(s('account-1'), [event('Deposited')], 'any');
        await store.append(s('order-2'), [event('Deposited')], 'any');
        await byPrefix.waitForCount(4);
        await byType.waitForCount(2);
        await sleep(50);
        await Promise.all([byPrefix.subscription.stop(), byType.subscription.stop()]);
        expect(byPrefix.seen.map((e) => e.stream)).to.deep.equal([
          s('order-1'),
          s('order-1'),
          s('order-1'),
          s('order-2'),
        ]);
        expect(Math.max(...byPrefix.batches)).to.be.at.most(2);
        expect(byType.seen.map((e) => e.stream)).to.deep.equal([s('account-1'), s('order-2')]);
      });

      it('stop waits for the batch in flight and delivers nothing after', async () => {
        await store.append(s('a'), [event()], 'any');
        let inFlight = false;
        let deliveredAfterStop = false;
        let stopped = false;
        let started!: () => void;
        const handlerStarted = new Promise<void>((resolve) => (started = resolve));
        const subscription = store.subscribeToAll(
          async () => {
            if (stopped) deliveredAfterStop = true;
            inFlight = true;
            started();
            await sleep(100);
            inFlight = false;
          },
          { after: start },
        );
        await handlerStarted;
        await subscription.stop();
        stopped = true;
        expect(inFlight).to.equal(false);
        await store.append(s('a'), [event()], 'any');
        await sleep(100);
        expect(deliveredAfterStop).to.equal(false);
      });

      it('many concurrent appenders on many streams: a live subscriber sees every event once, in order, no gaps', async () => {
        const before = await store.headPosition();
        const collector = collect(store, { after: before });
        const writers = 25;
        const appendsPerWriter = 12;
        await Promise.all(
          Array.from({ length: writers }, async (_, writer) => {
            for (let i = 0; i < appendsPerWriter; i += 1) {
              const size = 1 + ((writer + i) % 3);
              await store.append(
                s(`stream-${writer % 7}`),
                Array.from({ length: size }, () => event()),
                'any',
              );
            }
          }),
        );
        let expectedCount = 0;
        for (let writer = 0; writer < writers; writer += 1) {
          for (let i = 0; i < appendsPerWriter; i += 1) expectedCount += 1 + ((writer + i) % 3);
        }
        await collector.waitForCount(expectedCount);
        await sleep(100);
        await collector.subscription.stop();
        expect(collector.seen).to.have.length(expectedCount);
        await expectSameAsLog(store, collector.seen, before);
        for (let index = 0; index < 7; index += 1) {
          const revisions = collector.seen.filter((e) => e.stream === s(`stream-${index}`)).map((e) => e.revision);
          expect(revisions).to.deep.equal(revisions.map((_, index) => BigInt(index)));
        }
      });

      it('a transaction that takes a position and commits late is not skipped', async function () {
        if (!subject.holdAppend) this.skip();
        await store.append(s('warmup'), [event('W')], 'no_stream');
        const before = await store.headPosition();
        const collector = collect(store, { after: before });
        const late = event('Late');
        const held = await subject.holdAppend(s('late-stream'), late);
        // Another append starts while the first holds its position uncommitted.
        const early = store.append(s('early-stream'), [event('Early')], 'no_stream');
        await sleep(300);
        // Nothing may be delivered past the uncommitted position.
        expect(collector.seen.map((e) => e.type)).to.deep.equal([]);
        await held.commit();
        await early;
        await collector.waitForCount(2);
        await sleep(100);
        await collector.subscription.stop();
        expect(collector.seen.map((e) => e.type)).to.deep.equal(['Late', 'Early']);
        await expectSameAsLog(store, collector.seen, before);
      });
    });
  });
}
