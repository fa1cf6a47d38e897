// A fill's `expires_at` is the market's expiry only while the market has not settled
// (docs/ENGINE.md "Fills and positions"): once settled it is null.

import { expect } from 'chai';
import { useWholeService } from './harness.ts';

describe('settled fills', () => {
  const suite = useWholeService();

  it('carry expires_at while the market is open, and null once it has settled', async () => {
    const bob = await suite.svc.member();
    const order = (action: string) => ({
      action,
      market_id: suite.marketId,
      order_type: 'limit',
      price: '0.40',
      quantity: '2',
    });
    expect((await suite.alice.call('POST', '/api/v1/orders', { body: order('buy') })).status).to.equal(200);
    expect((await bob.call('POST', '/api/v1/orders', { body: order('sell') })).status).to.equal(200);
    const open = (await suite.alice.call('GET', `/api/v1/fills?market_ids=${suite.marketId}`)).body.fills;
    expect(open).to.have.length(1);
    expect(open[0].expires_at).to.be.a('number');

    await suite.svc.admin('POST', `/markets/${suite.marketId}/status`, { status: 'closed' });
    await suite.svc.admin('POST', `/markets/${suite.marketId}/result`, { result: 'win' });
    for (const member of [suite.alice, bob]) {
      const fills = (await member.call('GET', `/api/v1/fills?market_ids=${suite.marketId}`)).body.fills;
      expect(fills.map((f: { status: string; expires_at: unknown }) => [f.status, f.expires_at])).to.deep.equal([
        ['settled', null],
      ]);
    }
  });
});
