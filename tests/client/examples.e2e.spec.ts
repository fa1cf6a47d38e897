// client/examples run as a user would (child processes) against a live service: the book
// follower prints the market maker's quotes as they appear, the maker prints a fill when a taker
// lifts its offer, and on SIGINT it cancels its quotes, which the follower sees leave the book.

import { expect } from 'chai';
import path from 'node:path';
import { apiKey, createClient } from '@event-exchange/client';
import { useService } from './support.ts';
import { run, type Program } from './lines.ts';

const EXAMPLES = path.resolve('client/examples');

describe('client: the examples against a live service', function () {
  this.timeout(120_000);
  const programs: Program[] = [];
  // registered before the service's hooks, so the programs are killed before the service stops
  after(() => {
    for (const program of programs) program.child.kill('SIGKILL');
  });
  const suite = useService();

  it('the market maker quotes, fills and cancels on SIGINT; the book follower sees each change', async () => {
    const admin = suite.service.admin;
    const marketId = await admin.market();
    const maker = await admin.member();
    const taker = await admin.member();
    const env = (member: { keyId: string; privateKey: string }) => ({
      EXCHANGE_URL: suite.service.baseUrl,
      EXCHANGE_WS_URL: suite.service.wsUrl,
      KEY_ID: member.keyId,
      PRIVATE_KEY: member.privateKey,
      MARKET_ID: marketId,
    });

    const follower = run([path.join(EXAMPLES, 'book-follower.mjs')], env(taker));
    programs.push(follower);
    expect(await follower.next()).to.include({ event: 'snapshot', reason: 'join', levels: 0 });

    const mm = run([path.join(EXAMPLES, 'market-maker.mjs')], {
      ...env(maker),
      TICK_MS: '60000',
      MID_CENTS: '50',
      SPREAD_CENTS: '4',
    });
    programs.push(mm);
    const quoted = await mm.next((line) => line.event === 'quoted');
    expect(quoted.offer).to.match(/^0\.\d\d$/);
    const seen = await follower.next((line) => line.best_bid !== null && line.best_offer !== null);
    expect(seen.best_bid).to.deep.equal([quoted.bid, '10']);
    expect(seen.best_offer).to.deep.equal([quoted.offer, '10']);

    const takerClient = createClient({
      baseUrl: suite.service.baseUrl,
      credentials: apiKey(taker.keyId, taker.privateKey),
    });
    const lifted = await takerClient.placeOrder({
      market_id: marketId,
      action: 'buy',
      order_type: 'limit',
      price: quoted.offer,
      quantity: '3',
    });
    expect(lifted).to.include({ status: 'filled' });
    expect(await mm.next((line) => line.event === 'fill')).to.include({
      action: 'sell',
      price: quoted.offer,
      filled: '3',
    });
    expect((await follower.next((line) => line.best_offer?.[1] === '7')).best_offer).to.deep.equal([quoted.offer, '7']);

    mm.child.kill('SIGINT');
    expect(await mm.next((line) => line.event === 'stopped')).to.include({ cancelled: 2 });
    expect(await mm.exited).to.equal(0);
    expect(await follower.next((line) => line.levels === 0)).to.include({
      event: 'delta',
      best_bid: null,
      best_offer: null,
    });
  });
});
