// Private channels through the official Phoenix client over a real socket: the join reply is the
// snapshot REST would give, every later change arrives as `update` in engine order, and the
// snapshot plus the updates equals what REST reads afterwards. Who may join whose topic.

import { expect } from 'chai';
import { useWholeService, type Member, placeLimit } from '../api/v1/harness.ts';
import { connect, join, refusedJoin, type Connected, type Joined } from './phoenix.ts';

const LIVE = 'created,requested,accepted,delayed,open';

/** Waits until `joined` has received `count` updates carrying `key`. */
async function updates(joined: Joined, key: string, count: number): Promise<any[]> {
  for (;;) {
    const found = joined.messages.filter((m) => m.event === 'update' && key in m.payload).map((m) => m.payload[key]);
    if (found.length >= count) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('realtime: private channels', function () {
  let aliceSocket: Connected;
  let bobSocket: Connected;
  after(() => {
    aliceSocket?.close();
    bobSocket?.close();
  });
  const suite = useWholeService(['alice', 'bob']);

  const place = (who: Member, body: Record<string, unknown>) => placeLimit(who, { market_id: suite.marketId, ...body });

  before(async () => {
    await place(suite.alice, { action: 'buy', price: '0.20', quantity: '1' }); // live before anyone joins
    aliceSocket = await connect(suite.svc.socketUrl, { key: suite.alice.key });
    bobSocket = await connect(suite.svc.socketUrl, { key: suite.bob.readOnlyKey });
  });

  it('orders: live orders on join, then every change in engine order; snapshot + updates = REST', async () => {
    const orders = await join(aliceSocket, `orders:${suite.alice.user_id}`);
    const rest = await suite.alice.call('GET', `/api/v1/orders?status=${LIVE}`);
    expect(orders.response.orders).to.deep.equal(rest.body.orders);

    const first = await place(suite.alice, { action: 'buy', price: '0.21', quantity: '2' });
    const second = await place(suite.alice, { action: 'buy', price: '0.22', quantity: '3' });
    const cancelled = await suite.alice.call('DELETE', '/api/v1/orders/batched', {
      body: { orders: [{ order_id: first.id }] },
    });
    expect(cancelled.status).to.equal(200);
    const ours = (list: Array<{ id: string }>) => list.filter((o) => o.id === first.id || o.id === second.id);
    for (;;) {
      // (an update the snapshot already reflects may come again: updates are whole objects)
      if (ours(await updates(orders, 'order', 1)).length >= 3) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const pushed = await updates(orders, 'order', 1);
    // engine order: first placed, second placed, first cancelled
    expect(ours(pushed).map((o: any) => [o.id, o.status])).to.deep.equal([
      [first.id, 'open'],
      [second.id, 'open'],
      [first.id, 'cancelled'],
    ]);

    const book = new Map<string, any>(orders.response.orders.map((o: { id: string }) => [o.id, o]));
    for (const order of pushed) book.set(order.id, order);
    for (const order of pushed)
      expect((await suite.alice.call('GET', `/api/v1/orders/${order.id}`)).body.order).to.deep.equal(
        book.get(order.id),
      );
    const live = [...book.values()]
      .filter((o) => LIVE.split(',').includes(o.status))
      .map((o) => o.id)
      .sort();
    expect(live).to.deep.equal(
      (await suite.alice.call('GET', `/api/v1/orders?status=${LIVE}`)).body.orders
        .map((o: { id: string }) => o.id)
        .sort(),
    );
    await orders.leave();
  });

  it('fills, positions, balances: snapshot + updates = REST (a balance update carries the changed fields only)', async () => {
    const fills = await join(aliceSocket, `fills:${suite.alice.user_id}`);
    const positions = await join(aliceSocket, `positions:${suite.alice.user_id}`);
    const balances = await join(aliceSocket, `balances:${suite.alice.user_id}`);
    expect(fills.response).to.deep.equal({ fills: (await suite.alice.call('GET', '/api/v1/fills')).body.fills });
    expect(positions.response).to.deep.equal((await suite.alice.call('GET', '/api/v1/positions')).body);
    const restBalance = (await suite.alice.call('GET', '/api/v1/account/balance')).body.balance;
    expect(balances.response).to.deep.equal({ balance: restBalance });

    await place(suite.bob, { action: 'sell', price: '0.22', quantity: '3' }); // fills alice's resting 0.22 bid
    const [fill] = await updates(fills, 'fill', 1);
    expect(fill).to.deep.equal(
      (await suite.alice.call('GET', `/api/v1/fills?order_ids=${fill.order_id}`)).body.fills[0],
    );
    const [position] = await updates(positions, 'position', 1);
    expect(position).to.deep.equal(
      (await suite.alice.call('GET', '/api/v1/positions')).body.positions.find(
        (p: { market_id: string }) => p.market_id === suite.marketId,
      ),
    );

    const deltas = await updates(balances, 'balance', 1);
    const merged = { ...balances.response.balance };
    for (const delta of deltas) {
      expect(delta).to.include({ account_id: suite.alice.account_id, user_id: suite.alice.user_id });
      Object.assign(merged, delta);
    }
    // the fill moved the liabilities and the available balance, not the fee schedule or the totals of deposits
    const last = deltas[deltas.length - 1];
    expect(last).to.not.have.any.keys('fee_schedule', 'total_deposits', 'loyalty_tier');
    expect(Object.keys(last).length).to.be.below(Object.keys(restBalance).length);
    expect(merged).to.deep.equal((await suite.alice.call('GET', '/api/v1/account/balance')).body.balance);
    for (const joined of [fills, positions, balances]) await joined.leave();
  });

  it('settlements and account: the account topic carries all five, settlements arrive when the market settles', async () => {
    const account = await join(aliceSocket, `account:${suite.alice.user_id}`);
    expect(account.response).to.have.keys('orders', 'fills', 'positions', 'settlements', 'balance');
    expect(account.response.positions).to.deep.equal(
      (await suite.alice.call('GET', '/api/v1/positions')).body.positions,
    );
    const settlements = await join(aliceSocket, `settlements:${suite.alice.user_id}`);
    expect(settlements.response.settlements).to.deep.equal([]);

    await suite.svc.admin('POST', `/markets/${suite.marketId}/result`, { result: 'win' });
    const [settlement] = await updates(settlements, 'settlement', 1);
    expect(settlement).to.include({
      account_id: suite.alice.account_id,
      market_id: suite.marketId,
      type: 'settlement',
    });
    const [viaAccount] = await updates(account, 'settlement', 1);
    expect(viaAccount).to.deep.equal(settlement);
    await updates(account, 'balance', 1);
    await updates(account, 'position', 1);

    const again = await join(aliceSocket, `settlements:${suite.alice.user_id}`);
    expect(again.response.settlements.map((s: { id: string }) => s.id)).to.include(settlement.id);
    for (const joined of [account, again]) await joined.leave();
  });

  it("snapshots come from the engine's live view while the read models lag; no update at or behind a snapshot follows it", async function () {
    this.timeout(60_000);
    const carol = await suite.svc.member();
    const market = (await suite.svc.market()).market_id;
    const placeOn = (body: Record<string, unknown>) => place(carol, { market_id: market, action: 'buy', ...body });
    const socket = await connect(suite.svc.socketUrl, { key: carol.key });
    const early = await placeOn({ price: '0.10', quantity: '1' });
    await suite.svc.service.runner.waitFor(suite.svc.service.ctx.writes.lastFor(carol.account_id)!, 10_000);
    // the read models stop here: the core projector waits on this lock until it is released
    const blocker = await suite.svc.service.ctx.pool.connect();
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      await blocker.query('COMMIT');
      blocker.release();
    };
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE core_orders IN EXCLUSIVE MODE');
      const later = await placeOn({ price: '0.11', quantity: '2' });
      const cancelled = await carol.call('DELETE', '/api/v1/orders/batched', {
        body: { orders: [{ order_id: early.id }] },
      });
      expect(cancelled.status).to.equal(200);

      const orders = await join(socket, `orders:${carol.user_id}`);
      const balances = await join(socket, `balances:${carol.user_id}`);
      const positions = await join(socket, `positions:${carol.user_id}`);
      const account = await join(socket, `account:${carol.user_id}`);
      // what the engine holds now, not what the read models last saw
      expect(orders.response.orders.map((o: { id: string; status: string }) => [o.id, o.status])).to.deep.equal([
        [later.id, 'open'],
      ]);
      expect(account.response.orders).to.deep.equal(orders.response.orders);
      const balance = (await carol.call('GET', '/api/v1/account/balance')).body.balance;
      expect(balances.response).to.deep.equal({ balance });
      expect(account.response.balance).to.deep.equal(balance);
      expect(positions.response).to.deep.equal((await carol.call('GET', '/api/v1/positions')).body);
      expect(
        (await suite.svc.service.ctx.pool.query('SELECT status FROM core_orders WHERE id = $1', [early.id])).rows,
      ).to.deep.equal([{ status: 'open' }]);

      // the read models catch up and announce both orders and the balance: the snapshots showed them already
      await release();
      const last = await placeOn({ price: '0.12', quantity: '1' });
      for (const joined of [orders, account]) {
        const update = await joined.next('update', (payload) => payload.order?.id === last.id);
        expect(update.order.status).to.equal('open');
        const sent = joined.messages
          .filter((m) => m.event === 'update' && m.payload.order)
          .map((m) => m.payload.order.id);
        expect(sent).to.deep.equal([last.id]);
      }
      // the balance moved by the last order alone: its update is the first, against the snapshot
      const [delta] = await updates(balances, 'balance', 1);
      expect({ ...balances.response.balance, ...delta }).to.deep.equal(
        (await carol.call('GET', '/api/v1/account/balance')).body.balance,
      );
      for (const joined of [orders, balances, positions, account]) await joined.leave();
    } finally {
      await release();
      socket.close();
    }
  });

  it("only the socket's own member may join; anonymous and unprefixed-header sockets are unauthorized", async () => {
    for (const name of [
      'orders',
      'fills',
      'positions',
      'settlements',
      'balances',
      'account',
      'order_slip',
      'betslip',
    ]) {
      expect(await refusedJoin(bobSocket, `${name}:${suite.alice.user_id}`)).to.deep.equal({ reason: 'unauthorized' });
    }
    const anonymous = await connect(suite.svc.socketUrl);
    expect(await refusedJoin(anonymous, `orders:${suite.alice.user_id}`)).to.deep.equal({ reason: 'unauthorized' });
    anonymous.close();
    // the old unprefixed header names are no credential at all: the socket connects anonymously
    const { signedHeaders } = await import('../api/v1/harness.ts');
    const url = `${suite.svc.socketUrl}/websocket?vsn=2.0.0`;
    const prefixed = signedHeaders(suite.alice.key, 'GET', new URL(url).pathname + new URL(url).search, Date.now());
    const unprefixed = Object.fromEntries(
      Object.entries(prefixed).map(([name, value]) => [name.replace(/^X-/, ''), value]),
    );
    const legacy = await connect(suite.svc.socketUrl, { headers: unprefixed });
    expect(await refusedJoin(legacy, `orders:${suite.alice.user_id}`)).to.deep.equal({ reason: 'unauthorized' });
    expect((await join(legacy, 'events')).response).to.have.property('events');
    legacy.close();
  });
});
