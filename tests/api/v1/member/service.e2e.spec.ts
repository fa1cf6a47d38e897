// The member routes in the whole service (cli/serve.ts booted in-process by startTestService):
// admin setup, signed keys and session bearers, the operator clock, the public images at the
// host root, the leaderboard refresh route, and a runner rebuild of every member projector.

import { expect } from 'chai';
import { LEADERBOARD_LAUNCH_US } from '../../../../domain/profile/profile.ts';
import { MEMBER_PROJECTORS } from '../../../../projections/member/index.ts';
import { coreProjector } from '../../../../projections/core/projector.ts';
import { startTestService, type TestService } from '../../../support/service.ts';
import { signedHeaders, type ApiKey } from '../harness.ts';
import { answerOf, type FetchedAnswer } from '../../../support/answer.ts';

const USER_AGENT = 'member-tests/1.0';

describe('member routes in the whole service', () => {
  let svc: TestService;

  async function request(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    base = svc.baseUrl,
  ): Promise<FetchedAnswer> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        'user-agent': USER_AGENT,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return answerOf(response);
  }
  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await request(
      method,
      `/admin/v1${path}`,
      { authorization: `Bearer ${svc.adminToken}` },
      body,
      svc.adminUrl,
    );
    if (answer.status !== 200) throw new Error(`admin ${method} ${path}: ${answer.status} ${answer.text}`);
    return answer.body;
  };
  const signed = (key: ApiKey, method: string, path: string, body?: unknown) =>
    request(method, path, signedHeaders(key, method, path, svc.ctx.clock.nowUs() / 1000), body);
  const bearer = (token: string, method: string, path: string, body?: unknown) =>
    request(method, path, { authorization: `Bearer ${token}` }, body);

  async function member(fields: Record<string, unknown> = {}) {
    const { account } = await admin('POST', '/accounts', { first_name: 'Mary', last_name: 'Shelley', ...fields });
    await admin('POST', `/accounts/${account.account_id}/deposits`, { amount: '500' });
    const { api_key: key } = await admin('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_write' });
    const { api_key: readOnly } = await admin('POST', `/accounts/${account.account_id}/api_keys`, {
      scope: 'read_only',
    });
    const { session } = await admin('POST', `/accounts/${account.account_id}/sessions`, {});
    return {
      account_id: account.account_id as string,
      user_id: account.user_id as string,
      key: key as ApiKey,
      readOnly: readOnly as ApiKey,
      session: session.token as string,
    };
  }

  before(async () => {
    svc = await startTestService();
  });
  after(async () => svc?.stop());

  it('GET /me and PATCH /me/profile with real credentials; read_only keys cannot change the profile', async () => {
    const m = await member();
    const viaKey = await signed(m.key, 'GET', '/api/v1/me');
    expect(viaKey.status, viaKey.text).to.equal(200);
    expect(viaKey.body.me).to.deep.include({
      account_id: m.account_id,
      user_id: m.user_id,
      first_name: 'Mary',
      last_name: 'Shelley',
      method: 'api_key',
      scope: 'read_write',
      key_id: m.key.key_id,
      handle: null,
      avatar_url: null,
      leaderboard_opt_in: true,
    });
    const viaSession = await bearer(m.session, 'GET', '/api/v1/me');
    expect(viaSession.body.me).to.deep.include({ method: 'bearer', scope: null, key_id: null });
    const refused = await signed(m.readOnly, 'PATCH', '/api/v1/me/profile', { handle: 'mary_s' });
    expect(refused.status).to.equal(403);
    const changed = await bearer(m.session, 'PATCH', '/api/v1/me/profile', {
      handle: 'Mary_S',
      avatar: { style: 'dots', palette: 'grape', seed: 'frank' },
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.me).to.deep.include({ handle: 'mary_s', avatar_url: '/avatars/mary_s.svg' });
    expect(changed.body.me.handle_changeable_at).to.be.a('string');
  });

  it('the 30-day window follows the operator clock', async () => {
    const m = await member();
    expect((await bearer(m.session, 'PATCH', '/api/v1/me/profile', { handle: 'clock_one' })).status).to.equal(200);
    const early = await bearer(m.session, 'PATCH', '/api/v1/me/profile', { handle: 'clock_two' });
    expect(early.status).to.equal(422);
    expect(early.body.error).to.equal('Handle can be changed only once every 30 days');
    await admin('POST', '/clock', { advance_ms: 30 * 24 * 3600 * 1000 });
    const { session } = await admin('POST', `/accounts/${m.account_id}/sessions`, {}); // the first one expired meanwhile
    const later = await bearer(session.token, 'PATCH', '/api/v1/me/profile', { handle: 'clock_two' });
    expect(later.status, later.text).to.equal(200);
    expect(later.body.me.handle).to.equal('clock_two');
  });

  it('consent defaults: jurisdiction ca starts out, an account older than the leaderboard starts out', async () => {
    const canadian = await member({ jurisdiction: 'ca' });
    expect((await bearer(canadian.session, 'GET', '/api/v1/me')).body.me.leaderboard_opt_in).to.equal(false);
    const old = await member({ created_at: new Date(LEADERBOARD_LAUNCH_US / 1000 - 86_400_000).toISOString() });
    expect((await bearer(old.session, 'GET', '/api/v1/me')).body.me.leaderboard_opt_in).to.equal(false);
    const joined = await bearer(old.session, 'PATCH', '/api/v1/me/profile', { leaderboard_opt_in: true });
    expect(joined.body.me.leaderboard_opt_in).to.equal(true);
    expect(joined.body.me.handle).to.be.a('string');
  });

  it('reserved and blocked handles follow PATCH /admin/v1/settings', async () => {
    await admin('PATCH', '/settings', { reserved_handles: ['official'], blocked_handles: ['nasty'] });
    const m = await member();
    expect((await bearer(m.session, 'PATCH', '/api/v1/me/profile', { handle: 'official' })).body.error).to.equal(
      'Handle is reserved',
    );
    expect((await bearer(m.session, 'PATCH', '/api/v1/me/profile', { handle: 'nasty.one' })).body.error).to.equal(
      'Handle is blocked',
    );
  });

  it('avatars and sport icons are public at the host root', async () => {
    const avatar = await request('GET', '/avatars/mary_s.svg', {});
    expect(avatar.status).to.equal(200);
    expect(avatar.headers.get('content-type')).to.match(/image\/svg\+xml/);
    expect(avatar.headers.get('etag')).to.be.a('string');
    expect(avatar.headers.get('cache-control')).to.include('max-age');
    expect((await request('GET', '/avatars/no_such_member.svg', {})).status).to.equal(404);
    expect((await request('GET', '/icons/sports/soccer.svg', {})).status).to.equal(200);
  });

  it('a trade shows on the leaderboard after POST /admin/v1/leaderboard/refresh, and in market stats', async () => {
    const seller = await member();
    const buyer = await member();
    await bearer(seller.session, 'PATCH', '/api/v1/me/profile', { handle: 'seller_e2e' });
    await bearer(buyer.session, 'PATCH', '/api/v1/me/profile', { handle: 'buyer_e2e' });
    const start = new Date(svc.ctx.clock.nowUs() / 1000 + 3_600_000).toISOString();
    const { event } = await admin('POST', '/events', {
      title: 'Reds v Blues',
      start,
      sport: 'Basketball',
      competition: 'NBA',
    });
    const { market } = await admin('POST', '/markets', { event_id: event.event_id, title: 'Reds win', status: 'open' });
    const sell = await signed(seller.key, 'POST', '/api/v1/orders', {
      action: 'sell',
      market_id: market.market_id,
      order_type: 'limit',
      price: '0.30',
      quantity: '4',
    });
    expect(sell.status, sell.text).to.equal(200);
    const buy = await signed(buyer.key, 'POST', '/api/v1/orders', {
      action: 'buy',
      market_id: market.market_id,
      order_type: 'limit',
      price: '0.30',
      quantity: '4',
    });
    expect(buy.status, buy.text).to.equal(200);
    await admin('POST', `/markets/${market.market_id}/result`, { result: 'lose' });

    const { refreshed_at } = await admin('POST', '/leaderboard/refresh');
    const board = await signed(buyer.key, 'GET', '/api/v1/leaderboard?period=daily&category=basketball&metric=profit');
    expect(board.status, board.text).to.equal(200);
    expect(board.body).to.deep.include({
      period: 'daily',
      category: 'basketball',
      metric: 'profit',
      shown: true,
      refreshed_at,
    });
    expect(board.body.leaderboard.map((r: { handle: string; rank: number }) => [r.rank, r.handle])).to.deep.equal([
      [1, 'seller_e2e'],
      [2, 'buyer_e2e'],
    ]);
    expect(board.body.leaderboard[0].top_sport).to.equal('basketball');

    const stats = await signed(
      seller.key,
      'GET',
      `/api/v1/account/market_stats?market_ids=${market.market_id}&exclude_zero_settlements=true`,
    );
    expect(stats.status, stats.text).to.equal(200);
    expect(stats.body.market_stats).to.have.length(1);
    expect(stats.body.market_stats[0]).to.include({
      sport: 'Basketball',
      competition: 'NBA',
      sell_orders: 1,
      status: 'resulted',
    });

    await admin('PATCH', '/settings', { leaderboard_enabled: false });
    const off = await signed(buyer.key, 'GET', '/api/v1/leaderboard');
    expect(off.status).to.equal(404);
    expect(off.body).to.deep.equal({ error: 'Leaderboard is not enabled' });
    await admin('PATCH', '/settings', { leaderboard_enabled: true });
  });

  it('the balance object carries lifetime totals, points and tier agreeing with the ledgers and fills', async () => {
    const m = await member();
    await admin('POST', `/accounts/${m.account_id}/withdrawals`, { amount: '20', method: 'card', reason: 'payout' });
    await admin('POST', `/accounts/${m.account_id}/adjustments`, { amount: '3', reason: 'promo' });
    const start = new Date(svc.ctx.clock.nowUs() / 1000 + 3_600_000).toISOString();
    const { event } = await admin('POST', '/events', { title: 'A v B', start, sport: 'Tennis' });
    const { market } = await admin('POST', '/markets', { event_id: event.event_id, title: 'A wins', status: 'open' });
    const other = await member();
    await signed(other.key, 'POST', '/api/v1/orders', {
      action: 'sell',
      market_id: market.market_id,
      order_type: 'limit',
      price: '0.25',
      quantity: '8',
    });
    const buy = await signed(m.key, 'POST', '/api/v1/orders', {
      action: 'buy',
      market_id: market.market_id,
      order_type: 'limit',
      price: '0.25',
      quantity: '8',
    });
    expect(buy.status, buy.text).to.equal(200);
    const balance = (await signed(m.key, 'GET', '/api/v1/account/balance')).body.balance;
    const fees = (await signed(m.key, 'GET', '/api/v1/portfolio/fees')).body.fees as Array<{ amount: string }>;
    const fills = (await signed(m.key, 'GET', '/api/v1/fills')).body.fills as Array<{ original_risk: string }>;
    expect(balance).to.include({
      total_deposits: '500.00',
      total_withdrawals: '20.00',
      total_adjustments: '3.00',
      total_trade_count: fills.length,
      loyalty_tier: 'rookie',
    });
    expect(Number.isInteger(balance.points)).to.equal(true);
    const feeTotal = fees.reduce((sum, f) => sum - Number(f.amount), 0);
    expect(Number(balance.total_fees)).to.be.closeTo(feeTotal, 1e-9);
    expect(Number(balance.total_traded)).to.be.closeTo(
      fills.reduce((sum, f) => sum + Number(f.original_risk), 0),
      1e-9,
    );
    const withdrawals = (await signed(m.key, 'GET', '/api/v1/portfolio/withdrawals')).body.withdrawals;
    expect(withdrawals[0]).to.include({ method: 'card', reason: 'payout' });
  });

  it('the member projectors and the core one (market stats) rebuilt from zero by the service runner equal the live read models', async () => {
    await svc.service.runner.waitFor(await svc.ctx.store.headPosition(), 10_000);
    const projectors = [coreProjector(), ...MEMBER_PROJECTORS];
    const dump = async () => {
      const out: Record<string, string[]> = {};
      for (const projector of projectors) {
        for (const table of projector.tables) {
          const rows = await svc.ctx.pool.query(`SELECT to_jsonb(t) AS row FROM public.${table} t`);
          out[table] = rows.rows.map((r) => JSON.stringify(r.row)).sort();
        }
      }
      return out;
    };
    const live = await dump();
    expect(live.core_market_stats!.length).to.be.greaterThan(0);
    for (const projector of projectors) await svc.service.runner.rebuild(projector.name);
    expect(await dump()).to.deep.equal(live);
  });
});
