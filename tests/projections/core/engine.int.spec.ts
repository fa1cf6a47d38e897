// The core read models fed by the real engine: a seeded random session (accounts, deposits,
// limit and market orders crossing, cancels, trading halts, a result) is journaled one record
// per input, then projected in uneven batches. The projected book, balances, orders, open
// interest and volume must equal what the journal's final snapshots say, and projecting the
// same journal in one batch, or twice, must give the very same rows.

import { expect } from 'chai';
import Big from 'big.js';
import type { EngineEvent } from '../../../domain/engine/events.ts';
import { Engine } from '../../../domain/engine/engine.ts';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import type { BalanceView, OrderView, PositionView } from '../../../domain/views.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import { getBalance } from '../../../projections/core/queries/accounts.ts';
import { getMarket } from '../../../projections/core/queries/markets.ts';
import { listOrders } from '../../../projections/core/queries/orders.ts';
import { listPositions } from '../../../projections/core/queries/positions.ts';
import { renderBalance, renderOrder } from '../../../projections/core/render.ts';
import { CORE_TABLES } from '../../../projections/core/schema.ts';
import { BOOK_DEPTH_MAX } from '../../../projections/core/market.ts';
import { dumpTables, HOUR_US, projectedDatabase, T0 } from './fixtures.ts';

/** Small seeded generator (mulberry32): the same session on every run. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const ACCOUNTS = 6;
const MARKETS = 3;
const RANDOM_INPUTS = 600;

describe('core read models fed by the engine', () => {
  const random = seeded(20260101);
  const engine = new Engine();
  const records: RecordedEvent[] = [];
  let seq = 0;
  let nowUs = T0;

  function run(input: EngineInput): EngineEvent[] {
    seq += 1;
    nowUs += 1_000_000;
    const outcome = engine.step({ seq, now_us: nowUs, input });
    if (!outcome.ok || outcome.events.length === 0) {
      seq -= 1; // a refused input is not journaled
      return [];
    }
    const position = BigInt(records.length);
    records.push({
      id: uuidFrom(random), stream: 'engine', type: 'EngineStep', revision: position, position,
      data: { seq, now_us: nowUs, input, events: outcome.events }, metadata: {}, recordedAt: new Date(0),
    });
    return outcome.events;
  }

  const accountIds = Array.from({ length: ACCOUNTS }, () => uuidFrom(random));
  const marketIds = Array.from({ length: MARKETS }, () => uuidFrom(random));
  const eventId = uuidFrom(random);

  before(() => {
    for (const accountId of accountIds) {
      run({ kind: 'OpenAccount', account_id: accountId, user_id: uuidFrom(random), fields: {} });
      run({ kind: 'Deposit', account_id: accountId, entry_id: uuidFrom(random), amount: '1000' });
    }
    run({ kind: 'ScheduleSportEvent', event: { event_id: eventId, title: 'Lions at Bears', start: T0 + 48 * HOUR_US, short_title: null, event_type: 'game', sport: 'Football', competition: 'NFL', participants: ['Lions', 'Bears'] } });
    for (const marketId of marketIds) {
      run({ kind: 'ListMarket', market: {
        market_id: marketId, event_id: eventId, title: 'Lions win', max_price: '1.00', status: 'open', trading: true, in_play_delay_sec: 0,
        points_cost: 100, grouping_id: uuidFrom(random), grouping_name: 'Moneyline', symbol: null, question: null, rules: null, short_title: null, featured: false,
      } });
    }
    const placed: Array<{ orderId: string; accountId: string }> = [];
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    for (let i = 0; i < RANDOM_INPUTS; i++) {
      const roll = random();
      if (roll < 0.75) {
        const orderId = uuidFrom(random);
        const accountId = pick(accountIds);
        placed.push({ orderId, accountId });
        const isMarket = random() < 0.1;
        run({ kind: 'PlaceOrder', account_id: accountId, order: {
          order_id: orderId, market_id: pick(marketIds), action: random() < 0.5 ? 'buy' : 'sell', order_type: isMarket ? 'market' : 'limit',
          price: isMarket ? null : (0.3 + Math.floor(random() * 40) / 100).toFixed(2), quantity: String(1 + Math.floor(random() * 15)),
          client_order_id: `c-${i}`, device_id: null, ip_address: null, expiration: null, expiration_time: null, cancel_on_disconnect: false,
        } });
      } else if (roll < 0.95 && placed.length > 0) {
        const { orderId, accountId } = pick(placed);
        run({ kind: 'CancelOrder', account_id: accountId, order_id: orderId });
      } else {
        run({ kind: 'ChangeMarketStatus', market_id: pick(marketIds), trading: random() < 0.6 });
      }
    }
    run({ kind: 'ResultMarket', market_id: marketIds[2] as string, result: 'win' });
  });

  /** The last snapshot of every entity in the journal: what the read models must show. */
  function finalSnapshots() {
    const orders = new Map<string, OrderView>();
    const balances = new Map<string, BalanceView>();
    const positions = new Map<string, PositionView>();
    const volume = new Map<string, Big>();
    for (const record of records) {
      for (const event of (record.data as { events: EngineEvent[] }).events) {
        if (event.type === 'OrderPlaced' || event.type === 'OrderChanged') orders.set(event.order.id, event.order);
        else if (event.type === 'BalanceChanged' || event.type === 'AccountOpened' || event.type === 'AccountUpdated') balances.set(event.balance.account_id, event.balance);
        else if (event.type === 'PositionChanged') positions.set(`${event.position.account_id}|${event.position.market_id}`, event.position);
        else if (event.type === 'TradeExecuted') volume.set(event.market_id, (volume.get(event.market_id) ?? new Big(0)).plus(event.quantity));
      }
    }
    return { orders, balances, positions, volume };
  }

  function referenceBook(orders: Iterable<OrderView>, marketId: string) {
    const levels = { buy: new Map<string, Big>(), sell: new Map<string, Big>() };
    for (const o of orders) {
      if (o.market_id !== marketId || o.order_type !== 'limit' || o.price === null || !['open', 'accepted'].includes(o.status)) continue;
      const remaining = new Big(o.quantity).minus(o.filled);
      if (remaining.lte(0)) continue;
      const side = levels[o.action];
      side.set(o.price, (side.get(o.price) ?? new Big(0)).plus(remaining));
    }
    const render = (entries: Array<[string, Big]>) => entries.map(([price, quantity]) => ({ price, quantity: quantity.toFixed() }));
    const byPriceDesc = (a: [string, Big], b: [string, Big]) => new Big(b[0]).cmp(a[0]);
    return {
      bids: render([...levels.buy.entries()].sort(byPriceDesc).slice(0, BOOK_DEPTH_MAX)),
      offers: render([...levels.sell.entries()].sort(byPriceDesc).slice(-BOOK_DEPTH_MAX)),
    };
  }

  it('journals a session with trades, cancels, halts and resting orders', () => {
    const events = records.flatMap((r) => (r.data as { events: EngineEvent[] }).events);
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count('TradeExecuted')).to.be.greaterThan(50);
    expect(count('FillChanged')).to.be.greaterThan(0);
    expect(count('MarketChanged')).to.be.greaterThan(10);
    expect(events.some((e) => e.type === 'OrderChanged' && e.order.status === 'cancelled')).to.equal(true);
    const { orders } = finalSnapshots();
    expect([...orders.values()].filter((o) => o.status === 'open').length).to.be.greaterThan(10);
  });

  it('shows the journal\'s final state: book levels, balances, orders, positions, volume and open interest', async () => {
    const p = await projectedDatabase();
    try {
      // uneven batches, as a subscription would deliver them
      let at = 0;
      while (at < records.length) {
        const size = 1 + Math.floor(random() * 40);
        await p.project(...records.slice(at, at + size));
        at += size;
      }
      const { orders, balances, positions, volume } = finalSnapshots();
      for (const marketId of marketIds) {
        const wire = await getMarket(p.db.pool, marketId, nowUs);
        const reference = referenceBook(orders.values(), marketId);
        expect(wire?.bids, `bids of ${marketId}`).to.deep.equal(reference.bids);
        expect(wire?.offers, `offers of ${marketId}`).to.deep.equal(reference.offers);
        expect(wire?.total_volume).to.equal((volume.get(marketId) ?? new Big(0)).toFixed());
        const longs = [...positions.values()].filter((x) => x.market_id === marketId && new Big(x.position).gt(0));
        expect(wire?.open_interest).to.equal(longs.reduce((sum, x) => sum.plus(x.position), new Big(0)).toFixed());
      }
      for (const accountId of accountIds) {
        expect(await getBalance(p.db.pool, accountId)).to.deep.equal(renderBalance(balances.get(accountId) as BalanceView));
        const mine = [...orders.values()].filter((o) => o.account_id === accountId);
        const listed = await listOrders(p.db.pool, accountId, {}, { limit: 200 });
        expect(listed.orders.map((o) => o.id).sort()).to.deep.equal(mine.map((o) => o.id).sort());
        for (const o of listed.orders) expect(o).to.deep.equal(renderOrder(orders.get(o.id) as OrderView));
        const open = [...positions.values()].filter((x) => x.account_id === accountId && !new Big(x.position).eq(0));
        const listedPositions = (await listPositions(p.db.pool, accountId)).positions;
        expect(listedPositions.map((x) => x.market_id).sort()).to.deep.equal(open.map((x) => x.market_id).sort());
        const sizes = listedPositions.map((x) => new Big(x.contracts).toNumber());
        expect(sizes).to.deep.equal([...sizes].sort((a, b) => b - a));
      }

      // the same journal in one batch, and then again, leaves the very same rows
      const live = await dumpTables(p.db.pool, CORE_TABLES);
      const once = await projectedDatabase();
      try {
        await once.project(...records);
        expect(await dumpTables(once.db.pool, CORE_TABLES)).to.deep.equal(live);
        await once.project(...records);
        expect(await dumpTables(once.db.pool, CORE_TABLES)).to.deep.equal(live);
      } finally {
        await once.db.drop();
      }
    } finally {
      await p.db.drop();
    }
  });
});
