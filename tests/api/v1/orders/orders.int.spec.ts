// POST /orders, POST /orders/batched, DELETE /orders/batched, GET /orders and
// GET /orders/{order_id} over HTTP; every answer is checked against the OpenAPI document.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { useWholeService, type Answer, type Member } from '../harness.ts';

describe('orders (/api/v1)', () => {
  const suite = useWholeService(['alice', 'bob']);

  const limitBuy = (extra: Record<string, unknown> = {}) => ({
    action: 'buy',
    market_id: suite.marketId,
    order_type: 'limit',
    price: '0.20',
    quantity: '2',
    ...extra,
  });
  async function send(
    who: Member,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Answer> {
    const answer = await who.call(method, path, { body, headers });
    suite.openapi.check(method, path, answer.status, answer.body);
    return answer;
  }
  const countOrders = async (who: Member) => {
    let total = 0;
    let cursor: string | null = null;
    do {
      const page: Answer = await who.call('GET', `/api/v1/orders?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
      total += page.body.orders.length;
      cursor = page.body.cursor;
    } while (cursor);
    return total;
  };

  describe('POST /orders', () => {
    it('places a limit order and answers the order as the engine left it', async () => {
      const answer = await send(
        suite.alice,
        'POST',
        '/api/v1/orders',
        limitBuy({ client_order_id: 'my ref #1', device_id: 'device-7', price: '0.2100', quantity: '3.0000000004' }),
      );
      expect(answer.status, answer.text).to.equal(200);
      const order = answer.body.order;
      expect(order).to.include({
        market_id: suite.marketId,
        action: 'buy',
        order_type: 'limit',
        status: 'open',
        price: '0.21',
        client_order_id: 'my ref #1',
        device_id: 'device-7',
        ip_address: '127.0.0.1',
      });
      expect(order.quantity).to.equal('3');
      expect(order.filled).to.equal('0');
      expect(order.amount).to.equal(null);
      expect(order.odds_type).to.equal(null);
      expect(order.inserted_at).to.be.a('number');
      const fetched = await send(suite.alice, 'GET', `/api/v1/orders/${order.id}`);
      expect(fetched.body.order.id).to.equal(order.id);
    });

    const malformed: Array<[string, () => Record<string, unknown>, RegExp]> = [
      ['price as a JSON number', () => limitBuy({ price: 0.2 }), /^price /],
      ['a sub-cent price', () => limitBuy({ price: '0.001' }), /^price /],
      ['a limit order without price', () => limitBuy({ price: null }), /^price /],
      ['a sub-cent price on a market order', () => limitBuy({ order_type: 'market', price: '0.005' }), /^price /],
      ['quantity as a JSON number', () => limitBuy({ quantity: 2 }), /^quantity /],
      ['a zero quantity', () => limitBuy({ quantity: '0' }), /^quantity /],
      ['a missing action', () => limitBuy({ action: undefined }), /^action is required$/],
      ['good_till_time without expiration_time', () => limitBuy({ expiration: 'good_till_time' }), /^expiration_time /],
      ['a market_id that is not a UUID', () => limitBuy({ market_id: 'abc' }), /^market_id /],
    ];
    for (const [what, body, error] of malformed) {
      it(`400 for ${what}, and nothing is placed`, async () => {
        const before = await countOrders(suite.alice);
        const answer = await send(suite.alice, 'POST', '/api/v1/orders', JSON.parse(JSON.stringify(body())));
        expect(answer.status, answer.text).to.equal(400);
        expect(answer.body.error).to.match(error);
        expect(await countOrders(suite.alice)).to.equal(before);
      });
    }

    it('400 for malformed JSON and for a body that is not an object', async () => {
      expect((await suite.alice.call('POST', '/api/v1/orders', { body: '{"action":' })).status).to.equal(400);
      expect((await suite.alice.call('POST', '/api/v1/orders', { body: '[1,2]' })).status).to.equal(400);
    });

    it('422 when the engine refuses: price at or above max_price, insufficient funds, unknown market', async () => {
      const atMax = await send(suite.alice, 'POST', '/api/v1/orders', limitBuy({ price: '1.00' }));
      expect(atMax.status).to.equal(422);
      expect(atMax.body.error).to.be.a('string').and.not.equal('');
      const broke = await suite.svc.member('0');
      const poor = await broke.call('POST', '/api/v1/orders', { body: limitBuy({ quantity: '1000' }) });
      expect(poor.status).to.equal(422);
      expect(poor.body.error).to.be.a('string');
      const unknown = await send(suite.alice, 'POST', '/api/v1/orders', limitBuy({ market_id: randomUUID() }));
      expect(unknown.status).to.equal(422);
    });

    it('422 for a market order whose (unused) price is at or above max_price, alone or as a batch leg; nothing placed', async () => {
      const before = await countOrders(suite.alice);
      for (const price of ['1.00', '5.00']) {
        const answer = await send(
          suite.alice,
          'POST',
          '/api/v1/orders',
          limitBuy({ order_type: 'market', action: 'sell', price }),
        );
        expect(answer.status, answer.text).to.equal(422);
        expect(answer.body).to.deep.equal({ error: "price must be less than the market's max_price (1.00)" });
      }
      const batch = await send(suite.alice, 'POST', '/api/v1/orders/batched', {
        orders: [limitBuy({ order_type: 'market', action: 'sell', price: '1.00' })],
      });
      expect(batch.status, batch.text).to.equal(200);
      expect(batch.body.results[0].errors).to.deep.equal([
        { error: "price must be less than the market's max_price (1.00)" },
      ]);
      expect(await countOrders(suite.alice)).to.equal(before);
    });

    it('a good_till_time order keeps its expiration_time', async () => {
      const expiration = suite.svc.ctx.clock.nowUs() + 3_600_000_000;
      const answer = await send(
        suite.alice,
        'POST',
        '/api/v1/orders',
        limitBuy({ expiration: 'good_till_time', expiration_time: expiration }),
      );
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body.order).to.include({ expiration: 'good_till_time', expiration_time: expiration });
    });
  });

  describe('POST /orders/batched', () => {
    it('places every leg in request order; a leg refused on its own does not fail the others', async () => {
      const answer = await send(suite.alice, 'POST', '/api/v1/orders/batched', {
        orders: [
          limitBuy({ client_order_id: 'leg-0' }),
          limitBuy({ price: '1.50', client_order_id: 'leg-1' }),
          limitBuy({ client_order_id: 'leg-2', geo_location: 'ignored' }),
        ],
      });
      expect(answer.status, answer.text).to.equal(200);
      const [first, second, third] = answer.body.results;
      expect(first.order.client_order_id).to.equal('leg-0');
      expect(second).to.not.have.property('order');
      expect(second.errors[0].error).to.be.a('string');
      expect(third.order.client_order_id).to.equal('leg-2');
    });

    it('400 and nothing placed for a bad leg anywhere, an empty list, a missing list or too many legs', async () => {
      const before = await countOrders(suite.alice);
      const bad = await send(suite.alice, 'POST', '/api/v1/orders/batched', {
        orders: [limitBuy(), limitBuy({ price: 0.3 })],
      });
      expect(bad.status).to.equal(400);
      expect(bad.body.error).to.match(/^orders\[1\]\.price/);
      expect((await send(suite.alice, 'POST', '/api/v1/orders/batched', { orders: [] })).status).to.equal(400);
      expect((await send(suite.alice, 'POST', '/api/v1/orders/batched', {})).status).to.equal(400);
      expect((await send(suite.alice, 'POST', '/api/v1/orders/batched', { orders: limitBuy() })).status).to.equal(400);
      await suite.svc.admin('PATCH', '/settings', { batch_limit: 2 });
      try {
        const over = await send(suite.alice, 'POST', '/api/v1/orders/batched', {
          orders: [limitBuy(), limitBuy(), limitBuy()],
        });
        expect(over.status).to.equal(400);
        expect(
          (await send(suite.alice, 'POST', '/api/v1/orders/batched', { orders: [limitBuy(), limitBuy()] })).status,
        ).to.equal(200);
      } finally {
        await suite.svc.admin('PATCH', '/settings', { batch_limit: 100 });
      }
      expect(await countOrders(suite.alice)).to.equal(before + 2);
    });

    it('accepts the default limit of 100 orders and refuses 101', async () => {
      const hundred = await send(suite.alice, 'POST', '/api/v1/orders/batched', {
        orders: Array.from({ length: 100 }, () => limitBuy({ price: '0.01', quantity: '1' })),
      });
      expect(hundred.status).to.equal(200);
      expect(hundred.body.results).to.have.length(100);
      const more = await send(suite.alice, 'POST', '/api/v1/orders/batched', {
        orders: Array.from({ length: 101 }, () => limitBuy({ price: '0.01', quantity: '1' })),
      });
      expect(more.status).to.equal(400);
    });
  });

  describe('DELETE /orders/batched', () => {
    it("cancels own orders; unknown ids and other accounts' orders are `Order not found`", async () => {
      const mine = (await send(suite.alice, 'POST', '/api/v1/orders', limitBuy())).body.order.id;
      const theirs = (await send(suite.bob, 'POST', '/api/v1/orders', limitBuy())).body.order.id;
      const unknown = randomUUID();
      const answer = await send(suite.alice, 'DELETE', '/api/v1/orders/batched', {
        orders: [{ order_id: mine }, { order_id: theirs }, { order_id: unknown }],
      });
      expect(answer.status, answer.text).to.equal(200);
      expect(answer.body.cancellations).to.deep.equal([
        { order_id: mine, status: 'cancelled' },
        { order_id: theirs, status: 'Order not found' },
        { order_id: unknown, status: 'Order not found' },
      ]);
      expect((await suite.bob.call('GET', `/api/v1/orders/${theirs}`)).body.order.status).to.equal('open');
      expect((await suite.alice.call('GET', `/api/v1/orders/${mine}`)).body.order.status).to.equal('cancelled');
    });

    it('a flat order_ids list is 400 `orders is required`; bare id strings are 400', async () => {
      const id = randomUUID();
      const flat = await send(suite.alice, 'DELETE', '/api/v1/orders/batched', { order_ids: [id] });
      expect(flat.status).to.equal(400);
      expect(flat.body.error).to.equal('orders is required');
      expect((await send(suite.alice, 'DELETE', '/api/v1/orders/batched', { orders: [id] })).status).to.equal(400);
      expect(
        (await send(suite.alice, 'DELETE', '/api/v1/orders/batched', { orders: [{ order_id: 'x' }] })).status,
      ).to.equal(400);
    });

    it('cancelling twice reports why the second time', async () => {
      const id = (await send(suite.alice, 'POST', '/api/v1/orders', limitBuy())).body.order.id;
      await send(suite.alice, 'DELETE', '/api/v1/orders/batched', { orders: [{ order_id: id }] });
      const again = await send(suite.alice, 'DELETE', '/api/v1/orders/batched', { orders: [{ order_id: id }] });
      expect(again.status).to.equal(200);
      expect(again.body.cancellations[0].order_id).to.equal(id);
      expect(again.body.cancellations[0].status).to.be.a('string');
    });
  });

  describe('GET /orders and /orders/{order_id}', () => {
    let carol: Member;
    let otherMarket: string;
    const placed: Array<{ id: string; client_order_id: string }> = [];
    before(async () => {
      carol = await suite.svc.member();
      otherMarket = (await suite.svc.market({ title: 'Other market' })).market_id;
      for (let i = 0; i < 7; i++) {
        const body = limitBuy({ client_order_id: `c${i}`, market_id: i % 2 === 0 ? suite.marketId : otherMarket });
        const order = (await carol.call('POST', '/api/v1/orders', { body })).body.order;
        placed.push({ id: order.id, client_order_id: order.client_order_id });
      }
      await carol.call('DELETE', '/api/v1/orders/batched', { body: { orders: [{ order_id: placed[1]!.id }] } });
    });

    it("lists the account's orders most recent first", async () => {
      const answer = await send(carol, 'GET', '/api/v1/orders');
      expect(answer.body.cursor).to.equal(null);
      expect(answer.body.orders.map((o: { id: string }) => o.id)).to.deep.equal(placed.map((p) => p.id).reverse());
    });

    it('filters by order_ids, client_order_ids, market_ids and a status list', async () => {
      const ids = (answer: Answer) => answer.body.orders.map((o: { id: string }) => o.id).sort();
      const byIds = await send(carol, 'GET', `/api/v1/orders?order_ids=${placed[0]!.id},${placed[3]!.id}`);
      expect(ids(byIds)).to.deep.equal([placed[0]!.id, placed[3]!.id].sort());
      const byClient = await send(carol, 'GET', '/api/v1/orders?client_order_ids=c2,c4');
      expect(ids(byClient)).to.deep.equal([placed[2]!.id, placed[4]!.id].sort());
      const padded = await send(carol, 'GET', '/api/v1/orders?client_order_ids=%20c2');
      expect(padded.body.orders, 'client order ids match exactly as sent, spaces included').to.deep.equal([]);
      const byMarket = await send(carol, 'GET', `/api/v1/orders?market_ids=${otherMarket}`);
      expect(ids(byMarket)).to.deep.equal([1, 3, 5].map((i) => placed[i]!.id).sort());
      const cancelled = await send(carol, 'GET', '/api/v1/orders?status=cancelled');
      expect(ids(cancelled)).to.deep.equal([placed[1]!.id]);
      const both = await send(carol, 'GET', '/api/v1/orders?status=open,cancelled');
      expect(both.body.orders).to.have.length(7);
      const combined = await send(carol, 'GET', `/api/v1/orders?status=open&market_ids=${otherMarket}`);
      expect(ids(combined)).to.deep.equal([3, 5].map((i) => placed[i]!.id).sort());
    });

    it('400 for an unknown or uppercase status and for malformed ids or limit', async () => {
      for (const query of [
        'status=working',
        'status=OPEN',
        'status=open,bogus',
        'order_ids=abc',
        'market_ids=1,2',
        'limit=ten',
        'cursor=%%%',
      ]) {
        const answer = await send(carol, 'GET', `/api/v1/orders?${query}`);
        expect(answer.status, query).to.equal(400);
      }
    });

    it('pages with opaque cursors: limit clamps silently, no duplicates or skips while orders are inserted', async () => {
      expect((await send(carol, 'GET', '/api/v1/orders?limit=5000')).status).to.equal(200);
      const seen: string[] = [];
      let page = await send(carol, 'GET', '/api/v1/orders?limit=2');
      seen.push(...page.body.orders.map((o: { id: string }) => o.id));
      await carol.call('POST', '/api/v1/orders', { body: limitBuy({ client_order_id: 'late' }) });
      while (page.body.cursor) {
        page = await send(carol, 'GET', `/api/v1/orders?limit=2&cursor=${encodeURIComponent(page.body.cursor)}`);
        seen.push(...page.body.orders.map((o: { id: string }) => o.id));
      }
      expect(seen).to.deep.equal(placed.map((p) => p.id).reverse());
    });

    it('a forged cursor is at worst 400 `cursor is invalid` on every list, never a 500', async () => {
      const forge = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');
      const cursors = [
        forge(['9999999999999999999', 1]),
        forge([1, 99999999999]),
        forge(['1', 'x']),
        forge([9, '9999999999999999999', 'x']),
        forge(['1e999', 'x']),
        'not-a-cursor',
      ];
      const overflow = await send(carol, 'GET', `/api/v1/orders?cursor=${cursors[0]}`);
      expect(overflow.status).to.equal(400);
      for (const cursor of cursors) {
        for (const list of [
          '/api/v1/orders',
          '/api/v1/fills',
          '/api/v1/positions',
          '/api/v1/markets',
          '/api/v1/markets?sort_by[name]=event_start',
        ]) {
          const answer = await send(carol, 'GET', `${list}${list.includes('?') ? '&' : '?'}cursor=${cursor}`);
          expect([200, 400], `${list} ${cursor}`).to.include(answer.status);
          if (answer.status === 400) expect(answer.body.error).to.equal('cursor is invalid');
        }
      }
    });

    it("one order by id; another account's order is 404, never 403; a malformed id is 400", async () => {
      const own = await send(carol, 'GET', `/api/v1/orders/${placed[0]!.id}`);
      expect(own.body.order.id).to.equal(placed[0]!.id);
      const foreign = await send(suite.alice, 'GET', `/api/v1/orders/${placed[0]!.id}`);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error).to.equal('No such record on this account');
      expect((await send(suite.alice, 'GET', `/api/v1/orders/${randomUUID()}`)).status).to.equal(404);
      expect((await send(suite.alice, 'GET', '/api/v1/orders/not-a-uuid')).status).to.equal(400);
    });
  });
});
