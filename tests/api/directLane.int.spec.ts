// The direct lane (api/directLane.ts) answers the order-entry routes without express; express still
// answers every other spelling of those paths. Both must answer alike, errors included.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createLane, laneServerOptions, type LaneHandler } from '../../api/directLane.ts';
import { errorHandler, HttpError } from '../../api/errors.ts';
import { limitBuyOfOne, useWholeService, type Answer } from './v1/harness.ts';

describe('direct lane for order entry', () => {
  describe('over the whole service', () => {
    const suite = useWholeService();

    // Express routes are not strict about a trailing slash: `/orders/` reaches the same route
    // through express, `/orders` through the lane.
    const both = async (
      method: string,
      path: string,
      body: unknown,
      headers?: Record<string, string>,
    ): Promise<[Answer, Answer]> => [
      await suite.alice.call(method, path, { body, headers }),
      await suite.alice.call(method, `${path}/`, { body, headers }),
    ];

    const sameShape = ([lane, viaExpress]: [Answer, Answer]) => {
      expect(lane.status, lane.text).to.equal(viaExpress.status);
      expect(lane.headers['content-type']).to.equal(viaExpress.headers['content-type']);
      expect(lane.headers['x-request-id']).to.be.a('string');
      expect(viaExpress.headers['x-request-id']).to.be.a('string');
      expect(Number(lane.headers['content-length'])).to.equal(Buffer.byteLength(lane.text));
    };

    it('places an order either way, with the same answer', async () => {
      const body = limitBuyOfOne(suite.marketId, '0.10', { client_order_id: 'lane' });
      const answers = await both('POST', '/api/v1/orders', body);
      sameShape(answers);
      expect(answers[0].status).to.equal(200);
      const strip = (order: Record<string, unknown>) => ({
        ...order,
        id: null,
        inserted_at: null,
        time: null,
        seq: null,
        accepted_at: null,
      });
      expect(strip(answers[0].body.order)).to.deep.equal(strip(answers[1].body.order));
    });

    it('refuses alike: validation 400, engine 422, read-only key 403, bad signature 401, malformed JSON 400', async () => {
      const bad = await both('POST', '/api/v1/orders', limitBuyOfOne(suite.marketId, '0.10', { action: 'hold' }));
      sameShape(bad);
      expect(bad[0].status).to.equal(400);
      expect(bad[0].body).to.deep.equal(bad[1].body);

      const refused = await both('POST', '/api/v1/orders', limitBuyOfOne(suite.marketId, '1.00'));
      sameShape(refused);
      expect(refused[0].status).to.equal(422);
      expect(refused[0].body).to.deep.equal(refused[1].body);

      const readOnly = [
        await suite.alice.call('POST', '/api/v1/orders', { body: {}, key: suite.alice.readOnlyKey }),
        await suite.alice.call('POST', '/api/v1/orders/', { body: {}, key: suite.alice.readOnlyKey }),
      ] as [Answer, Answer];
      sameShape(readOnly);
      expect(readOnly[0].status).to.equal(403);
      expect(readOnly[0].body).to.deep.equal(readOnly[1].body);

      const unsigned = [
        await suite.alice.call('DELETE', '/api/v1/orders/batched', { body: { orders: [] }, key: null }),
        await suite.alice.call('DELETE', '/api/v1/orders/batched/', { body: { orders: [] }, key: null }),
      ] as [Answer, Answer];
      expect(unsigned[0].status).to.equal(401);
      expect(unsigned[0].body).to.deep.equal(unsigned[1].body);

      const malformed = await both('POST', '/api/v1/orders/batched', undefined, { 'content-type': 'application/json' });
      expect(malformed[0].status).to.equal(malformed[1].status);
    });

    it('replays an Idempotency-Key, and keeps the key bound to its path', async () => {
      const body = {
        orders: [limitBuyOfOne(suite.marketId, '0.11')],
      };
      const headers = { 'Idempotency-Key': `lane-${Date.now()}` };
      const first = await suite.alice.call('POST', '/api/v1/orders/batched', { body, headers });
      const again = await suite.alice.call('POST', '/api/v1/orders/batched', { body, headers });
      expect(first.status).to.equal(200);
      expect(again.headers['idempotent-replayed']).to.equal('true');
      expect(again.body).to.deep.equal(first.body);
      // the fingerprint is the method and the path as sent, through either path
      const elsewhere = await suite.alice.call('POST', '/api/v1/orders/batched/', { body, headers });
      expect(elsewhere.status).to.equal(422);
      expect(elsewhere.body.error).to.equal('Idempotency-Key was already used for a different request');
    });
  });

  describe('routing and failure handling', () => {
    let server: http.Server;
    let base: string;
    const seen: string[] = [];

    before(async () => {
      const answer: LaneHandler = (req, res) => {
        seen.push(`${req.method} ${req.originalUrl} ${req.path}`);
        res.status(201).set({ 'X-Lane': 'yes' }).json({ ok: true });
      };
      const lane = createLane(
        [
          { method: 'post', path: '/v/things', routerPath: '/things', chain: [answer] },
          {
            method: 'post',
            path: '/v/throws',
            routerPath: '/throws',
            chain: [
              () => {
                throw new HttpError(418, 'thrown');
              },
            ],
          },
          {
            method: 'post',
            path: '/v/rejects',
            routerPath: '/rejects',
            chain: [
              async () => {
                throw new HttpError(409, 'rejected');
              },
            ],
          },
          {
            method: 'post',
            path: '/v/passes',
            routerPath: '/passes',
            chain: [(_req, _res, next) => next(new HttpError(422, 'passed'))],
          },
          {
            method: 'post',
            path: '/v/chained',
            routerPath: '/chained',
            chain: [
              (req, _res, next) => {
                req.body = 'first';
                next();
              },
              (req, res) => res.json({ body: req.body }),
            ],
          },
          { method: 'post', path: '/v/passes-on', routerPath: '/passes-on', chain: [(_req, _res, next) => next()] },
          {
            method: 'post',
            path: '/v/late',
            routerPath: '/late',
            chain: [
              (_req, res) => {
                res.json({ sent: true });
                throw new Error('after the answer');
              },
            ],
          },
        ],
        errorHandler,
      );
      server = http.createServer(laneServerOptions, (req, res) => {
        if (!lane(req, res)) res.writeHead(299).end('not the lane');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(async () => {
      await new Promise((resolve) => server.close(resolve));
    });

    const post = async (path: string) => {
      const response = await fetch(`${base}${path}`, {
        method: 'POST',
        body: '{}',
        headers: { 'content-type': 'application/json' },
      });
      return { status: response.status, text: await response.text(), lane: response.headers.get('x-lane') };
    };

    it('takes only the exact method and path, query string aside', async () => {
      expect(await post('/v/things?x=1')).to.deep.equal({ status: 201, text: '{"ok":true}', lane: 'yes' });
      expect(seen).to.deep.equal(['POST /v/things?x=1 /things']);
      for (const other of ['/v/things/', '/V/things', '/v/thing', '/v/%74hings', '/v/things/x']) {
        expect((await post(other)).status, other).to.equal(299);
      }
      const get = await fetch(`${base}/v/things`);
      expect(get.status).to.equal(299);
    });

    it('sends a throw, a rejection and next(err) to the error handler once', async () => {
      expect(await post('/v/throws')).to.include({ status: 418, text: '{"error":"thrown"}' });
      expect(await post('/v/rejects')).to.include({ status: 409, text: '{"error":"rejected"}' });
      expect(await post('/v/passes')).to.include({ status: 422, text: '{"error":"passed"}' });
      expect(await post('/v/chained')).to.include({ status: 200, text: '{"body":"first"}' });
      expect(await post('/v/passes-on')).to.include({ status: 404, text: '{"error":"Not found"}' });
      // a failure after the answer was sent leaves that answer as it was, and the server up
      expect(await post('/v/late')).to.include({ status: 200, text: '{"sent":true}' });
      expect((await post('/v/things')).status).to.equal(201);
    });
  });
});
