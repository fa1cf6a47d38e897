// A database outage is never an answer about the data: with PostgreSQL stopped under a running
// service, every /api/v1 read route answers 503 with Retry-After (never 404, never an empty
// list, never a 500), and the service answers normally again once PostgreSQL is back.

import { expect } from 'chai';
import { mkdtempSync, chmodSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { EmbeddedPostgresServer } from '../../eventstore/postgres/embedded.ts';
import { freePort } from '../support/pg.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { signedHeaders, USER_AGENT } from './v1/harness.ts';

describe('database outage (/api/v1 reads)', function () {
  this.timeout(120_000);
  let dir: string;
  let server: EmbeddedPostgresServer;
  let svc: TestService;
  let key: { key_id: string; private_key: string };
  let orderId: string;
  let marketId: string;

  before(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'exchange-outage-'));
    chmodSync(dir, 0o755); // the server runs as the postgres user when we are root
    server = new EmbeddedPostgresServer({
      dataDir: path.join(dir, 'data'),
      port: await freePort(),
      postgresFlags: ['-c', 'fsync=off'],
    });
    await server.start();
    const admin = new pg.Client({ connectionString: server.connectionString('postgres') });
    await admin.connect();
    await admin.query('CREATE DATABASE outage');
    await admin.end();
    svc = await startTestService({ env: { DATABASE_URL: server.connectionString('outage') } });
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${svc.adminUrl}/admin/v1${route}`, {
        method,
        headers: { authorization: `Bearer ${svc.adminToken}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status, `${method} ${route}`).to.equal(200);
      return res.json();
    };
    const { account } = await call('POST', '/accounts', {});
    await call('POST', `/accounts/${account.account_id}/deposits`, { amount: '100' });
    ({ api_key: key } = await call('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_write' }));
    const start = new Date(Date.now() + 86_400_000).toISOString();
    const { event } = await call('POST', '/events', { title: 'A v B', start, sport: 'Soccer' });
    ({
      market: { market_id: marketId },
    } = await call('POST', '/markets', { event_id: event.event_id, title: 'A to win', status: 'open' }));
    const placed = await get('POST', '/api/v1/orders', {
      action: 'buy',
      market_id: marketId,
      order_type: 'limit',
      price: '0.40',
      quantity: '1',
    });
    expect(placed.status).to.equal(200);
    orderId = placed.body.order.id;
  });
  after(async () => {
    await svc?.stop().catch(() => undefined);
    await server?.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  async function get(method: string, pathWithQuery: string, body?: unknown) {
    const headers = {
      'user-agent': USER_AGENT,
      'content-type': 'application/json',
      ...signedHeaders(key, method, pathWithQuery, svc.ctx.clock.nowUs() / 1000),
    };
    const res = await fetch(`${svc.baseUrl}${pathWithQuery}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, retryAfter: res.headers.get('retry-after'), body: await res.json() };
  }

  // GET /api/v1/leaderboard is answered from the in-memory snapshot, whose refreshed_at says how
  // old it is; it reads the database only for the rows' handles.
  const READ_ROUTES = () => [
    '/api/v1/account/balance',
    '/api/v1/orders',
    `/api/v1/orders/${orderId}`,
    '/api/v1/fills',
    '/api/v1/positions',
    '/api/v1/markets',
    `/api/v1/markets?market_ids=${marketId}`,
    '/api/v1/account/market_stats',
    '/api/v1/portfolio/loyalty',
    '/api/v1/portfolio/withdrawals',
    '/api/v1/portfolio/fees',
    '/api/v1/portfolio/adjustments',
    '/api/v1/me',
  ];

  it('answers every read route normally while PostgreSQL is up', async () => {
    for (const route of READ_ROUTES()) expect((await get('GET', route)).status, route).to.equal(200);
  });

  it('answers 503 with Retry-After on every read route while PostgreSQL is down, and recovers after', async () => {
    await server.stop();
    for (const route of READ_ROUTES()) {
      const answer = await get('GET', route);
      expect([route, answer.status, typeof answer.body.error], JSON.stringify(answer.body)).to.deep.equal([
        route,
        503,
        'string',
      ]);
      expect(answer.retryAfter, route).to.be.a('string');
    }
    await server.start();
    for (const route of READ_ROUTES()) {
      let answer = await get('GET', route);
      for (let attempt = 0; answer.status === 503 && attempt < 50; attempt++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        answer = await get('GET', route);
      }
      expect(answer.status, route).to.equal(200);
    }
  });
});
