// The engine's published live view: a batch's changes appear only once its append has landed
// (never what is decided but not durable), with each accepted order's journal place as the read
// models count it; a balance or order view a reader holds never changes; an account's live orders
// list newest first by place, keyset paged; a failed batch publishes nothing; a reload republishes
// the state, its orders without a place.

import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { startEngine } from '../../engine/process.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { Engine } from '../../domain/engine/engine.ts';
import { Batch } from '../../engine/batch.ts';
import { Decider } from '../../engine/decider.ts';
import type { LiveOrder, LiveView, Place } from '../../engine/gateway.ts';
import type { EngineInput } from '../../domain/engine/inputs.ts';
import { fundsFiguresOf } from '../../domain/engine/funds.ts';
import type { EngineState } from '../../domain/engine/state.ts';
import { balanceView, orderView, positionView } from '../../domain/readModel/render.ts';
import type { BalanceView, OrderView, PositionView } from '../../domain/views.ts';
import { anyCommand, inputOfCommand } from '../domain/engine/anyCommand.ts';
import { historyStart, HistorySoFar } from '../domain/engine/randomCommands.ts';
import { seededRandom } from '../../domain/random.ts';
import { Publisher } from '../../engine/publisher.ts';
import { account, cancel, deposit, market, order, place, SECOND, sportEvent, T0 } from '../domain/engine/support.ts';
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
  it('shows a batch only once it landed, each new order at its record position and fact index; a value a reader holds never changes', () => {
    const { decide, land, live } = setup();
    land(decide([account('a'), deposit('a', '100'), sportEvent(), market()].map((input) => pending(input, T0))), 10n);
    const before = live.account('a')!.balance;
    expect(before.account_balance).to.equal('100.00');
    expect(live.account('a')?.orders.size).to.equal(0);

    const batch = decide(
      [place('a', order('o1', 'buy', '0.40', '2')), place('a', order('o2', 'buy', '0.30', '1'))].map((input) =>
        pending(input, T0 + 5),
      ),
    );
    // decided, not durable: nothing of it shows
    expect(live.order('a', 'o1')).to.equal(undefined);
    expect(live.account('a')?.balance).to.equal(before);
    expect(live.account('a')?.orders.size).to.equal(0);
    const firstStepFacts = batch.answered[0]!.reply.events.length;
    land(batch, 11n);
    expect(live.position).to.equal(11n);
    expect(live.order('a', 'o1')?.key).to.deep.equal([
      11n,
      batch.answered[0]!.reply.events.findIndex((e) => e.type === 'OrderAccepted'),
    ]);
    expect(live.order('a', 'o2')?.key).to.deep.equal([
      11n,
      firstStepFacts + batch.answered[1]!.reply.events.findIndex((e) => e.type === 'OrderAccepted'),
    ]);
    expect(live.order('a', 'o1')?.view).to.include({ id: 'o1', status: 'open', price: '0.40', quantity: '2' });
    expect(Object.isFrozen(live.order('a', 'o1')?.view)).to.equal(true);
    const after = live.account('a')!;
    expect(newestFirst(after.orders)).to.deep.equal(['o2', 'o1']);
    expect(after.balance.buy_order_liability).to.not.equal('0.00');
    // the balance the first reader holds is as it was
    expect(before.buy_order_liability).to.equal('0.00');
    expect(Object.isFrozen(before)).to.equal(true);
    const o1 = live.order('a', 'o1')!.view;

    land(decide([pending(cancel('a', 'o1'), T0 + 6)]), 12n);
    expect(live.order('a', 'o1')).to.equal(undefined);
    expect(newestFirst(live.account('a')!.orders)).to.deep.equal(['o2']);
    expect(o1.status).to.equal('open');
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
    expect(live.order('a', 'o2')).to.equal(undefined);
    expect(live.position).to.equal(20n);
    publisher.reset(21n); // the state (which decided o2) as recovery would give it
    expect(live.position).to.equal(21n);
    expect(live.order('a', 'o1')?.key).to.equal(null);
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

describe("engine: an account's live orders in the view", () => {
  it('list newest first by journal place through batches of places and cancels, and page from any place', () => {
    const { decide, land, live } = setup();
    land(decide([account('a'), deposit('a', '100000'), sportEvent(), market()].map((input) => pending(input, T0))), 1n);
    const random = seededRandom(7);
    let next = 0;
    const placed: string[] = [];
    for (let batchNo = 0; batchNo < 30; batchNo++) {
      const inputs = [];
      for (let i = 0, n = 1 + Math.floor(random() * 6); i < n; i++) {
        if (placed.length > 0 && random() < 0.3) {
          inputs.push(cancel('a', placed.splice(Math.floor(random() * placed.length), 1)[0]!));
        } else {
          const id = `o${next++}`;
          placed.push(id);
          inputs.push(place('a', order(id, 'buy', `0.${10 + Math.floor(random() * 40)}`, '1')));
        }
      }
      land(decide(inputs.map((input) => pending(input, T0 + batchNo + 1))), BigInt(2 + batchNo));
    }
    const keyed = placed.map((id) => ({ id, key: live.order('a', id)!.key! }));
    const compare = (a: Place, b: Place) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]);
    keyed.sort((a, b) => compare(b.key, a.key));
    const orders = live.account('a')!.orders;
    expect(orders.size).to.equal(placed.length);
    expect(newestFirst(orders)).to.deep.equal(keyed.map((o) => o.id));
    for (const bound of [keyed[0]!.key, keyed[Math.floor(keyed.length / 2)]!.key, keyed.at(-1)!.key]) {
      expect(newestFirst(orders, bound)).to.deep.equal(keyed.filter((o) => compare(o.key, bound) < 0).map((o) => o.id));
    }
  });
});

describe('engine: the published view while later batches are already decided', () => {
  it('an order the next batch trades, releases at the open or cancels reads as the landed batch left it until that batch lands', () => {
    const { decide, land, live } = setup();
    land(
      decide(
        [
          account('a'),
          account('b'),
          deposit('a', '100'),
          deposit('b', '100'),
          sportEvent(),
          market('m1'),
          market('m2', { status: 'pre_open' }),
        ].map((input) => pending(input, T0)),
      ),
      1n,
    );
    const placed = decide(
      [
        place('a', order('o1', 'buy', '0.40', '2', { market_id: 'm1' })),
        place('a', order('o2', 'buy', '0.30', '1', { market_id: 'm2' })),
        place('a', order('o3', 'buy', '0.20', '1', { market_id: 'm1' })),
      ].map((input) => pending(input, T0 + 1)),
    );
    const changing = decide(
      [
        place('b', order('o4', 'sell', '0.40', '1', { market_id: 'm1' })),
        { kind: 'ChangeMarketStatus', market_id: 'm2', status: 'open', trading: true } as const,
        cancel('a', 'o3'),
      ].map((input) => pending(input, T0 + 2)),
    );
    land(placed, 2n);
    const view = (id: string) => {
      const { status, filled, accepted_at } = live.order('a', id)!.view;
      return { status, filled, accepted_at };
    };
    expect([view('o1'), view('o2'), view('o3')]).to.deep.equal([
      { status: 'open', filled: '0', accepted_at: T0 + 1 },
      { status: 'accepted', filled: '0', accepted_at: T0 + 1 },
      { status: 'open', filled: '0', accepted_at: T0 + 1 },
    ]);
    land(changing, 3n);
    expect([view('o1'), view('o2')]).to.deep.equal([
      { status: 'open', filled: '1', accepted_at: T0 + 1 },
      { status: 'open', filled: '0', accepted_at: T0 + 1 },
    ]);
    expect(live.order('a', 'o3')).to.equal(undefined);
  });

  // The view holds the engine's own live orders until the engine changes them (it copies an order
  // just before its first change): whatever a later batch, decided but not durable, does to an
  // order, a reader of the view sees the order as the last landed batch left it.
  it('after each batch lands, shows each live order, balance and position as that batch left them, whatever the history', () => {
    fc.assert(
      fc.property(
        fc.array(anyCommand, { minLength: 1, maxLength: 80 }),
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 0, max: 3 }),
        (commands, sizes, inFlight) => {
          const { decider, decide, land, live } = setup();
          let now = T0;
          let position = 0n;
          const history = new HistorySoFar();
          const decided: { batch: Batch; expected: Expected }[] = [];
          const landOldest = () => {
            const { batch, expected } = decided.shift()!;
            land(batch, (position += BigInt(Math.max(batch.records.length, 1))));
            expectViewOf(live, expected);
          };
          const batchOf = (inputs: EngineInput[]) => {
            const batch = decide(inputs.map((input) => pending(input, (now += SECOND))));
            for (const item of batch.answered)
              for (const fact of item.reply.events)
                if (fact.type === 'Traded') history.fills.push(fact.maker_fill_id, fact.taker_fill_id);
            decided.push({ batch, expected: expectedOf(decider.engine.state) });
            while (decided.length > inFlight) landOldest();
          };
          batchOf(historyStart('50.00'));
          for (let i = 0, b = 0; i < commands.length; b++) {
            const size = sizes[b % sizes.length]!;
            batchOf(commands.slice(i, i + size).map((cmd, j) => inputOfCommand(cmd, i + j, history, now)));
            i += size;
          }
          while (decided.length > 0) landOldest();
        },
      ),
      // more runs than the engine's other properties: a path that changes orders may need a rare command
      { numRuns: 4 * Number(process.env.ENGINE_PROPERTY_RUNS ?? 100) },
    );
  });
});

/** What the view must show once a batch lands: the state as the batch left it, rendered then. */
interface Expected {
  orders: Map<string, OrderView>;
  /** Per account: its live order ids, its balance, its open positions. */
  accounts: Map<string, { orderIds: Set<string>; balance: BalanceView; positions: PositionView[] }>;
}

function expectedOf(state: EngineState): Expected {
  const orders = new Map<string, OrderView>();
  const accounts: Expected['accounts'] = new Map();
  for (const account of state.accounts.values()) {
    const positions: PositionView[] = [];
    for (const exposure of account.exposures.values()) {
      if (exposure.positionNanos === 0) continue;
      positions.push(positionView(exposure, state.markets.get(exposure.marketId)!, state.seq));
    }
    accounts.set(account.id, {
      orderIds: new Set(),
      balance: balanceView(account, fundsFiguresOf(account), state.seq),
      positions,
    });
  }
  for (const order of state.orders.values()) {
    orders.set(order.id, orderView(order));
    accounts.get(order.accountId)!.orderIds.add(order.id);
  }
  return structuredClone({ orders, accounts });
}

function expectViewOf(live: LiveView, expected: Expected): void {
  for (const [id, view] of expected.orders)
    expect(live.order(view.account_id, id)?.view, `order ${id}`).to.deep.equal(view);
  for (const [accountId, { orderIds, balance, positions }] of expected.accounts) {
    const account = live.account(accountId)!;
    expect(new Set(newestFirst(account.orders)), `${accountId}'s live orders`).to.deep.equal(orderIds);
    // a balance or a position carries the seq of the batch that last changed it (here: the state's)
    expect(withoutSeq(account.balance), `${accountId}'s balance`).to.deep.equal(withoutSeq(balance));
    expect(
      account.positions.map((p) => withoutSeq(p.view)),
      `${accountId}'s positions`,
    ).to.have.deep.members(positions.map(withoutSeq));
  }
}

const withoutSeq = <T extends { seq: number }>(view: T): Omit<T, 'seq'> => {
  const { seq: _seq, ...rest } = view;
  return rest;
};
