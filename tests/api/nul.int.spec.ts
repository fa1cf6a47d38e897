// NUL characters (U+0000) in any request field: PostgreSQL text cannot hold them, so every route
// answers 400 naming the field, nothing is placed, and the read models go on working for everyone
// (a journaled NUL used to stop every projection transaction that wrote it).

import { expect } from 'chai';
import { limitBuyOfOne, useWholeService } from './v1/harness.ts';

describe('NUL characters in requests', () => {
  const suite = useWholeService();

  const buy = (extra: Record<string, unknown> = {}) => limitBuyOfOne(suite.marketId, '0.20', extra);
  const orderCount = async () =>
    (await suite.alice.call('GET', '/api/v1/orders?limit=200')).body.orders.length as number;

  it('refuses a NUL in an order field with a 400 naming it, and places nothing', async () => {
    const before = await orderCount();
    const cases: Array<[string, unknown, string]> = [
      ['/api/v1/orders', buy({ client_order_id: 'ref\u0000x' }), 'client_order_id must not contain NUL characters'],
      ['/api/v1/orders', buy({ device_id: '\u0000' }), 'device_id must not contain NUL characters'],
      [
        '/api/v1/orders/batched',
        { orders: [buy(), buy({ client_order_id: 'a\u0000' })] },
        'orders[1].client_order_id must not contain NUL characters',
      ],
    ];
    for (const [path, body, error] of cases) {
      const answer = await suite.alice.call('POST', path, { body });
      expect(answer.status, answer.text).to.equal(400);
      expect(answer.body).to.deep.equal({ error });
    }
    expect(await orderCount()).to.equal(before);
  });

  it('refuses a NUL in a query parameter or the path with a 400 instead of a 500', async () => {
    for (const [path, error] of [
      ['/api/v1/markets?sports=%00', 'sports must not contain NUL characters'],
      ['/api/v1/markets?competitions=a%00b', 'competitions must not contain NUL characters'],
      ['/api/v1/orders?client_order_ids=%00', 'client_order_ids must not contain NUL characters'],
      ['/api/v1/account/market_stats?sports=%00', 'sports must not contain NUL characters'],
      ['/api/v1/orders/%00', 'path must not contain NUL characters'],
    ] as const) {
      const answer = await suite.alice.call('GET', path);
      expect(answer.status, `${path}: ${answer.text}`).to.equal(400);
      expect(answer.body).to.deep.equal({ error });
    }
  });

  it('refuses a NUL in an operator request', async () => {
    const created = await suite.svc.adminRaw('POST', '/accounts', { first_name: 'Nul\u0000', last_name: 'Trader' });
    expect(created.status, created.text).to.equal(400);
    expect(created.body).to.deep.equal({ error: 'first_name must not contain NUL characters' });
    const listed = await suite.svc.adminRaw('GET', '/accounts?cursor=%00');
    expect(listed.status, listed.text).to.equal(400);
  });

  it('keeps the read models working: an order placed afterwards is readable at once', async () => {
    const placed = await suite.alice.call('POST', '/api/v1/orders', { body: buy({ client_order_id: 'after' }) });
    expect(placed.status, placed.text).to.equal(200);
    const fetched = await suite.alice.call('GET', `/api/v1/orders/${placed.body.order.id}`);
    expect(fetched.status, fetched.text).to.equal(200);
    expect(fetched.body.order.client_order_id).to.equal('after');
  });
});
