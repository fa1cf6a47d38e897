// Orders read model: GET /orders filters, most-recent-first keyset paging that stays stable
// while orders are placed between page reads, another account's order invisible, wire shape,
// idempotent replay, and a stale redelivery never taking an order back.

import { InvalidCursor } from '../../../projections/pagination.ts';
import { expect } from 'chai';
import { getOrder, listOrders } from '../../../projections/core/queries/orders.ts';
import { CORE_TABLES } from '../../../projections/core/schema.ts';
import { cancel, deposit, dumpTables, openAccount, place, useTwoMemberDesk } from './fixtures.ts';

describe('core read models: orders', () => {
  const core = useTwoMemberDesk({ markets: [{}, {}] });
  const { desk, alice, bob, event, run } = core;
  const [m1, m2] = core.markets;

  it("lists the account's orders most recent first, with the documented fields and no internal seq", async () => {
    const first = place(alice.account_id, m1.market_id, 'buy', '0.40', '10', { client_order_id: 'a-1' });
    const second = place(alice.account_id, m2.market_id, 'sell', '0.55', '10', { client_order_id: 'a-2' });
    const bobs = place(bob.account_id, m1.market_id, 'buy', '0.40', '10');
    await core.p.project(desk.record(first.input), desk.record(bobs.input));
    await run(second.input);

    const { orders, cursor } = await listOrders(core.p.db.pool, alice.account_id, {}, {});
    expect(orders.map((o) => o.id)).to.deep.equal([second.id, first.id]);
    expect(cursor).to.equal(null);
    const wire = orders[1] as Record<string, unknown>;
    expect(wire).to.not.have.property('seq');
    for (const field of [
      'id',
      'market_id',
      'action',
      'order_type',
      'status',
      'quantity',
      'filled',
      'filled_percentage',
      'price',
      'avg_price',
      'total_value',
      'amount',
      'filled_amount',
      'client_order_id',
      'device_id',
      'ip_address',
      'expiration',
      'expiration_time',
      'expires_at',
      'accepted_at',
      'delayed_until',
      'inserted_at',
      'time',
      'placed_pre_start',
      'fix_order',
      'cancellation_reason',
      'rejection_reason',
      'odds_type',
      'odds_value',
    ]) {
      expect(wire, field).to.have.property(field);
    }
    expect(wire).to.include({
      quantity: '10',
      price: '0.40',
      status: 'open',
      filled: '0',
      total_value: '0.00',
      ip_address: '203.0.113.7',
    });
    expect(wire.expires_at).to.equal(event.start);
  });

  it('filters by order ids, client order ids, market ids and statuses, all combined', async () => {
    const cancelled = place(alice.account_id, m1.market_id, 'buy', '0.35', '5', { client_order_id: 'c-1' });
    await run(cancelled.input);
    await run(cancel(alice.account_id, cancelled.id));

    const byStatus = await listOrders(core.p.db.pool, alice.account_id, { statuses: ['cancelled'] });
    expect(byStatus.orders.map((o) => o.id)).to.deep.equal([cancelled.id]);
    expect(byStatus.orders[0]).to.include({ cancellation_reason: 'cancelled_by_user' });

    const byMarket = await listOrders(core.p.db.pool, alice.account_id, { marketIds: [m2.market_id] });
    expect(byMarket.orders.every((o) => o.market_id === m2.market_id)).to.equal(true);
    expect(byMarket.orders).to.have.length(1);

    const byClient = await listOrders(core.p.db.pool, alice.account_id, { clientOrderIds: ['a-1', 'c-1'] });
    expect(byClient.orders.map((o) => o.client_order_id)).to.deep.equal(['c-1', 'a-1']);

    const combined = await listOrders(core.p.db.pool, alice.account_id, {
      clientOrderIds: ['a-1', 'c-1'],
      statuses: ['open'],
    });
    expect(combined.orders.map((o) => o.client_order_id)).to.deep.equal(['a-1']);

    const byId = await listOrders(core.p.db.pool, alice.account_id, { orderIds: [cancelled.id, 'not-a-uuid'] });
    expect(byId.orders.map((o) => o.id)).to.deep.equal([cancelled.id]);
  });

  it("getOrder returns the account's own order and null for another account's", async () => {
    const mine = place(alice.account_id, m1.market_id, 'buy', '0.20', '1');
    await run(mine.input);
    expect((await getOrder(core.p.db.pool, alice.account_id, mine.id))?.id).to.equal(mine.id);
    expect(await getOrder(core.p.db.pool, bob.account_id, mine.id)).to.equal(null);
    expect(await getOrder(core.p.db.pool, alice.account_id, 'no-such-order')).to.equal(null);
  });

  it('pages with a cursor without duplicates or skips while orders are placed between pages', async () => {
    const carol = openAccount();
    await run([carol.input, deposit(carol.account_id, '1000')]);
    const placed = Array.from({ length: 25 }, (_, i) =>
      place(carol.account_id, m1.market_id, 'buy', '0.10', String(i + 1)),
    );
    // a batch of several orders in one record (like POST /orders/batched) and single records
    await run(placed.slice(0, 10).map((o) => o.input));
    for (const o of placed.slice(10)) await run(o.input);
    const expected = [...placed].reverse().map((o) => o.id);

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await listOrders(core.p.db.pool, carol.account_id, {}, { limit: 7, cursor });
      seen.push(...page.orders.map((o) => o.id));
      cursor = page.cursor;
      pages += 1;
      // new orders arrive while the client pages: they belong before the first page
      await run(place(carol.account_id, m1.market_id, 'buy', '0.10', '1').input);
    } while (cursor !== null && pages < 20);
    expect(seen).to.deep.equal(expected);
  });

  it('refuses a forged cursor as an invalid cursor (REST: 400), not a SQL error', async () => {
    const forged = Buffer.from(JSON.stringify(['x', 'y'])).toString('base64url');
    try {
      await listOrders(core.p.db.pool, alice.account_id, {}, { cursor: forged });
      expect.fail('should have thrown');
    } catch (err) {
      expect(err).to.be.instanceOf(InvalidCursor);
      expect((err as Error).message).to.equal('cursor is invalid');
    }
  });

  it('applies the same batch twice as once', async () => {
    const resting = place(alice.account_id, m2.market_id, 'buy', '0.33', '10');
    const batch = [
      desk.record(resting.input),
      desk.record(place(bob.account_id, m2.market_id, 'sell', '0.33', '4').input),
    ];
    await core.p.project(...batch);
    const once = await dumpTables(core.p.db.pool, CORE_TABLES);
    expect(await getOrder(core.p.db.pool, alice.account_id, resting.id)).to.include({
      filled: '4',
      status: 'open',
      filled_percentage: 40,
    });
    await core.p.project(...batch);
    expect(await dumpTables(core.p.db.pool, CORE_TABLES)).to.deep.equal(once);
  });

  it('never lets a stale redelivery take an order back', async () => {
    const o = place(alice.account_id, m1.market_id, 'buy', '0.21', '1');
    const placed = desk.record(o.input);
    const cancelled = desk.record(cancel(alice.account_id, o.id));
    await core.p.project(placed, cancelled);
    await core.p.project(placed); // a stale redelivery
    expect((await getOrder(core.p.db.pool, alice.account_id, o.id))?.status).to.equal('cancelled');
    // inside one record: placed and filled in two steps, the order ends filled
    const o2 = place(alice.account_id, m2.market_id, 'buy', '0.50', '3');
    await run([o2.input, place(bob.account_id, m2.market_id, 'sell', '0.50', '3').input]);
    expect(await getOrder(core.p.db.pool, alice.account_id, o2.id)).to.include({
      status: 'filled',
      filled: '3',
      avg_price: '0.50',
      total_value: '1.50',
    });
  });
  it("keeps each of an order's fields once in its row: the doc holds nothing a column holds, nothing the view derives, no null; read back, the view is the one announced", async () => {
    const o = place(alice.account_id, m1.market_id, 'sell', '0.61', '5', { client_order_id: 'narrow-1' });
    const changes = [
      ...(await run(o.input)),
      ...(await run(place(bob.account_id, m1.market_id, 'buy', '0.61', '2').input)),
    ];
    const announced = changes.filter((c) => c.kind === 'order' && (c.doc as { id: string }).id === o.id).pop();
    const row = (
      await core.p.db.pool.query<{ doc: Record<string, unknown> }>('SELECT doc FROM core_orders WHERE id = $1', [o.id])
    ).rows[0];
    const doc = row?.doc ?? {};
    for (const field of ['id', 'account_id', 'market_id', 'client_order_id', 'status', 'seq'])
      expect(doc, `column ${field}`).to.not.have.property(field);
    for (const field of [
      'filled_percentage',
      'avg_price',
      'time',
      'amount',
      'filled_amount',
      'odds_type',
      'odds_value',
      'fix_order',
    ])
      expect(doc, `derived ${field}`).to.not.have.property(field);
    expect(Object.values(doc)).to.not.include(null);
    expect(doc).to.include({ action: 'sell', quantity: '5', filled: '2', price: '0.61', total_value: '1.22' });
    expect(announced?.doc).to.not.equal(undefined);
    expect(await getOrder(core.p.db.pool, alice.account_id, o.id)).to.deep.equal(announced?.doc);
  });
});
