// The operator API over HTTP against the whole service (docs/OPERATOR.md): every route, the
// admin-token rules in both directions, each validation class, and the test clock.

import { expect } from 'chai';
import { useServiceClient, type ApiKeyCredentials } from './http.ts';
import { newClient } from '../../oauth/support.ts';

const UNKNOWN_ID = '0b5f2a8e-1111-4222-8333-444455556666';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

describe('admin API over HTTP', function () {
  this.timeout(60_000);
  const suite = useServiceClient();

  async function newAccount(body: Record<string, unknown> = {}) {
    return (await suite.client.ok('POST', '/accounts', body)).account as Record<string, any>;
  }
  async function newKey(accountId: string, scope = 'read_write'): Promise<ApiKeyCredentials> {
    return (await suite.client.ok('POST', `/accounts/${accountId}/api_keys`, { scope })).api_key;
  }
  async function balanceOf(key: ApiKeyCredentials) {
    const answer = await suite.client.signed(key, 'GET', '/account/balance');
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.balance as Record<string, any>;
  }
  async function openMarket(extra: Record<string, unknown> = {}) {
    const { market } = await suite.client.listEventAndMarket(
      { title: 'Home v Away', start: new Date(Date.now() + 86_400_000).toISOString(), sport: 'soccer' },
      { title: 'Home to win', status: 'open', ...extra },
    );
    return market;
  }

  describe('the admin token', () => {
    it('is required: none, a wrong one, or another scheme is 401 Unauthorized', async () => {
      for (const headers of <Array<Record<string, string>>>[
        {},
        { authorization: 'Bearer wrong' },
        { authorization: `Basic ${suite.service.adminToken}` },
      ]) {
        expect(await suite.client.admin('GET', '/settings', undefined, headers)).to.deep.equal({
          status: 401,
          body: { error: 'Unauthorized' },
        });
      }
    });

    it('member credentials are refused on /admin/v1', async () => {
      const account = await newAccount();
      const key = await newKey(account.account_id);
      const session = (await suite.client.ok('POST', `/accounts/${account.account_id}/sessions`, {})).session;
      expect(
        await suite.client.admin('GET', '/settings', undefined, { authorization: `Bearer ${session.token}` }),
      ).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
      const signedAdmin = await suite.client.admin('GET', '/settings', undefined, {
        'x-svc-access-key': key.key_id,
        'x-svc-access-timestamp': String(Date.now()),
        'x-svc-access-signature': 'AAAA',
      });
      expect(signedAdmin).to.deep.equal({ status: 401, body: { error: 'Unauthorized' } });
    });

    it('the admin token is refused on /api/v1', async () => {
      const answer = await suite.client.bearer(suite.service.adminToken, 'GET', '/account/balance');
      expect(answer.status).to.equal(401);
    });
  });

  describe('accounts', () => {
    it('create, get and patch', async () => {
      const created = await newAccount({
        first_name: 'Ada',
        last_name: 'Lovelace',
        email: 'ada@example.com',
        password: 'correct horse',
        fee_schedule: 'on_trade',
        maker_factor: 0.5,
        taker_factor: 1,
        created_at: '2020-01-01T00:00:00Z',
      });
      expect(created).to.include({
        first_name: 'Ada',
        last_name: 'Lovelace',
        status: 'active',
        fee_schedule: 'on_trade',
      });
      expect(created.account_id).to.match(/^[0-9a-f-]{36}$/);
      expect(created.user_id).to.match(/^[0-9a-f-]{36}$/);
      expect(created.created_at_us).to.equal(Date.parse('2020-01-01T00:00:00Z') * 1000);
      expect(created).to.not.have.property('password');

      const read = await suite.client.ok('GET', `/accounts/${created.account_id}`);
      expect(read.account).to.include({
        account_id: created.account_id,
        user_id: created.user_id,
        status: 'active',
        fee_schedule: 'on_trade',
      });

      const patched = await suite.client.ok('PATCH', `/accounts/${created.account_id}`, {
        status: 'suspended',
        last_name: 'King',
      });
      expect(patched.account).to.include({ status: 'suspended', last_name: 'King', first_name: 'Ada' });
      expect((await suite.client.ok('GET', `/accounts/${created.account_id}`)).account.status).to.equal('suspended');
    });

    it('a suspended account gets 403 on /api/v1, and works again once active', async () => {
      const account = await newAccount();
      const key = await newKey(account.account_id);
      await suite.client.ok('PATCH', `/accounts/${account.account_id}`, { status: 'suspended' });
      expect((await suite.client.signed(key, 'GET', '/account/balance')).status).to.equal(403);
      await suite.client.ok('PATCH', `/accounts/${account.account_id}`, { status: 'active' });
      expect((await suite.client.signed(key, 'GET', '/account/balance')).status).to.equal(200);
    });

    it('deposits, withdrawals and adjustments move the balance to the cent', async () => {
      const account = await newAccount();
      const key = await newKey(account.account_id);
      const deposited = await suite.client.ok('POST', `/accounts/${account.account_id}/deposits`, { amount: '25.00' });
      expect(deposited.balance).to.include({
        account_id: account.account_id,
        account_balance: '25.00',
        available_balance: '25.00',
      });
      // the fee terms in force are shown even when the operator left them to the schedule's default
      if (deposited.balance.fee_schedule === 'fixed_percent')
        expect(deposited.balance.base_fee_percent).to.be.a('number');
      else expect(deposited.balance).to.include.keys('maker_factor', 'taker_factor');
      const onTrade = await newAccount({ fee_schedule: 'on_trade' });
      const onTradeBalance = (
        await suite.client.ok('POST', `/accounts/${onTrade.account_id}/deposits`, { amount: '1.00' })
      ).balance;
      expect(onTradeBalance).to.include({
        fee_schedule: 'on_trade',
        base_fee_percent: null,
        maker_factor: 0.5,
        taker_factor: 1,
      });

      const withdrawn = await suite.client.ok('POST', `/accounts/${account.account_id}/withdrawals`, {
        amount: '5.10',
        method: 'interac',
        reason: 'cash out',
        sub_method: 'Send',
      });
      expect(withdrawn.withdrawal).to.include({
        account_id: account.account_id,
        type: 'withdrawal',
        amount: '5.10',
        method: 'interac',
        reason: 'cash out',
        sub_method: 'Send',
      });
      expect(withdrawn.withdrawal.id).to.be.a('string');
      expect(await balanceOf(key)).to.include({ account_balance: '19.90', available_balance: '19.90' });

      const tooMuch = await suite.client.admin('POST', `/accounts/${account.account_id}/withdrawals`, {
        amount: '19.91',
      });
      expect(tooMuch.status).to.equal(422);
      expect(tooMuch.body.error).to.be.a('string');
      expect(await balanceOf(key)).to.include({ account_balance: '19.90', available_balance: '19.90' });

      const credit = await suite.client.ok('POST', `/accounts/${account.account_id}/adjustments`, {
        amount: '2.35',
        reason: 'promotion',
      });
      expect(credit.adjustment).to.include({ account_id: account.account_id, type: 'adjustment' });
      await suite.client.ok('POST', `/accounts/${account.account_id}/adjustments`, { amount: '-0.25' });
      expect(await balanceOf(key)).to.include({ account_balance: '22.00', available_balance: '22.00' });
    });

    it('400 for malformed bodies, 404 for unknown accounts', async () => {
      const account = await newAccount();
      for (const [path, body] of [
        ['/accounts', { status: 'frozen' }],
        [`/accounts/${account.account_id}/deposits`, { amount: 5 }],
        [`/accounts/${account.account_id}/deposits`, { amount: '0.001' }],
        [`/accounts/${account.account_id}/deposits`, { amount: '-1.00' }],
        [`/accounts/${account.account_id}/adjustments`, { amount: '0' }],
        [`/accounts/${account.account_id}/api_keys`, { scope: 'everything' }],
      ] as const) {
        expect((await suite.client.admin('POST', path, body)).status, `${path} ${JSON.stringify(body)}`).to.equal(400);
      }
      expect((await suite.client.admin('GET', `/accounts/${UNKNOWN_ID}`)).status).to.equal(404);
      expect(
        (await suite.client.admin('POST', `/accounts/${UNKNOWN_ID}/deposits`, { amount: '1.00' })).status,
      ).to.equal(404);
      expect((await suite.client.admin('POST', `/accounts/${UNKNOWN_ID}/sessions`, {})).status).to.equal(404);
    });
  });

  describe('API keys and sessions', () => {
    it('a generated key pair returns its private key once; the key signs; revoking stops it at once', async () => {
      const account = await newAccount();
      const issued = (await suite.client.ok('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_only' }))
        .api_key;
      expect(issued).to.include({ scope: 'read_only' });
      expect(Buffer.from(issued.private_key, 'base64')).to.have.length(32);
      expect(Buffer.from(issued.public_key, 'base64')).to.have.length(32);
      expect((await suite.client.signed(issued, 'GET', '/account/balance')).status).to.equal(200);

      const revoked = await suite.client.ok('DELETE', `/api_keys/${issued.key_id}`);
      expect(revoked.api_key.key_id).to.equal(issued.key_id);
      expect((await suite.client.signed(issued, 'GET', '/account/balance')).status).to.equal(401);
      expect((await suite.client.admin('DELETE', `/api_keys/${UNKNOWN_ID}`)).status).to.equal(404);
    });

    it('a key registered with its own public key answers without a private key', async () => {
      const account = await newAccount();
      const { ed25519 } = await import('@noble/curves/ed25519.js');
      const { secretKey, publicKey } = ed25519.keygen();
      const issued = (
        await suite.client.ok('POST', `/accounts/${account.account_id}/api_keys`, {
          scope: 'read_write',
          public_key: Buffer.from(publicKey).toString('base64'),
        })
      ).api_key;
      expect(issued).to.not.have.property('private_key');
      expect(issued.public_key).to.equal(Buffer.from(publicKey).toString('base64'));
      const key = { key_id: issued.key_id, private_key: Buffer.from(secretKey).toString('base64') };
      expect((await suite.client.signed(key, 'GET', '/account/balance')).status).to.equal(200);
      const bad = await suite.client.admin('POST', `/accounts/${account.account_id}/api_keys`, {
        scope: 'read_write',
        public_key: 'bm90IGEga2V5',
      });
      expect(bad.status).to.equal(400);
    });

    it('a session token acts as the member until it expires on the service clock', async () => {
      const account = await newAccount();
      const session = (await suite.client.ok('POST', `/accounts/${account.account_id}/sessions`, { expires_in: 120 }))
        .session;
      expect(session.token).to.be.a('string');
      expect(session.expires_at).to.match(ISO);
      const me = await suite.client.bearer(session.token, 'GET', '/me');
      expect(me.status).to.equal(200);
      expect(me.body.me).to.include({ account_id: account.account_id, method: 'bearer' });
      await suite.client.ok('POST', '/clock', { advance_ms: 121_000 });
      expect((await suite.client.bearer(session.token, 'GET', '/me')).status).to.equal(401);
    });
  });

  describe('catalogue and market lifecycle', () => {
    it('events: create and start', async () => {
      const start = new Date(Date.now() + 3_600_000).toISOString();
      const created = (
        await suite.client.ok('POST', '/events', {
          title: 'Lions v Tigers',
          start,
          short_title: 'LIO v TIG',
          sport: 'rugby',
          competition: 'URC',
          participants: ['Lions', 'Tigers'],
        })
      ).event;
      expect(created.event_id).to.match(/^[0-9a-f-]{36}$/);
      expect(created).to.include({ title: 'Lions v Tigers', sport: 'rugby', status: 'scheduled' });
      expect(Date.parse(created.start)).to.equal(Date.parse(start));
      const started = (await suite.client.ok('POST', `/events/${created.event_id}/start`)).event;
      expect(started).to.include({ event_id: created.event_id, status: 'in_progress' });
      expect((await suite.client.admin('POST', `/events/${UNKNOWN_ID}/start`)).status).to.equal(404);
      expect((await suite.client.admin('POST', '/events', { title: 'No start' })).status).to.equal(400);
    });

    it('markets: defaults, status changes, halt and resume, result', async () => {
      const event = (
        await suite.client.ok('POST', '/events', {
          title: 'A v B',
          start: new Date(Date.now() + 3_600_000).toISOString(),
        })
      ).event;
      const market = (await suite.client.ok('POST', '/markets', { event_id: event.event_id, title: 'A to win' }))
        .market;
      // the spec's market object: a scheduled market does not accept orders yet; not halted
      expect(market).to.include({
        event_id: event.event_id,
        title: 'A to win',
        max_price: '1.00',
        status: 'scheduled',
        trading: false,
        halted: false,
      });
      expect(market.market_id).to.match(/^[0-9a-f-]{36}$/);

      const path = `/markets/${market.market_id}/status`;
      expect((await suite.client.ok('POST', path, { status: 'pre_open' })).market).to.include({
        status: 'pre_open',
        trading: true,
      });
      expect((await suite.client.ok('POST', path, { status: 'open' })).market).to.include({
        status: 'open',
        trading: true,
        halted: false,
      });
      expect((await suite.client.ok('POST', path, { trading: false })).market).to.include({
        status: 'suspended',
        trading: false,
        halted: true,
      });
      expect((await suite.client.ok('POST', path, { trading: true })).market).to.include({
        status: 'open',
        trading: true,
        halted: false,
      });
      expect((await suite.client.ok('POST', path, { status: 'closed' })).market).to.include({
        status: 'closed',
        trading: false,
      });
      expect(
        (await suite.client.ok('POST', `/markets/${market.market_id}/result`, { result: 'lose' })).market,
      ).to.include({
        status: 'resulted',
        result: 'lose',
        trading: false,
      });
      // the same result again is refused; the other one corrects it (positions settled again)
      expect(
        (await suite.client.admin('POST', `/markets/${market.market_id}/result`, { result: 'lose' })).status,
      ).to.equal(422);
      expect(
        (await suite.client.ok('POST', `/markets/${market.market_id}/result`, { result: 'win' })).market,
      ).to.include({
        status: 'resulted',
        result: 'win',
      });
      expect(
        (await suite.client.admin('POST', `/markets/${market.market_id}/result`, { result: 'void' })).status,
      ).to.equal(422);

      const custom = (
        await suite.client.ok('POST', '/markets', {
          event_id: event.event_id,
          title: 'Big',
          max_price: '10.00',
          status: 'open',
          trading: false,
          in_play_delay_sec: 5,
          featured: true,
        })
      ).market;
      expect(custom).to.include({
        max_price: '10.00',
        status: 'suspended',
        trading: false,
        halted: true,
        in_play_delay_sec: 5,
        featured: true,
      });

      const symbol = `SYM-${Date.now()}`;
      expect(
        (await suite.client.ok('POST', '/markets', { event_id: event.event_id, title: 'With symbol', symbol })).market
          .symbol,
      ).to.equal(symbol);
      const taken = await suite.client.admin('POST', '/markets', {
        event_id: event.event_id,
        title: 'Same symbol',
        symbol,
      });
      expect(taken.status).to.equal(422);
      expect(taken.body).to.deep.equal({ error: `symbol ${symbol} is already used by another market` });

      expect((await suite.client.admin('POST', '/markets', { event_id: UNKNOWN_ID, title: 'Orphan' })).status).to.equal(
        404,
      );
      expect((await suite.client.admin('POST', `/markets/${UNKNOWN_ID}/status`, { status: 'open' })).status).to.equal(
        404,
      );
      expect((await suite.client.admin('POST', `/markets/${market.market_id}/status`, {})).status).to.equal(400);
      expect(
        (await suite.client.admin('POST', `/markets/${market.market_id}/result`, { result: 'draw' })).status,
      ).to.equal(400);
    });

    it('fills: amend keeps the original price and marks the fill amended', async () => {
      const market = await openMarket();
      const [buyer, seller] = [
        await newAccount({ fee_schedule: 'fixed_percent', base_fee_percent: 0 }),
        await newAccount({ fee_schedule: 'fixed_percent', base_fee_percent: 0 }),
      ];
      for (const account of [buyer, seller])
        await suite.client.ok('POST', `/accounts/${account.account_id}/deposits`, { amount: '100.00' });
      const [buyerKey, sellerKey] = [await newKey(buyer.account_id), await newKey(seller.account_id)];
      const order = { market_id: market.market_id, order_type: 'limit', price: '0.40', quantity: '10' };
      expect((await suite.client.signed(buyerKey, 'POST', '/orders', { ...order, action: 'buy' })).status).to.equal(
        200,
      );
      expect((await suite.client.signed(sellerKey, 'POST', '/orders', { ...order, action: 'sell' })).status).to.equal(
        200,
      );
      const fills = await suite.client.signed(buyerKey, 'GET', '/fills');
      const fill = fills.body.fills[0];
      expect(fill).to.include({ price: '0.40', amended: false });

      const amended = (await suite.client.ok('POST', `/fills/${fill.trade_id}/amend`, { price: '0.35' })).fill;
      expect(amended).to.include({ trade_id: fill.trade_id, price: '0.35', original_price: '0.40', amended: true });
      expect((await suite.client.admin('POST', `/fills/${UNKNOWN_ID}/amend`, { price: '0.30' })).status).to.equal(404);
      expect((await suite.client.admin('POST', `/fills/${fill.trade_id}/amend`, {})).status).to.equal(400);
    });
  });

  describe('OAuth clients, settings, leaderboard', () => {
    it('clients: a secret only for web and server apps; patch', async () => {
      const web = await newClient(suite.service, {
        name: 'Web',
        app_type: 'web',
        redirect_uris: ['https://w.example.com/cb'],
        scopes: ['market_data', 'orders.read'],
      });
      expect(web.client_id).to.be.a('string');
      expect(web.client_secret).to.be.a('string');
      const server = await newClient(suite.service, {
        name: 'Srv',
        app_type: 'server',
        scopes: ['market_data'],
        ip_allowlist: ['192.0.2.0/24'],
      });
      expect(server.client_secret).to.be.a('string');
      const native = await newClient(suite.service, {
        name: 'App',
        app_type: 'native',
        redirect_uris: ['com.example.app:/cb'],
        scopes: ['orders.read'],
      });
      expect(native).to.not.have.property('client_secret');
      const patched = (await suite.client.ok('PATCH', `/oauth/clients/${web.client_id}`, { status: 'suspended' }))
        .client;
      expect(patched).to.include({ client_id: web.client_id, status: 'suspended', name: 'Web' });
      expect((await suite.client.admin('PATCH', `/oauth/clients/${UNKNOWN_ID}`, { status: 'active' })).status).to.equal(
        404,
      );
      expect(
        (await suite.client.admin('POST', '/oauth/clients', { name: 'X', app_type: 'web', scopes: ['root'] })).status,
      ).to.equal(400);
    });

    it('settings: read, change, and the change takes effect', async () => {
      const settings = (await suite.client.ok('GET', '/settings')).settings;
      expect(settings).to.include.keys(
        'dynamic_registration',
        'registration_limit_per_hour',
        'leaderboard_enabled',
        'leaderboard_boards',
        'reserved_handles',
        'blocked_handles',
        'batch_limit',
        'geofencing',
        'oauth_unavailable',
      );
      const account = await newAccount();
      const key = await newKey(account.account_id);
      const off = (await suite.client.ok('PATCH', '/settings', { leaderboard_enabled: false })).settings;
      expect(off.leaderboard_enabled).to.equal(false);
      const board = await suite.client.signed(key, 'GET', '/leaderboard');
      expect(board).to.deep.equal({ status: 404, body: { error: 'Leaderboard is not enabled' } });
      await suite.client.ok('PATCH', '/settings', {
        leaderboard_enabled: true,
        leaderboard_boards: [{ period: 'weekly', category: 'all', metric: 'volume', shown: true }],
      });
      expect((await suite.client.ok('GET', '/settings')).settings.leaderboard_boards).to.deep.equal([
        { period: 'weekly', category: 'all', metric: 'volume', shown: true },
      ]);
      expect((await suite.client.admin('PATCH', '/settings', { batch_limit: '100' })).status).to.equal(400);
      expect((await suite.client.admin('PATCH', '/settings', { geofencing: { enforced: 'yes' } })).status).to.equal(
        400,
      );
    });

    it('leaderboard refresh answers the snapshot time', async () => {
      const refreshed = await suite.client.ok('POST', '/leaderboard/refresh');
      expect(refreshed.refreshed_at).to.match(ISO);
    });
  });

  describe('the clock (TEST_CLOCK=1)', () => {
    it('reads, advances and sets', async () => {
      const now = await suite.client.ok('GET', '/clock');
      expect(now.now).to.match(ISO);
      expect(now.now_us).to.be.a('number');
      const advanced = await suite.client.ok('POST', '/clock', { advance_ms: 3_600_000 });
      expect(advanced.now_us - now.now_us).to.be.at.least(3_600_000_000);
      const set = await suite.client.ok('POST', '/clock', { set: '2035-06-01T00:00:00Z' });
      expect(set.now_us).to.be.within(
        Date.parse('2035-06-01T00:00:00Z') * 1000,
        Date.parse('2035-06-01T00:00:10Z') * 1000,
      );
      expect((await suite.client.admin('POST', '/clock', {})).status).to.equal(400);
    });
  });
});

describe('admin API without TEST_CLOCK', function () {
  this.timeout(60_000);
  const suite = useServiceClient({ env: { TEST_CLOCK: '0' } });

  it('the clock routes are 404', async () => {
    expect((await suite.client.admin('GET', '/clock')).status).to.equal(404);
    expect((await suite.client.admin('POST', '/clock', { advance_ms: 1000 })).status).to.equal(404);
  });
});
