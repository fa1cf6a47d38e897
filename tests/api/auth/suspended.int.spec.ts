// An account that is not active gets 403 on API calls, writes as reads, also right after
// the operator changed its status (the answer to PATCH /admin/v1/accounts/{id} means the change
// is in force on /api/v1). Real HTTP, the calls sent together the moment the change is answered.

import { expect } from 'chai';
import { USER_AGENT, useWholeService, type Member } from '../v1/harness.ts';

const ROUNDS = 10;

describe('an account suspended a moment ago', () => {
  const suite = useWholeService();

  const order = (price = '0.10') => ({
    action: 'buy',
    market_id: suite.marketId,
    order_type: 'limit',
    price,
    quantity: '1',
  });

  it('gets 403 naming its status on every /api/v1 call, writes as reads, with a key or a session', async () => {
    for (let round = 0; round < ROUNDS; round += 1) {
      const member: Member = await suite.svc.member();
      const resting = await member.call('POST', '/api/v1/orders', { body: order() });
      expect(resting.status, resting.text).to.equal(200);
      const orderId: string = resting.body.order.id;

      await suite.svc.admin('PATCH', `/accounts/${member.account_id}`, { status: 'suspended' });
      const answers = await Promise.all([
        member.call('POST', '/api/v1/orders', { body: order('0.11') }),
        member.call('POST', '/api/v1/orders/batched', { body: { orders: [order('0.12'), order('0.13')] } }),
        member.call('DELETE', '/api/v1/orders/batched', { body: { orders: [{ order_id: orderId }] } }),
        member.call('GET', '/api/v1/account/balance'),
        member.call('GET', `/api/v1/orders/${orderId}`),
        member.call('POST', '/api/v1/orders', { key: null, bearer: member.session, body: order('0.14') }),
        member.call('GET', '/api/v1/me', { key: null, bearer: member.session, headers: { 'user-agent': USER_AGENT } }),
      ]);
      for (const answer of answers) {
        expect(answer.status, `round ${round}: ${answer.text}`).to.equal(403);
        expect(answer.body).to.deep.equal({ error: 'Account is suspended' });
      }
      // nothing was placed or cancelled
      await suite.svc.admin('PATCH', `/accounts/${member.account_id}`, { status: 'active' });
      const after = await member.call('GET', `/api/v1/orders/${orderId}`);
      expect(after.status, after.text).to.equal(200);
      expect(after.body.order.status).to.equal('open');
      const orders = await member.call('GET', '/api/v1/orders');
      expect(orders.body.orders.map((o: { id: string }) => o.id)).to.deep.equal([orderId]);
    }
  });
});
