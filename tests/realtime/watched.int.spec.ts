// Per-order change documents go from the projection worker to the feed only for accounts a
// private channel that carries them watches (orders, fills, account): a member nobody watches
// costs no order or fill document, a member whose channel is joined gets every change from the
// join on, and leaving stops them again.

import { expect } from 'chai';
import type { ProjectionChange } from '../../domain/readModel/change.ts';
import { useWholeService, placeLimit } from '../api/v1/harness.ts';
import { connect, join, type Connected } from './phoenix.ts';

describe('realtime: order and fill changes only for watched accounts', function () {
  this.timeout(60_000);
  const suite = useWholeService(['alice', 'bob']);
  const seen: ProjectionChange[] = [];
  let socket: Connected | undefined;
  let stop: (() => void) | undefined;
  before(() => {
    stop = suite.svc.ctx.projections.onChange?.((changes) => seen.push(...changes));
  });
  after(() => {
    stop?.();
    socket?.close();
  });

  /** Places a crossing pair (alice buys from bob) and waits until the read models hold it. */
  async function trade(price: string): Promise<void> {
    await placeLimit(suite.bob, { market_id: suite.marketId, action: 'sell', price, quantity: '1' });
    const order = await placeLimit(suite.alice, { market_id: suite.marketId, action: 'buy', price, quantity: '1' });
    // a read of history waits for the read models to pass the member's last write
    const history = await suite.alice.call('GET', `/api/v1/orders?status=filled&order_ids=${order.id}`);
    expect(history.body.orders.map((o: { id: string }) => o.id)).to.deep.equal([order.id]);
  }
  const kindsFor = (accountId: string) => seen.filter((c) => c.keys.account_id === accountId).map((c) => c.kind);

  it('sends no order or fill change of an account nobody watches (its balance changes still come)', async () => {
    await trade('0.40');
    expect(kindsFor(suite.alice.account_id)).to.include('balance');
    expect(kindsFor(suite.alice.account_id)).to.not.include('order');
    expect(kindsFor(suite.alice.account_id)).to.not.include('fill');
  });

  it('sends them, documents included, from the join of a private channel on; not after the leave', async () => {
    socket = await connect(suite.svc.socketUrl, { key: suite.alice.key });
    const fills = await join(socket, `fills:${suite.alice.user_id}`);
    seen.length = 0;
    await trade('0.41');
    const orderChange = seen.find((c) => c.kind === 'order' && c.keys.account_id === suite.alice.account_id);
    expect(orderChange?.doc).to.include({ account_id: suite.alice.account_id, price: '0.41' });
    expect(kindsFor(suite.alice.account_id)).to.include('fill');
    // bob, whom nobody watches, still gets none
    expect(kindsFor(suite.bob.account_id)).to.not.include('order');
    const pushed = await fills.next('update', (payload) => payload.fill?.price === '0.41');
    expect(pushed.fill.account_id).to.equal(suite.alice.account_id);

    await fills.leave();
    seen.length = 0;
    await trade('0.42');
    expect(kindsFor(suite.alice.account_id)).to.not.include('order');
    expect(kindsFor(suite.alice.account_id)).to.not.include('fill');
  });

  it('keeps sending them while any channel of the account that carries them is joined; a balances join does not ask for them', async () => {
    const orders = await join(socket!, `orders:${suite.alice.user_id}`);
    const account = await join(socket!, `account:${suite.alice.user_id}`);
    const balances = await join(socket!, `balances:${suite.alice.user_id}`);
    await orders.leave();
    seen.length = 0;
    await trade('0.43');
    expect(kindsFor(suite.alice.account_id)).to.include('order');
    await account.leave();
    seen.length = 0;
    await trade('0.44');
    expect(kindsFor(suite.alice.account_id)).to.not.include('order');
    expect(kindsFor(suite.alice.account_id)).to.include('balance');
    const pushed = await balances.next('update', (payload) => payload.balance !== undefined);
    expect(pushed.balance.account_id).to.equal(suite.alice.account_id);
  });
});
