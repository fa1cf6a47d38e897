// Back-pressure: a socket that stops reading while frames keep coming is closed once its send
// buffer has stayed above the bound, the close is counted, and the other sockets go on receiving.

import { expect } from 'chai';
import WebSocket from 'ws';
import { useWholeService, USER_AGENT } from '../api/v1/harness.ts';
import { connect, join } from './phoenix.ts';

/** Heartbeat replies the stuck socket provokes: ~60 bytes each, well past kernel buffers and the bound. */
const FLOOD_FRAMES = 200_000;

async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('realtime: back-pressure', function () {
  this.timeout(60_000);

  const suite = useWholeService(['trader']);

  const slowCloses = async () =>
    (await suite.svc.service.registry.getSingleMetric('ws_slow_consumer_closes_total')?.get())?.values[0]?.value ?? 0;

  it('closes a socket whose send buffer stays above the bound, counts it, and others are served meanwhile', async () => {
    const healthy = await connect(suite.svc.socketUrl, { key: suite.trader.key });
    const book = await join(healthy, 'orderbook', { market_ids: [suite.marketId] });
    const before = await slowCloses();
    const open = suite.svc.service.realtime.server.connections();

    const stuck = new WebSocket(`${suite.svc.socketUrl}/websocket?vsn=2.0.0`, {
      headers: { 'user-agent': USER_AGENT },
    });
    await new Promise((resolve, reject) => {
      stuck.on('open', resolve);
      stuck.on('error', reject);
    });
    (stuck as unknown as { _socket: { pause(): void } })._socket.pause(); // reads nothing from now on
    for (let i = 0; i < FLOOD_FRAMES; i++) stuck.send(`[null,"${i}","phoenix","heartbeat",{}]`);

    // while it is stuck, the healthy socket still gets its deltas
    const placed = await suite.trader.call('POST', '/api/v1/orders', {
      body: { market_id: suite.marketId, action: 'buy', order_type: 'limit', price: '0.25', quantity: '1' },
    });
    expect(placed.status).to.equal(200);
    const delta = await book.next('delta', (d) => d.bids.some(([price]: [string]) => price === '0.25'));
    expect(delta.market_id).to.equal(suite.marketId);

    await until(async () => (await slowCloses()) === before + 1);
    await until(() => suite.svc.service.realtime.server.connections() === open);
    stuck.terminate();
    healthy.close();
  });
});
