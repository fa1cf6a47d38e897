// The test clock drives every time rule of the running service: moving it expires
// good_till_time orders and releases in-play delays at once (the move ticks the engine), and
// the signature window follows it.

import { expect } from 'chai';
import { ServiceClient, useServiceClient, type ApiKeyCredentials } from './http.ts';

describe('the service clock (TEST_CLOCK=1)', function () {
  this.timeout(60_000);
  const suite = useServiceClient();
  let key: ApiKeyCredentials;

  before(async () => {
    await suite.client.ok('GET', '/clock'); // learn the service time for signing
    const account = (await suite.client.ok('POST', '/accounts', {})).account;
    await suite.client.ok('POST', `/accounts/${account.account_id}/deposits`, { amount: '100.00' });
    key = (await suite.client.ok('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_write' })).api_key;
  });

  async function order(orderId: string) {
    const answer = await suite.client.signed(key, 'GET', `/orders/${orderId}`);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.order as Record<string, unknown>;
  }

  it('a good_till_time order expires as soon as the clock passes its time', async () => {
    const { market } = await suite.client.listEventAndMarket(
      { title: 'Clock v Time', start: new Date(suite.client.nowMs() + 86_400_000).toISOString() },
      { title: 'Clock to win', status: 'open' },
    );
    const expirationUs = (suite.client.nowMs() + 60_000) * 1000;
    const placed = await suite.client.signed(key, 'POST', '/orders', {
      market_id: market.market_id,
      action: 'buy',
      order_type: 'limit',
      price: '0.20',
      quantity: '5',
      expiration: 'good_till_time',
      expiration_time: expirationUs,
    });
    expect(placed.status, JSON.stringify(placed.body)).to.equal(200);
    expect(placed.body.order.status).to.equal('open');
    await suite.client.ok('POST', '/clock', { advance_ms: 61_000 });
    expect((await order(placed.body.order.id)).status).to.equal('cancelled');
    const balance = (await suite.client.signed(key, 'GET', '/account/balance')).body.balance;
    expect(balance).to.include({ available_balance: '100.00', buy_order_liability: '0.00' });
  });

  it('an in-play delay is released as soon as the clock passes it', async () => {
    const { event, market } = await suite.client.listEventAndMarket(
      { title: 'Delay v Live', start: new Date(suite.client.nowMs() + 60_000).toISOString() },
      { title: 'Delay to win', status: 'open', in_play_delay_sec: 30 },
    );
    await suite.client.ok('POST', `/events/${event.event_id}/start`);
    const placed = await suite.client.signed(key, 'POST', '/orders', {
      market_id: market.market_id,
      action: 'buy',
      order_type: 'limit',
      price: '0.25',
      quantity: '4',
    });
    expect(placed.status, JSON.stringify(placed.body)).to.equal(200);
    expect(placed.body.order.status).to.equal('delayed');
    await suite.client.ok('POST', '/clock', { advance_ms: 31_000 });
    expect((await order(placed.body.order.id)).status).to.equal('open');
  });

  it("the signature window follows the service clock, not the caller's", async () => {
    await suite.client.ok('POST', '/clock', { advance_ms: 3_600_000 });
    expect((await suite.client.signed(key, 'GET', '/account/balance')).status).to.equal(200);
    const wallClock = new ServiceClient(suite.service.baseUrl, suite.service.adminToken, suite.service.adminUrl); // signs with the real time
    expect((await wallClock.signed(key, 'GET', '/account/balance')).status).to.equal(401);
  });
});
