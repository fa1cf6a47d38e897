// The admin router in isolation (fake engine, memory event store): the admin-token rules,
// request validation (400 before anything reaches the engine), engine refusals mapped to
// 404/422, OAuth clients, settings, and the clock routes with and without TEST_CLOCK.

import { expect } from 'chai';
import express from 'express';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { adminRouter } from '../../../api/admin/router.ts';
import { createTestClock, systemClock } from '../../../commands/clock/clock.ts';
import type { AppContext, Config } from '../../../commands/context.ts';
import type { EngineReply } from '../../../engine/gateway.ts';
import { loadSettingsStore } from '../../../commands/settings/store.ts';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import { MemoryEventStore } from '../../../eventstore/memory.ts';
import { useClientSecretKey } from '../../../commands/oauthClients/client.ts';
import { randomBytes } from 'node:crypto';
import { postgresStores } from '../../../cli/stores/index.ts';

const TOKEN = 'test-admin-token';
const UNKNOWN_ID = '0b5f2a8e-1111-4222-8333-444455556666';

/** Refuses every input that names an id with not_found; records what it was sent. */
class FakeEngine {
  readonly inputs: EngineInput[] = [];
  async submit(input: EngineInput): Promise<EngineReply> {
    this.inputs.push(input);
    if (input.kind === 'Tick') return { ok: true, events: [], position: 0n, seq: this.inputs.length };
    if (input.kind === 'Withdraw')
      return { ok: false, error: { code: 'insufficient_funds' }, events: [], position: 0n, seq: 0 };
    return { ok: false, error: { code: 'account_not_found' }, events: [], position: 0n, seq: 0 };
  }
}

async function startAdmin(options: { testClock: boolean }) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'admin-router-'));
  const store = new MemoryEventStore();
  useClientSecretKey(store, randomBytes(32));
  const logger = pino({ level: 'silent' });
  const engine = new FakeEngine();
  const config: Config = {
    port: 0,
    wsPort: 0,
    adminPort: null,
    trustedProxies: [],
    adminToken: TOKEN,
    dataDir,
    databaseUrl: undefined,
    eventstoreUrl: undefined,
    jurisdiction: 'us',
    testClock: options.testClock,
    demo: false,
    logLevel: 'silent',
  };
  const testClock = options.testClock ? createTestClock() : null;
  const pool = {
    query: async () => {
      throw new Error('no database in this test');
    },
  } as unknown as AppContext['pool'];
  const ctx = {
    config,
    logger,
    clock: testClock ?? systemClock,
    testClock,
    pool,
    ...postgresStores(pool, testClock ?? systemClock),
    store,
    engine,
    writes: { note: () => undefined, lastFor: () => undefined },
    projections: { waitFor: async () => undefined },
    settings: await loadSettingsStore({ store, logger }),
    credentials: {
      resolve: async () => ({ ok: false, refusal: { code: 'unauthorized' } }),
      resolveToken: async () => ({ ok: false, refusal: { code: 'unauthorized' } }),
    },
  } satisfies AppContext;
  const app = express();
  app.use('/admin/v1', adminRouter(ctx));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/v1`;
  return {
    engine,
    async call(
      method: string,
      route: string,
      body?: unknown,
      headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` },
    ) {
      const init: RequestInit = { method, headers: { ...headers, 'content-type': 'application/json' } };
      if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
      const response = await fetch(`${base}${route}`, init);
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    },
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('admin router (fake engine)', () => {
  let admin: Awaited<ReturnType<typeof startAdmin>>;
  before(async () => {
    admin = await startAdmin({ testClock: true });
  });
  after(async () => admin.stop());

  describe('admin token', () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['no Authorization header', {}],
      ['a wrong token', { authorization: 'Bearer nope' }],
      ['the token under another scheme', { authorization: `Basic ${TOKEN}` }],
      ['a member session token', { authorization: 'Bearer svc_st_abcdef' }],
      [
        'signed API key headers',
        { 'x-svc-access-key': 'k', 'x-svc-access-timestamp': '1', 'x-svc-access-signature': 'AAAA' },
      ],
    ];
    for (const [what, headers] of cases) {
      it(`401 Unauthorized with ${what}`, async () => {
        const res = await admin.call('GET', '/settings', undefined, headers);
        expect(res).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
      });
    }
  });

  describe('validation: 400 before the engine sees anything', () => {
    const cases: Array<[string, string, unknown]> = [
      ['POST', '/accounts', { status: 'frozen' }],
      ['POST', '/accounts', { fee_schedule: 'free' }],
      ['POST', '/accounts', { email: 'not-an-email' }],
      ['POST', '/accounts', { created_at: 'yesterday' }],
      ['POST', '/accounts', { base_fee_percent: '1' }],
      ['POST', '/accounts', '[1,2]'],
      ['POST', '/accounts', '{"broken": '],
      ['PATCH', `/accounts/${UNKNOWN_ID}`, {}],
      ['POST', `/accounts/${UNKNOWN_ID}/deposits`, {}],
      ['POST', `/accounts/${UNKNOWN_ID}/deposits`, { amount: 10 }],
      ['POST', `/accounts/${UNKNOWN_ID}/deposits`, { amount: '-5.00' }],
      ['POST', `/accounts/${UNKNOWN_ID}/deposits`, { amount: '0' }],
      ['POST', `/accounts/${UNKNOWN_ID}/deposits`, { amount: '1.001' }],
      ['POST', `/accounts/${UNKNOWN_ID}/deposits`, { amount: 'ten' }],
      ['POST', `/accounts/${UNKNOWN_ID}/withdrawals`, { amount: '0.00' }],
      ['POST', `/accounts/${UNKNOWN_ID}/withdrawals`, { amount: '5', sub_method: 'Wire' }],
      ['POST', `/accounts/${UNKNOWN_ID}/adjustments`, { amount: '0' }],
      ['POST', `/accounts/${UNKNOWN_ID}/api_keys`, { scope: 'admin' }],
      ['POST', `/accounts/${UNKNOWN_ID}/api_keys`, {}],
      ['POST', `/accounts/${UNKNOWN_ID}/sessions`, { expires_in: 'soon' }],
      ['POST', `/accounts/${UNKNOWN_ID}/sessions`, { expires_in: 0 }],
      ['POST', '/events', { start: '2030-01-01T00:00:00Z' }],
      ['POST', '/events', { title: 'X', start: 'tomorrow' }],
      ['POST', '/events', { title: 'X', start: '2030-01-01T00:00:00Z', participants: 'A v B' }],
      ['POST', '/markets', { title: 'X' }],
      ['POST', '/markets', { event_id: 'nope', title: 'X' }],
      ['POST', '/markets', { event_id: UNKNOWN_ID, title: 'X', max_price: 1 }],
      ['POST', '/markets', { event_id: UNKNOWN_ID, title: 'X', max_price: '0' }],
      ['POST', '/markets', { event_id: UNKNOWN_ID, title: 'X', status: 'resulted' }],
      ['POST', '/markets', { event_id: UNKNOWN_ID, title: 'X', trading: 'yes' }],
      ['POST', '/markets', { event_id: UNKNOWN_ID, title: 'X', in_play_delay_sec: -1 }],
      ['POST', `/markets/${UNKNOWN_ID}/status`, {}],
      ['POST', `/markets/${UNKNOWN_ID}/status`, { status: 'resulted' }],
      ['POST', `/markets/${UNKNOWN_ID}/status`, { trading: 'false' }],
      ['POST', `/markets/${UNKNOWN_ID}/result`, { result: 'draw' }],
      ['POST', `/markets/${UNKNOWN_ID}/result`, {}],
      ['POST', `/fills/${UNKNOWN_ID}/amend`, {}],
      ['POST', `/fills/${UNKNOWN_ID}/amend`, { price: 0.5 }],
      ['POST', `/fills/${UNKNOWN_ID}/amend`, { price: '0.005' }],
      ['POST', `/fills/${UNKNOWN_ID}/amend`, { filled: '-1' }],
      ['PATCH', `/markets/${UNKNOWN_ID}`, { settlement_fee_percent: -1 }],
      ['PATCH', `/markets/${UNKNOWN_ID}`, { settlement_fee_percent: '5' }],
      ['PATCH', `/events/${UNKNOWN_ID}`, { event_fee_percent: 101 }],
      ['PUT', '/market_groups/g', {}],
      ['PUT', '/market_groups/g', { group_fee_percent: '2' }],
      ['POST', `/accounts/${UNKNOWN_ID}/referrals`, {}],
      ['POST', `/accounts/${UNKNOWN_ID}/referrals`, { referee_account_id: 'someone' }],
      ['POST', '/oauth/clients', { name: 'A', app_type: 'desktop', scopes: ['events'] }],
      ['POST', '/oauth/clients', { app_type: 'web', scopes: ['events'] }],
      ['PATCH', '/settings', { batch_limit: 'many' }],
      ['PATCH', '/settings', { referral_points: -1 }],
      ['PATCH', '/settings', { leaderboard_boards: [{ period: 'daily' }] }],
      ['PATCH', '/settings', { nonsense: true }],
      ['POST', '/clock', {}],
      ['POST', '/clock', { advance_ms: 1000, set: '2030-01-01T00:00:00Z' }],
      ['POST', '/clock', { advance_ms: '1000' }],
      ['POST', '/clock', { set: 'later' }],
      ['POST', '/clock', { set: '2300-01-01T00:00:00Z' }],
      ['POST', '/clock', { advance_ms: -2_000_000_000_000 }],
      ['POST', '/accounts', { created_at: '1969-12-31T00:00:00Z' }],
      ['POST', '/events', { title: 'X', start: '9999-01-01T00:00:00Z' }],
    ];
    for (const [method, route, body] of cases) {
      it(`${method} ${route} ${typeof body === 'string' ? body : JSON.stringify(body)} → 400`, async () => {
        const before = admin.engine.inputs.length;
        const res = await admin.call(method, route, body);
        expect(res.status).to.equal(400);
        expect(res.body.error).to.be.a('string').and.not.equal('');
        expect(admin.engine.inputs.length).to.equal(before);
      });
    }
  });

  describe('unknown ids: 404', () => {
    const cases: Array<[string, string, unknown]> = [
      ['GET', `/accounts/${UNKNOWN_ID}`, undefined],
      ['GET', '/accounts/not-a-uuid', undefined],
      ['PATCH', `/accounts/${UNKNOWN_ID}`, { status: 'suspended' }],
      ['POST', `/accounts/${UNKNOWN_ID}/deposits`, { amount: '10.00' }],
      ['POST', `/accounts/${UNKNOWN_ID}/api_keys`, { scope: 'read_only' }],
      ['POST', `/accounts/${UNKNOWN_ID}/sessions`, {}],
      ['DELETE', `/api_keys/${UNKNOWN_ID}`, undefined],
      ['POST', `/events/${UNKNOWN_ID}/start`, undefined],
      ['POST', `/markets/${UNKNOWN_ID}/status`, { status: 'open' }],
      ['POST', `/markets/${UNKNOWN_ID}/result`, { result: 'win' }],
      ['POST', `/fills/${UNKNOWN_ID}/amend`, { price: '0.50' }],
      ['PATCH', `/oauth/clients/${UNKNOWN_ID}`, { status: 'suspended' }],
      ['GET', '/no-such-route', undefined],
    ];
    for (const [method, route, body] of cases) {
      it(`${method} ${route} → 404`, async () => {
        const res = await admin.call(method, route, body);
        expect(res.status).to.equal(404);
        expect(res.body.error).to.be.a('string');
      });
    }
  });

  it('an engine refusal by rule is 422 with its message', async () => {
    const res = await admin.call('POST', `/accounts/${UNKNOWN_ID}/withdrawals`, { amount: '10.00' });
    expect(res).to.deep.equal({ status: 422, body: { error: 'Insufficient funds' } });
  });

  it('OAuth clients: a secret for web apps only, patch by id', async () => {
    const web = await admin.call('POST', '/oauth/clients', {
      name: 'Web',
      app_type: 'web',
      scopes: ['market_data', 'events'],
      redirect_uris: ['https://w.example.com/cb'],
    });
    expect(web.status).to.equal(200);
    expect(web.body.client.client_id).to.be.a('string');
    expect(web.body.client.client_secret).to.be.a('string');
    const spa = await admin.call('POST', '/oauth/clients', {
      name: 'SPA',
      app_type: 'browser',
      scopes: ['events'],
      redirect_uris: ['https://s.example.com/cb'],
    });
    expect(spa.body.client).to.not.have.property('client_secret');
    const patched = await admin.call('PATCH', `/oauth/clients/${web.body.client.client_id}`, {
      status: 'suspended',
      ip_allowlist: ['203.0.113.0/24'],
    });
    expect(patched.status).to.equal(200);
    expect(patched.body.client).to.include({ status: 'suspended', name: 'Web' });
    expect(patched.body.client.ip_allowlist).to.deep.equal(['203.0.113.0/24']);
  });

  it('settings: GET, PATCH, GET again', async () => {
    const before = await admin.call('GET', '/settings');
    expect(before.status).to.equal(200);
    expect(before.body.settings).to.have.property('batch_limit');
    const patched = await admin.call('PATCH', '/settings', {
      batch_limit: 25,
      geofencing: { enforced: true, allowed_codes: ['US-NJ'] },
    });
    expect(patched.status).to.equal(200);
    expect(patched.body.settings.batch_limit).to.equal(25);
    expect(patched.body.settings.geofencing).to.deep.equal({
      enforced: true,
      allowed_codes: ['US-NJ'],
      accept_network_location: false,
      blocked_networks: [],
    });
    expect((await admin.call('GET', '/settings')).body.settings).to.deep.equal(patched.body.settings);
  });

  it('clock: read, advance and set, each followed by an engine tick', async () => {
    const read = await admin.call('GET', '/clock');
    expect(read.status).to.equal(200);
    expect(read.body.now).to.equal(new Date(Math.floor(read.body.now_us / 1000)).toISOString());
    const ticks = admin.engine.inputs.filter((i) => i.kind === 'Tick').length;
    const advanced = await admin.call('POST', '/clock', { advance_ms: 86_400_000 });
    expect(advanced.status).to.equal(200);
    expect(advanced.body.now_us - read.body.now_us).to.be.at.least(86_400_000_000);
    const set = await admin.call('POST', '/clock', { set: '2031-05-01T12:00:00Z' });
    expect(set.body.now_us).to.be.within(
      Date.parse('2031-05-01T12:00:00Z') * 1000,
      Date.parse('2031-05-01T12:00:05Z') * 1000,
    );
    expect(admin.engine.inputs.filter((i) => i.kind === 'Tick').length).to.equal(ticks + 2);
  });
});

describe('admin router without TEST_CLOCK', () => {
  let admin: Awaited<ReturnType<typeof startAdmin>>;
  before(async () => {
    admin = await startAdmin({ testClock: false });
  });
  after(async () => admin.stop());

  it('the clock routes are 404', async () => {
    expect((await admin.call('GET', '/clock')).status).to.equal(404);
    expect((await admin.call('POST', '/clock', { advance_ms: 1000 })).status).to.equal(404);
  });

  it('but still 401 without the token', async () => {
    expect((await admin.call('GET', '/clock', undefined, {})).status).to.equal(401);
  });
});
