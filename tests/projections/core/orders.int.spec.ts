// Orders read model: GET /orders filters, most-recent-first keyset paging that stays stable
// while orders are placed between page reads, another account's order invisible, wire shape,
// idempotent replay, and snapshots never regressing to an older seq.

import { InvalidCursor } from '../../../projections/pagination.ts';
import { expect } from 'chai';
import { getOrder, listOrders } from '../../../projections/core/queries/orders.ts';
import { CORE_TABLES } from '../../../projections/core/schema.ts';
import { account, balance, dumpTables, Journal, market, order, projectedDatabase, sportEvent, type ProjectedDb } from './fixtures.ts';

describe('core read models: orders', () => {
  let p: ProjectedDb;
  const journal = new Journal();
  const alice = account();
  const bob = account();
  const event = sportEvent();
  const m1 = market(event);
  const m2 = market(event);

  before(async () => {
    p = await projectedDatabase();
    await p.project(
      journal.step([{ type: 'AccountOpened', account: alice, balance: balance(alice) }, { type: 'AccountOpened', account: bob, balance: balance(bob) }]),
      journal.step([{ type: 'SportEventScheduled', event }, { type: 'MarketListed', market: m1 }, { type: 'MarketListed', market: m2 }]),
    );
  });
  after(async () => p.db.drop());

  it('lists the account\'s orders most recent first, with the SPEC fields and no internal seq', async () => {
    const first = order(alice, m1, { client_order_id: 'a-1' });
    const second = order(alice, m2, { client_order_id: 'a-2', action: 'sell', price: '0.55' });
    const bobs = order(bob, m1);
    await p.project(journal.step([{ type: 'OrderPlaced', order: first }]), journal.step([{ type: 'OrderPlaced', order: bobs }]));
    await p.project(journal.step([{ type: 'OrderPlaced', order: second }]));

    const { orders, cursor } = await listOrders(p.db.pool, alice.account_id, {}, {});
    expect(orders.map((o) => o.id)).to.deep.equal([second.id, first.id]);
    expect(cursor).to.equal(null);
    const wire = orders[1] as Record<string, unknown>;
    expect(wire).to.not.have.property('seq');
    for (const field of ['id', 'market_id', 'action', 'order_type', 'status', 'quantity', 'filled', 'filled_percentage', 'price',
      'avg_price', 'total_value', 'amount', 'filled_amount', 'client_order_id', 'device_id', 'ip_address', 'expiration',
      'expiration_time', 'expires_at', 'accepted_at', 'delayed_until', 'inserted_at', 'time', 'placed_pre_start', 'fix_order',
      'cancellation_reason', 'rejection_reason', 'odds_type', 'odds_value']) {
      expect(wire, field).to.have.property(field);
    }
    expect(wire.quantity).to.equal('10');
    expect(wire.price).to.equal('0.40');
  });

  it('filters by order ids, client order ids, market ids and statuses, all combined', async () => {
    const cancelled = order(alice, m1, { client_order_id: 'c-1', status: 'cancelled', cancellation_reason: 'cancelled by user' });
    await p.project(journal.step([{ type: 'OrderPlaced', order: cancelled }]));

    const byStatus = await listOrders(p.db.pool, alice.account_id, { statuses: ['cancelled'] });
    expect(byStatus.orders.map((o) => o.id)).to.deep.equal([cancelled.id]);

    const byMarket = await listOrders(p.db.pool, alice.account_id, { marketIds: [m2.market_id] });
    expect(byMarket.orders.every((o) => o.market_id === m2.market_id)).to.equal(true);
    expect(byMarket.orders).to.have.length(1);

    const byClient = await listOrders(p.db.pool, alice.account_id, { clientOrderIds: ['a-1', 'c-1'] });
    expect(byClient.orders.map((o) => o.client_order_id)).to.deep.equal(['c-1', 'a-1']);

    const combined = await listOrders(p.db.pool, alice.account_id, { clientOrderIds: ['a-1', 'c-1'], statuses: ['open'] });
    expect(combined.orders.map((o) => o.client_order_id)).to.deep.equal(['a-1']);

    const byId = await listOrders(p.db.pool, alice.account_id, { orderIds: [cancelled.id, 'not-a-uuid'] });
    expect(byId.orders.map((o) => o.id)).to.deep.equal([cancelled.id]);
  });

  it('getOrder returns the account\'s own order and null for another account\'s', async () => {
    const mine = order(alice, m1);
    await p.project(journal.step([{ type: 'OrderPlaced', order: mine }]));
    expect((await getOrder(p.db.pool, alice.account_id, mine.id))?.id).to.equal(mine.id);
    expect(await getOrder(p.db.pool, bob.account_id, mine.id)).to.equal(null);
    expect(await getOrder(p.db.pool, alice.account_id, 'no-such-order')).to.equal(null);
  });

  it('pages with a cursor without duplicates or skips while orders are placed between pages', async () => {
    const carol = account();
    await p.project(journal.step([{ type: 'AccountOpened', account: carol, balance: balance(carol) }]));
    const placed = Array.from({ length: 25 }, () => order(carol, m1));
    // a batch of several orders in one step (like POST /orders/batched) and single steps
    await p.project(journal.step(placed.slice(0, 10).map((o) => ({ type: 'OrderPlaced' as const, order: o }))));
    for (const o of placed.slice(10)) await p.project(journal.step([{ type: 'OrderPlaced', order: o }]));
    const expected = [...placed].reverse().map((o) => o.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await listOrders(p.db.pool, carol.account_id, {}, { limit: 7, cursor });
      seen.push(...page.orders.map((o) => o.id));
      cursor = page.cursor;
      pages += 1;
      // new orders arrive while the client pages: they belong before the first page
      await p.project(journal.step([{ type: 'OrderPlaced', order: order(carol, m1) }]));
    } while (cursor !== null && pages < 20);
    expect(seen).to.deep.equal(expected);
  });

  it('refuses a forged cursor as an invalid cursor (REST: 400), not a SQL error', async () => {
    const forged = Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url');
    try {
      await listOrders(p.db.pool, alice.account_id, {}, { cursor: forged });
      expect.fail('should have thrown');
    } catch (err) {
      expect(err).to.be.instanceOf(InvalidCursor);
      expect((err as Error).message).to.equal('cursor is invalid');
    }
  });

  it('applies the same batch twice as once', async () => {
    const o = order(alice, m1, { price: '0.33' });
    const batch = [
      journal.step([{ type: 'OrderPlaced', order: o }]),
      journal.step([{ type: 'OrderChanged', order: { ...o, filled: '4', filled_percentage: 40, status: 'open' } }]),
    ];
    await p.project(...batch);
    const once = await dumpTables(p.db.pool, CORE_TABLES);
    await p.project(...batch);
    expect(await dumpTables(p.db.pool, CORE_TABLES)).to.deep.equal(once);
  });

  it('never lets an older snapshot overwrite a newer one', async () => {
    const o = order(alice, m1, { price: '0.21' });
    const placed = journal.step([{ type: 'OrderPlaced', order: o }]);
    const cancelled = journal.step([{ type: 'OrderChanged', order: { ...o, status: 'cancelled', cancellation_reason: 'cancelled by user' } }]);
    await p.project(placed, cancelled);
    await p.project(placed); // a stale redelivery
    expect((await getOrder(p.db.pool, alice.account_id, o.id))?.status).to.equal('cancelled');
    // inside one batch, the later snapshot of the same step wins too
    const o2 = order(alice, m1);
    await p.project(journal.step([
      { type: 'OrderPlaced', order: o2 },
      { type: 'OrderChanged', order: { ...o2, status: 'filled', filled: '10', filled_percentage: 100 } },
    ]));
    expect((await getOrder(p.db.pool, alice.account_id, o2.id))?.status).to.equal('filled');
  });
});
