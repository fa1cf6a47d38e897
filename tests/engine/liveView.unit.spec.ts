// The engine's published live view: a batch's changes appear only once its append has landed
// (never what is decided but not durable), with each accepted order's journal place as the read
// models count it; what a reader holds never changes; a failed batch publishes nothing; a reload
// republishes the state, its orders without a place. And the persistent tree behind an
// account's live orders, against a plain sorted list.

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startEngine } from '../../engine/process.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { Engine } from '../../domain/engine/engine.ts';
import { seededRandom } from '../../domain/random.ts';
import { Batch } from '../../engine/batch.ts';
import { Decider } from '../../engine/decider.ts';
import type { LiveOrder } from '../../engine/gateway.ts';
import { PlaceTree, type Place } from '../../engine/orderTree.ts';
import { Publisher } from '../../engine/publisher.ts';
import { account, cancel, deposit, market, order, place, sportEvent, T0 } from '../domain/engine/support.ts';
import { pending, type Observed } from './stages.ts';

const logger = pino({ level: 'silent' });

function setup() {
  const decider = new Decider(new Engine(), logger);
  const publisher = new Publisher(
    { note: () => undefined, lastFor: () => undefined },
    logger,
    () => decider.engine.state,
  );
  const decide = (inputs: Observed[]): Batch => {
    const batch = new Batch();
    decider.decide(batch, inputs);
    batch.seal();
    batch.view = publisher.stage(batch, decider.engine.state);
    return batch;
  };
  const land = (batch: Batch, position: bigint) =>
    publisher.answer(batch, { position, recordPosition: (i, n) => position - BigInt(n - 1 - i), exactPositions: true });
  return { decider, publisher, decide, land, live: publisher.live };
}

const newestFirst = (
  orders: { newestFirst(before: Place | null, visit: (o: LiveOrder) => boolean): void },
  before: Place | null = null,
): string[] => {
  const ids: string[] = [];
  orders.newestFirst(before, (o) => {
    ids.push(o.id);
    return true;
  });
  return ids;
};

describe('engine: the published live view', () => {
  it("shows a batch only once it landed, each new order at its record position and fact index; a reader's account never changes", () => {
    const { decide, land, live } = setup();
    land(decide([account('a'), deposit('a', '100'), sportEvent(), market()].map((input) => pending(input, T0))), 10n);
    const before = live.account('a');
    expect(before?.balance.account_balance).to.equal('100.00');
    expect(before?.orders.size).to.equal(0);

    const batch = decide(
      [place('a', order('o1', 'buy', '0.40', '2')), place('a', order('o2', 'buy', '0.30', '1'))].map((input) =>
        pending(input, T0 + 5),
      ),
    );
    // decided, not durable: nothing of it shows
    expect(live.order('o1')).to.equal(undefined);
    expect(live.account('a')).to.equal(before);
    const firstStepFacts = batch.answered[0]!.reply.events.length;
    land(batch, 11n);
    expect(live.position).to.equal(11n);
    expect(live.order('o1')?.key).to.deep.equal([
      11n,
      batch.answered[0]!.reply.events.findIndex((e) => e.type === 'OrderAccepted'),
    ]);
    expect(live.order('o2')?.key).to.deep.equal([
      11n,
      firstStepFacts + batch.answered[1]!.reply.events.findIndex((e) => e.type === 'OrderAccepted'),
    ]);
    expect(live.order('o1')?.view).to.include({ id: 'o1', status: 'open', price: '0.40', quantity: '2' });
    expect(Object.isFrozen(live.order('o1')?.view)).to.equal(true);
    const after = live.account('a')!;
    expect(newestFirst(after.orders)).to.deep.equal(['o2', 'o1']);
    expect(after.balance.buy_order_liability).to.not.equal('0.00');
    // what the first reader holds is as it was
    expect(before?.orders.size).to.equal(0);
    expect(before?.balance.buy_order_liability).to.equal('0.00');

    land(decide([pending(cancel('a', 'o1'), T0 + 6)]), 12n);
    expect(live.order('o1')).to.equal(undefined);
    expect(newestFirst(live.account('a')!.orders)).to.deep.equal(['o2']);
    expect(newestFirst(after.orders)).to.deep.equal(['o2', 'o1']);
  });

  it('a failed batch publishes nothing; a reload republishes the state, its live orders without a place', () => {
    const { decide, land, live, publisher } = setup();
    land(
      decide(
        [account('a'), deposit('a', '100'), sportEvent(), market(), place('a', order('o1', 'buy', '0.40', '2'))].map(
          (input) => pending(input, T0),
        ),
      ),
      20n,
    );
    const failed = decide([pending(place('a', order('o2', 'buy', '0.30', '1')), T0 + 1)]);
    publisher.fail(failed, new Error('disk full'));
    expect(live.order('o2')).to.equal(undefined);
    expect(live.position).to.equal(20n);
    publisher.reset(21n); // the state (which decided o2) as recovery would give it
    expect(live.position).to.equal(21n);
    expect(live.order('o1')?.key).to.equal(null);
    expect(live.account('a')?.unkeyedOrders).to.equal(2);
  });
});

describe('engine: the live view across a restart', () => {
  it("keeps every live order's journal place: from the snapshot written at stop, and from the replayed journal tail", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'live-view-'));
    const store = new MemoryEventStore();
    let now = T0;
    const deps = () => ({
      store,
      dataDir,
      clock: { nowUs: () => (now += 1000) },
      logger,
      writes: { note: () => undefined, lastFor: () => undefined },
    });
    const keysOf = (engine: Awaited<ReturnType<typeof startEngine>>) => {
      const out: Array<[string, unknown]> = [];
      engine.live.account('a')!.orders.newestFirst(null, (o) => {
        out.push([o.id, o.key]);
        return true;
      });
      return out;
    };
    try {
      const first = await startEngine(deps());
      for (const input of [account('a'), deposit('a', '100'), sportEvent(), market()]) await first.submit(input);
      await Promise.all(
        [
          place('a', order('o1', 'buy', '0.40', '2')),
          place('a', order('o2', 'buy', '0.30', '1')),
          place('a', order('o3', 'buy', '0.20', '1')),
        ].map((input) => first.submit(input)),
      );
      const before = keysOf(first);
      expect(before.map(([id]) => id)).to.deep.equal(['o3', 'o2', 'o1']);
      expect(before.every(([, key]) => key !== null)).to.equal(true);
      await first.stop(); // a clean stop writes the snapshot

      const second = await startEngine(deps());
      expect(keysOf(second)).to.deep.equal(before);
      expect(second.live.account('a')?.unkeyedOrders).to.equal(0);
      await second.submit(place('a', order('o4', 'buy', '0.10', '1')));
      const withTail = keysOf(second);
      // an unclean end: no snapshot at stop, so o4 comes back from the journal tail
      await second.stop();
      rmSync(path.join(dataDir, 'engine'), { recursive: true, force: true });
      const third = await startEngine(deps());
      expect(keysOf(third)).to.deep.equal(withTail);
      await third.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('engine: persistent place tree', () => {
  it('matches a sorted list through random adds, replacements and removals, one at a time and in edits of many; old versions stay as they were', () => {
    const random = seededRandom(42);
    let tree = PlaceTree.empty<string>();
    let model: Array<[Place, string]> = [];
    const versions: Array<{ tree: PlaceTree<string>; model: Array<[Place, string]> }> = [];
    const cmp = (a: Place, b: Place) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]);
    for (let i = 0; i < 3000;) {
      const edits: Array<{ place: Place; value: string | null }> = [];
      const count = random() < 0.5 ? 1 : 1 + Math.floor(random() * 30);
      for (let j = 0; j < count; j++, i++) {
        // mostly new places at the newest end, as orders arrive; some anywhere
        const at: Place =
          random() < 0.5 ? [BigInt(60 + i), 0] : [BigInt(Math.floor(random() * (60 + i))), Math.floor(random() * 5)];
        const value = random() < 0.6 ? `v${i}` : null;
        edits.push({ place: at, value });
        model = model.filter(([p]) => cmp(p, at) !== 0);
        if (value !== null) model = model.concat([[at, value]]).sort((a, b) => cmp(a[0], b[0]));
      }
      tree =
        count === 1
          ? edits[0]!.value === null
            ? tree.without(edits[0]!.place)
            : tree.with(edits[0]!.place, edits[0]!.value)
          : tree.withChanges(edits);
      versions.push({ tree, model });
      expect(tree.size).to.equal(model.length);
    }
    for (const version of versions) {
      const bound: Place = [BigInt(Math.floor(random() * 3000)), 2];
      const values = (t: PlaceTree<string>, before: Place | null) => {
        const out: string[] = [];
        t.newestFirst(before, (v) => {
          out.push(v);
          return true;
        });
        return out;
      };
      expect(values(version.tree, null)).to.deep.equal(version.model.map(([, v]) => v).reverse());
      expect(values(version.tree, bound)).to.deep.equal(
        version.model
          .filter(([p]) => cmp(p, bound) < 0)
          .map(([, v]) => v)
          .reverse(),
      );
    }
  });
});
