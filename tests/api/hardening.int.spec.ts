// Hardening found from outside, through HTTP: hostile nesting, idempotency keys reused with
// another body, and the admin token's minimum length.

import { expect } from 'chai';
import http from 'node:http';
import { ConfigError, loadConfig } from '../../cli/config.ts';
import { JSON_NESTING_DEPTH_MAX } from '../../domain/text.ts';
import { signedHeaders, USER_AGENT, useWholeService } from './v1/harness.ts';

const DEEP = 10_000;
const deepBody = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** A raw request (fetch refuses a body on GET). */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${base}${path}`,
      {
        method,
        headers: {
          ...headers,
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

describe('hardening through HTTP', () => {
  const suite = useWholeService();

  const signed = (method: string, path: string) => ({
    'user-agent': USER_AGENT,
    ...signedHeaders(suite.alice.key, method, path, suite.svc.ctx.clock.nowUs() / 1000),
  });

  describe('deep nesting', () => {
    it(`a body nested ${DEEP} deep is 400 naming the bound, on the order routes and the admin API`, async () => {
      for (const body of [deepBody(DEEP), deepObject(DEEP)]) {
        const order = await raw(suite.svc.base, 'POST', '/api/v1/orders', signed('POST', '/api/v1/orders'), body);
        expect(order.status).to.equal(400);
        expect(order.body.error).to.equal(
          `body is nested too deeply (at most ${JSON_NESTING_DEPTH_MAX} levels of objects and arrays)`,
        );
        const batch = await raw(
          suite.svc.base,
          'DELETE',
          '/api/v1/orders/batched',
          signed('DELETE', '/api/v1/orders/batched'),
          body,
        );
        expect(batch.status).to.equal(400);
        const admin = await raw(
          suite.svc.adminUrl,
          'POST',
          '/admin/v1/accounts',
          { authorization: `Bearer ${suite.svc.adminToken}`, 'user-agent': USER_AGENT },
          body,
        );
        expect(admin.status).to.equal(400);
      }
    });

    it('a GET carrying a deep body is answered as if it had none (GET routes read no body)', async () => {
      const balance = await raw(
        suite.svc.base,
        'GET',
        '/api/v1/account/balance',
        signed('GET', '/api/v1/account/balance'),
        deepBody(DEEP),
      );
      expect(balance.status).to.equal(200);
      expect(balance.body.balance.account_id).to.equal(suite.alice.account_id);
      const admin = await raw(
        suite.svc.adminUrl,
        'GET',
        `/admin/v1/accounts/${suite.alice.account_id}`,
        { authorization: `Bearer ${suite.svc.adminToken}` },
        deepBody(DEEP),
      );
      expect(admin.status).to.equal(200);
    });

    it('an unauthenticated deep body is refused on its credentials, before it is read', async () => {
      const order = await raw(suite.svc.base, 'POST', '/api/v1/orders', { 'user-agent': USER_AGENT }, deepBody(DEEP));
      expect(order.status).to.equal(401);
      const admin = await raw(suite.svc.adminUrl, 'POST', '/admin/v1/accounts', {}, deepBody(DEEP));
      expect(admin.status).to.equal(401);
    });

    it('nesting within the bound is judged as usual', async () => {
      const body = {
        ...{ action: 'buy', market_id: suite.marketId, order_type: 'limit', price: '0.10', quantity: '1' },
        client_order_id: 'x',
      };
      const placed = await suite.alice.call('POST', '/api/v1/orders', { body });
      expect(placed.status).to.equal(200);
    });
  });

  describe('idempotency keys', () => {
    const order = (price: string) => ({
      action: 'buy',
      market_id: suite.marketId,
      order_type: 'limit',
      price,
      quantity: '1',
    });

    it('the same key with the same body replays the first answer and places nothing more', async () => {
      const first = await suite.alice.call('POST', '/api/v1/orders', {
        body: order('0.11'),
        headers: { 'Idempotency-Key': 'same-body-1' },
      });
      const again = await suite.alice.call('POST', '/api/v1/orders', {
        body: order('0.11'),
        headers: { 'Idempotency-Key': 'same-body-1' },
      });
      expect(first.status).to.equal(200);
      expect(again.status).to.equal(200);
      expect(again.headers['idempotent-replayed']).to.equal('true');
      expect(again.body.order.id).to.equal(first.body.order.id);
    });

    it('the same key with another body is 422, and places nothing', async () => {
      const first = await suite.alice.call('POST', '/api/v1/orders', {
        body: order('0.12'),
        headers: { 'Idempotency-Key': 'other-body-1' },
      });
      expect(first.status).to.equal(200);
      const other = await suite.alice.call('POST', '/api/v1/orders', {
        body: order('0.13'),
        headers: { 'Idempotency-Key': 'other-body-1' },
      });
      expect(other.status).to.equal(422);
      expect(other.body.error).to.equal('Idempotency-Key was already used for a different request');
      const open = await suite.alice.call(
        'GET',
        `/api/v1/orders?client_order_ids=&market_ids=${suite.marketId}&status=open`,
      );
      expect(open.body.orders.filter((o: { price: string }) => o.price === '0.13')).to.deep.equal([]);
    });

    it('a key older than its 24-hour retention may be used afresh', async () => {
      const first = await suite.alice.call('POST', '/api/v1/orders', {
        body: order('0.14'),
        headers: { 'Idempotency-Key': 'retention-1' },
      });
      await suite.svc.admin('POST', '/clock', { advance_ms: 24 * 3600 * 1000 + 1000 });
      const later = await suite.alice.call('POST', '/api/v1/orders', {
        body: order('0.15'),
        headers: { 'Idempotency-Key': 'retention-1' },
      });
      expect(later.status).to.equal(200);
      expect(later.body.order.id).to.not.equal(first.body.order.id);
    });
  });

  describe('resting orders cost nothing to hold', () => {
    const limit = (action: string, price: string, quantity: string) => ({
      action,
      market_id: suite.marketId,
      order_type: 'limit',
      price,
      quantity,
    });

    it('an order risking less than one cent is 422 (a buy risks quantity x price; a sell quantity x (max_price - price))', async () => {
      const tiny = await suite.alice.call('POST', '/api/v1/orders', { body: limit('buy', '0.01', '0.5') });
      expect(tiny.status).to.equal(422);
      expect(tiny.body.error).to.match(/^order risk must be at least 0\.01/);
      const tinySell = await suite.alice.call('POST', '/api/v1/orders', { body: limit('sell', '0.99', '0.9') });
      expect(tinySell.status).to.equal(422);
      expect((await suite.alice.call('POST', '/api/v1/orders', { body: limit('buy', '0.01', '1') })).status).to.equal(
        200,
      );
      expect((await suite.alice.call('POST', '/api/v1/orders', { body: limit('sell', '0.99', '1') })).status).to.equal(
        200,
      );
    });

    it('an account over max_live_orders_per_account is refused 422 with {error}, single and batched, until it cancels', async () => {
      const bob = await suite.svc.member();
      await suite.svc.admin('PATCH', '/settings', { max_live_orders_per_account: 2 });
      try {
        const first = await bob.call('POST', '/api/v1/orders', { body: limit('buy', '0.20', '1') });
        expect((await bob.call('POST', '/api/v1/orders', { body: limit('buy', '0.21', '1') })).status).to.equal(200);
        const third = await bob.call('POST', '/api/v1/orders', { body: limit('buy', '0.22', '1') });
        expect(third.status).to.equal(422);
        expect(Object.keys(third.body)).to.deep.equal(['error']);
        expect(third.body.error).to.equal(
          'This account already holds 2 live orders, the most allowed; cancel some before placing more',
        );
        const batch = await bob.call('POST', '/api/v1/orders/batched', {
          body: { orders: [limit('buy', '0.23', '1')] },
        });
        expect(batch.status).to.equal(200);
        expect(batch.body.results[0].errors[0].error).to.match(/^This account already holds 2 live orders/);
        await bob.call('DELETE', '/api/v1/orders/batched', { body: { orders: [{ order_id: first.body.order.id }] } });
        expect((await bob.call('POST', '/api/v1/orders', { body: limit('buy', '0.22', '1') })).status).to.equal(200);
      } finally {
        await suite.svc.admin('PATCH', '/settings', { max_live_orders_per_account: 10_000 });
      }
    });
  });

  describe('admin token', () => {
    it('an ADMIN_TOKEN shorter than 32 characters stops the service at start, naming the variable', () => {
      expect(() => loadConfig({ ADMIN_TOKEN: 'short-token' })).to.throw(
        ConfigError,
        /ADMIN_TOKEN.*at least 32 characters/,
      );
      expect(loadConfig({ ADMIN_TOKEN: 'x'.repeat(32) }).adminToken).to.equal('x'.repeat(32));
      expect(loadConfig({}).adminToken).to.equal(undefined); // generated under DATA_DIR at start
    });
  });
});
