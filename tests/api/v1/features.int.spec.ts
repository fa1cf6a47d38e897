// Idempotency-Key on the order writes, geofencing through the operator settings, and the
// OpenAPI document itself.

import { expect } from 'chai';
import { limitBuyOfOne, useWholeService, type Answer, type Member } from './harness.ts';
import { OpenApiChecker } from '../openapi/openapi.ts';

describe('order writes: idempotency and geofencing', () => {
  const suite = useWholeService();

  const order = (extra: Record<string, unknown> = {}) => limitBuyOfOne(suite.marketId, '0.15', extra);
  const ordersOf = async (who: Member) =>
    (await who.call('GET', '/api/v1/orders?limit=200')).body.orders as Array<{
      id: string;
      status: string;
      client_order_id: string | null;
    }>;

  describe('Idempotency-Key', () => {
    it('a retry of POST /orders gets the first answer and places nothing more', async () => {
      const headers = { 'Idempotency-Key': 'retry-1' };
      const first = await suite.alice.call('POST', '/api/v1/orders', {
        body: order({ client_order_id: 'idem-1' }),
        headers,
      });
      const second = await suite.alice.call('POST', '/api/v1/orders', {
        body: order({ client_order_id: 'idem-1' }),
        headers,
      });
      expect(first.status).to.equal(200);
      expect(second.status).to.equal(200);
      expect(second.body).to.deep.equal(first.body);
      expect((await ordersOf(suite.alice)).filter((o) => o.client_order_id === 'idem-1')).to.have.length(1);
    });

    it('concurrent duplicates place once and all get the same answer', async () => {
      const headers = { 'Idempotency-Key': 'race-1' };
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          suite.alice.call('POST', '/api/v1/orders/batched', {
            body: { orders: [order({ client_order_id: 'race' }), order({ client_order_id: 'race' })] },
            headers,
          }),
        ),
      );
      for (const answer of answers) {
        expect(answer.status).to.equal(200);
        expect(answer.body).to.deep.equal(answers[0]!.body);
      }
      expect((await ordersOf(suite.alice)).filter((o) => o.client_order_id === 'race')).to.have.length(2);
    });

    it('an error answer is replayed too', async () => {
      const headers = { 'Idempotency-Key': 'bad-1' };
      const first = await suite.alice.call('POST', '/api/v1/orders', { body: order({ price: 0.15 }), headers });
      const second = await suite.alice.call('POST', '/api/v1/orders', { body: order({ price: 0.15 }), headers });
      expect(first.status).to.equal(400);
      expect(second.status).to.equal(400);
      expect(second.body).to.deep.equal(first.body);
    });

    it('DELETE /orders/batched replays its first answer', async () => {
      const id = (await suite.alice.call('POST', '/api/v1/orders', { body: order() })).body.order.id;
      const headers = { 'Idempotency-Key': 'cancel-1' };
      const first = await suite.alice.call('DELETE', '/api/v1/orders/batched', {
        body: { orders: [{ order_id: id }] },
        headers,
      });
      const second = await suite.alice.call('DELETE', '/api/v1/orders/batched', {
        body: { orders: [{ order_id: id }] },
        headers,
      });
      expect(first.body.cancellations[0].status).to.equal('cancelled');
      expect(second.body).to.deep.equal(first.body);
    });

    it('keys are per account, and expire after 24 hours of the service clock', async () => {
      const bob = await suite.svc.member();
      const headers = { 'Idempotency-Key': 'shared-key' };
      const a = await suite.alice.call('POST', '/api/v1/orders', {
        body: order({ client_order_id: 'per-account' }),
        headers,
      });
      const b = await bob.call('POST', '/api/v1/orders', { body: order({ client_order_id: 'per-account' }), headers });
      expect(b.body.order.id).to.not.equal(a.body.order.id);
      await suite.svc.admin('POST', '/clock', { advance_ms: 24 * 3_600_000 + 1_000 });
      try {
        const later = await suite.alice.call('POST', '/api/v1/orders', {
          body: order({ client_order_id: 'per-account' }),
          headers,
        });
        expect(later.status).to.equal(200);
        expect(later.body.order.id).to.not.equal(a.body.order.id);
      } finally {
        await suite.svc.admin('POST', '/clock', { advance_ms: -(24 * 3_600_000 + 1_000) });
      }
    });

    it('a malformed key is 400', async () => {
      const answer = await suite.alice.call('POST', '/api/v1/orders', {
        body: order(),
        headers: { 'Idempotency-Key': 'x'.repeat(300) },
      });
      expect(answer.status).to.equal(400);
    });
  });

  describe('geofencing (settings.geofencing)', () => {
    const enforce = (patch: Record<string, unknown>) =>
      suite.svc.admin('PATCH', '/settings', {
        geofencing: {
          enforced: true,
          allowed_codes: ['US-NJ', 'CA-ON'],
          accept_network_location: false,
          blocked_networks: [],
          ...patch,
        },
      });
    afterEach(async () => {
      await suite.svc.admin('PATCH', '/settings', {
        geofencing: { enforced: false, allowed_codes: [], accept_network_location: false, blocked_networks: [] },
      });
    });

    it('is off by default: geo_location is ignored', async () => {
      expect(
        (await suite.alice.call('POST', '/api/v1/orders', { body: order({ geo_location: 'nowhere' }) })).status,
      ).to.equal(200);
    });

    it('enforced: omission is 422 `Placing Order(s) from this IP address...`, a good code passes, a bad one is 422; nothing placed on refusal', async () => {
      await enforce({});
      const before = (await ordersOf(suite.alice)).length;
      for (const body of [order(), order({ geo_location: null })]) {
        const answer = await suite.alice.call('POST', '/api/v1/orders', { body });
        expect(answer.status).to.equal(422);
        expect(answer.body.error.startsWith('Placing Order(s) from this IP address')).to.equal(true);
      }
      expect(
        (await suite.alice.call('POST', '/api/v1/orders', { body: order({ geo_location: 'XX-00' }) })).status,
      ).to.equal(422);
      expect((await ordersOf(suite.alice)).length).to.equal(before);
      expect(
        (await suite.alice.call('POST', '/api/v1/orders', { body: order({ geo_location: 'US-NJ' }) })).status,
      ).to.equal(200);
    });

    it('a batch is checked once with its own geo_location; codes inside legs are ignored', async () => {
      await enforce({});
      const legsOnly = await suite.alice.call('POST', '/api/v1/orders/batched', {
        body: { orders: [order({ geo_location: 'US-NJ' })] },
      });
      expect(legsOnly.status).to.equal(422);
      const good = await suite.alice.call('POST', '/api/v1/orders/batched', {
        body: { geo_location: 'CA-ON', orders: [order({ geo_location: 'bogus' }), order()] },
      });
      expect(good.status).to.equal(200);
      expect(good.body.results.every((r: { order?: unknown }) => r.order)).to.equal(true);
      const bad = await suite.alice.call('POST', '/api/v1/orders/batched', {
        body: { geo_location: 'XX', orders: [order()] },
      });
      expect(bad.status).to.equal(422);
    });

    it('network location: accepted unless the address is in a blocked range; a bad code is still 422', async () => {
      await enforce({ accept_network_location: true, blocked_networks: ['10.0.0.0/8'] });
      expect((await suite.alice.call('POST', '/api/v1/orders', { body: order() })).status).to.equal(200);
      expect(
        (await suite.alice.call('POST', '/api/v1/orders', { body: order({ geo_location: 'XX' }) })).status,
      ).to.equal(422);
      await enforce({ accept_network_location: true, blocked_networks: ['127.0.0.0/8', '::1/128'] });
      const blocked = await suite.alice.call('POST', '/api/v1/orders', { body: order() });
      expect(blocked.status).to.equal(422);
      expect(blocked.body.error.startsWith('Placing Order(s) from this IP address')).to.equal(true);
    });

    it('cancellation follows the same rules', async () => {
      const id = (await suite.alice.call('POST', '/api/v1/orders', { body: order() })).body.order.id;
      await enforce({});
      expect(
        (await suite.alice.call('DELETE', '/api/v1/orders/batched', { body: { orders: [{ order_id: id }] } })).status,
      ).to.equal(422);
      const ok = await suite.alice.call('DELETE', '/api/v1/orders/batched', {
        body: { geo_location: 'US-NJ', orders: [{ order_id: id }] },
      });
      expect(ok.body.cancellations[0].status).to.equal('cancelled');
    });
  });

  describe('GET /api/v1/openapi.json', () => {
    let doc: Record<string, any>;
    before(async () => {
      const answer: Answer = await suite.alice.call('GET', '/api/v1/openapi.json');
      expect(answer.status).to.equal(200);
      doc = answer.body;
    });

    it('is OpenAPI 3.1 and documents every trading route and the member routes', () => {
      expect(doc.openapi).to.equal('3.1.0');
      const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item as object).map((m) => `${m.toUpperCase()} ${path}`),
      );
      for (const op of [
        'POST /api/v1/orders',
        'POST /api/v1/orders/batched',
        'DELETE /api/v1/orders/batched',
        'GET /api/v1/orders',
        'GET /api/v1/orders/{order_id}',
        'GET /api/v1/markets',
        'GET /api/v1/fills',
        'GET /api/v1/positions',
        'GET /api/v1/account/balance',
        'GET /api/v1/me',
        'PATCH /api/v1/me/profile',
        'GET /api/v1/leaderboard',
      ]) {
        expect(operations, op).to.include(op);
      }
      expect(operations).to.not.include('GET /api/v1/trades');
    });

    it('is public (documentation: no credentials), every operation has an operationId, and /docs renders it from bundled files', async () => {
      const anonymous = await fetch(`${suite.svc.base}/api/v1/openapi.json`, {
        headers: { 'user-agent': 'docs-reader' },
      });
      expect(anonymous.status).to.equal(200);
      expect(((await anonymous.json()) as { openapi: string }).openapi).to.equal('3.1.0');
      const ids: string[] = [];
      for (const [path, item] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(item as Record<string, { operationId?: string }>)) {
          expect(operation.operationId, `${method} ${path}`).to.be.a('string');
          ids.push(operation.operationId as string);
        }
      }
      expect(new Set(ids).size).to.equal(ids.length);
      const page = await fetch(`${suite.svc.base}/docs`);
      expect(page.status).to.equal(200);
      const html = await page.text();
      expect(html).to.not.match(/https?:\/\//); // nothing from a CDN
      for (const asset of [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string)) {
        expect((await fetch(`${suite.svc.base}${asset}`)).status, asset).to.equal(200);
      }
      expect(await (await fetch(`${suite.svc.base}/docs/init.js`)).text()).to.include('/api/v1/openapi.json');
    });

    it('its schemas compile and describe the request bodies the service validates with', () => {
      const checker = new OpenApiChecker(doc);
      expect(() => checker.check('GET', '/api/v1/account/balance', 401, { error: 'Unauthorized' })).to.not.throw();
      expect(doc.components.schemas.PlaceOrderBody.properties.price.type).to.deep.equal(['string', 'null']);
      expect(doc.paths['/api/v1/orders'].post.parameters.map((p: { name: string }) => p.name)).to.include(
        'Idempotency-Key',
      );
    });
  });
});
