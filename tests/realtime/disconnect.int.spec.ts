// cancel_on_disconnect over real sockets with the official Phoenix client: the member's last
// socket holding `orders` (or `account`) closing, or going silent past ws_heartbeat_timeout_ms
// on the service's test clock, cancels exactly the live orders placed with
// cancel_on_disconnect: true, through the engine (the cancellation is a journaled input).

import { expect } from 'chai';
import { startWholeService, type Member, type WholeService } from '../api/v1/harness.ts';
import { connect, join } from './phoenix.ts';

async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('realtime: cancel_on_disconnect', function () {
  let svc: WholeService;
  let marketId: string;

  const place = async (who: Member, cancelOnDisconnect: boolean, price = '0.30') => {
    const answer = await who.call('POST', '/api/v1/orders', {
      body: {
        market_id: marketId,
        action: 'buy',
        order_type: 'limit',
        price,
        quantity: '1',
        cancel_on_disconnect: cancelOnDisconnect,
      },
    });
    expect(answer.status, answer.text).to.equal(200);
    return answer.body.order;
  };
  const statusOf = async (who: Member, orderId: string) =>
    (await who.call('GET', `/api/v1/orders/${orderId}`)).body.order.status;
  const cancelsCounted = async () => {
    const metric = await svc.service.registry.getSingleMetric('ws_cancel_on_disconnect_total')?.get();
    return metric?.values.find((v) => v.labels.outcome === 'ok')?.value ?? 0;
  };
  const connections = () => svc.service.realtime.server.connections();

  before(async () => {
    svc = await startWholeService();
    marketId = (await svc.market()).market_id;
  });
  after(async () => {
    await svc?.stop();
  });

  it('closing the last socket holding `orders` cancels the cancel_on_disconnect orders, and only those', async () => {
    const alice = await svc.member();
    const guarded = await place(alice, true);
    const kept = await place(alice, false);
    const first = await connect(svc.socketUrl, { key: alice.key });
    const second = await connect(svc.socketUrl, { key: alice.key });
    await join(first, `orders:${alice.user_id}`);
    await join(second, `account:${alice.user_id}`);
    // a socket that joined and then left on purpose is not protected, and closing it is no disconnect
    const third = await connect(svc.socketUrl, { key: alice.key });
    await (await join(third, `orders:${alice.user_id}`)).leave();
    const before = await cancelsCounted();
    const open = connections();

    third.close();
    first.close();
    await until(() => connections() === open - 2);
    expect(await statusOf(alice, guarded.id)).to.equal('open'); // `second` still holds account

    second.close();
    await until(async () => (await statusOf(alice, guarded.id)) === 'cancelled');
    expect(await statusOf(alice, kept.id)).to.equal('open');
    await until(async () => (await cancelsCounted()) === before + 1);
    const order = (await alice.call('GET', `/api/v1/orders/${guarded.id}`)).body.order;
    expect(order.cancellation_reason).to.be.a('string');
  });

  it("a socket silent past ws_heartbeat_timeout_ms (service clock) is closed and its member's orders cancelled", async () => {
    const bob = await svc.member();
    const guarded = await place(bob, true, '0.31');
    const socket = await connect(svc.socketUrl, { key: bob.key });
    let closedByServer = false;
    socket.socket.onClose(() => {
      closedByServer = true;
    });
    await join(socket, `orders:${bob.user_id}`);
    const timeoutMs = (await svc.admin('GET', '/settings')).settings.ws_heartbeat_timeout_ms;
    expect(timeoutMs).to.equal(60_000);
    expect(await statusOf(bob, guarded.id)).to.equal('open');

    await svc.admin('POST', '/clock', { advance_ms: timeoutMs + 1_000 });
    await until(() => closedByServer);
    await until(async () => (await statusOf(bob, guarded.id)) === 'cancelled');
    socket.close();
  });

  it('a shorter ws_heartbeat_timeout_ms set by the operator applies to open sockets', async () => {
    const carol = await svc.member();
    const guarded = await place(carol, true, '0.32');
    const socket = await connect(svc.socketUrl, { key: carol.key, nowMs: () => svc.ctx.clock.nowUs() / 1000 }); // the clock was moved
    await join(socket, `account:${carol.user_id}`);
    const patched = (await svc.admin('PATCH', '/settings', { ws_heartbeat_timeout_ms: 200 })).settings;
    expect(patched.ws_heartbeat_timeout_ms).to.equal(200);
    try {
      await until(async () => (await statusOf(carol, guarded.id)) === 'cancelled');
    } finally {
      await svc.admin('PATCH', '/settings', { ws_heartbeat_timeout_ms: 60_000 });
      socket.close();
    }
    expect((await svc.adminRaw('PATCH', '/settings', { ws_heartbeat_timeout_ms: 10 })).status).to.equal(400);
  });
});
