// The member routes inside the whole service: real authentication (signed keys, sessions), the
// real engine, admin routes for setup, and the member projectors under the service's projection
// runner. Ends with a rebuild of every member projector from zero through that runner, which
// must find the read models identical to the live ones.

import { expect } from 'chai';
import { Big } from '../../../../domain/money/big.ts';
import { MEMBER_PROJECTORS } from '../../../../projections/member/index.ts';
import { startWholeService, type Member, type WholeService } from '../harness.ts';
import { OpenApiChecker } from '../../openapi/openapi.ts';

async function dumpTables(svc: WholeService): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const projector of MEMBER_PROJECTORS) {
    for (const table of projector.tables) {
      const rows = await svc.ctx.pool.query<{ row: unknown }>(`SELECT to_jsonb(t) AS row FROM public.${table} t`);
      out[table] = rows.rows.map((r) => JSON.stringify(r.row)).sort();
    }
  }
  return out;
}

describe('member routes end to end (real auth, engine and runner)', () => {
  let svc: WholeService;
  let maker: Member;
  let taker: Member;
  let marketId: string;
  const caughtUp = async () => svc.service.runner.waitFor(await svc.store.headPosition(), 10_000);

  before(async () => {
    svc = await startWholeService();
    maker = await svc.member('1000');
    taker = await svc.member('1000');
    const market = await svc.market({}, { sport: 'Ice Hockey', competition: 'NHL' });
    marketId = market.market_id;
    const sell = await maker.call('POST', '/api/v1/orders', {
      body: { action: 'sell', market_id: marketId, order_type: 'limit', price: '0.40', quantity: '10' },
    });
    expect(sell.status, sell.text).to.equal(200);
    const buy = await taker.call('POST', '/api/v1/orders', {
      body: { action: 'buy', market_id: marketId, order_type: 'limit', price: '0.40', quantity: '6' },
    });
    expect(buy.status, buy.text).to.equal(200);
    await svc.admin('POST', `/markets/${marketId}/result`, { result: 'win' });
    await svc.admin('POST', `/accounts/${taker.account_id}/withdrawals`, {
      amount: '5',
      method: 'interac',
      reason: 'cash out',
      sub_method: 'Request',
    });
    await svc.admin('POST', `/accounts/${taker.account_id}/adjustments`, { amount: '-1.50', reason: 'correction' });
    await caughtUp();
  });
  after(async () => {
    await svc?.stop();
  });

  it('GET /me: method, scope and key_id follow the credential', async () => {
    const signed = await taker.call('GET', '/api/v1/me');
    expect(signed.status, signed.text).to.equal(200);
    expect(signed.body.me).to.deep.include({
      account_id: taker.account_id,
      user_id: taker.user_id,
      method: 'api_key',
      scope: 'read_write',
      key_id: taker.key.key_id,
      first_name: 'Test',
      last_name: 'Trader',
    });
    const readOnly = await taker.call('GET', '/api/v1/me', { key: taker.readOnlyKey });
    expect(readOnly.body.me).to.deep.include({ scope: 'read_only', key_id: taker.readOnlyKey.key_id });
    const session = await svc.call('GET', '/api/v1/me', { bearer: taker.session });
    expect(session.body.me).to.deep.include({ method: 'bearer', scope: null, key_id: null, leaderboard_opt_in: true });
  });

  it('PATCH /me/profile: a read_only key is refused with 403, a session may always write', async () => {
    const refused = await taker.call('PATCH', '/api/v1/me/profile', {
      key: taker.readOnlyKey,
      body: { handle: 'taker_one' },
    });
    expect(refused.status).to.equal(403);
    const session = await svc.call('PATCH', '/api/v1/me/profile', {
      bearer: taker.session,
      body: { handle: 'Taker_One' },
    });
    expect(session.status, session.text).to.equal(200);
    expect(session.body.me).to.deep.include({ handle: 'taker_one', avatar_url: '/avatars/taker_one.svg' });
    const signed = await maker.call('PATCH', '/api/v1/me/profile', { body: { handle: 'maker_one' } });
    expect(signed.status, signed.text).to.equal(200);
  });

  it('market stats agree with the fills and fees the engine reports', async () => {
    await caughtUp();
    const stats = await taker.call('GET', `/api/v1/account/market_stats?market_ids=${marketId}`);
    expect(stats.status, stats.text).to.equal(200);
    const row = stats.body.market_stats[0];
    const fills = (await taker.call('GET', `/api/v1/fills?market_ids=${marketId}`)).body.fills as Array<
      Record<string, string>
    >;
    const fees = (await taker.call('GET', '/api/v1/portfolio/fees')).body.fees as Array<Record<string, string>>;
    expect(row).to.include({
      account_id: taker.account_id,
      market_id: marketId,
      sport: 'Ice Hockey',
      competition: 'NHL',
      status: 'resulted',
      trade_count: fills.length,
      orders: 1,
      buy_orders: 1,
    });
    expect(new Big(row.contracts_traded).eq(fills.reduce((s, f) => s.plus(f.filled!), new Big(0)))).to.equal(true);
    expect(
      new Big(row.total_fees).eq(
        fees.filter((f) => f.market_id === marketId).reduce((s, f) => s.minus(f.amount!), new Big(0)),
      ),
    ).to.equal(true);
    expect(row.settlements).to.be.at.least(1);
    expect(row.last_settled_at).to.be.a('number');
    expect(new Big(row.total_settlement_pnl).gt(0)).to.equal(true); // the buyer won
  });

  it('ledgers: fees signed by type, withdrawals with method, adjustments', async () => {
    const fees = (await taker.call('GET', '/api/v1/portfolio/fees')).body.fees as Array<{
      type: string;
      amount: string;
    }>;
    expect(fees.length).to.be.at.least(1);
    for (const fee of fees) {
      if (fee.type === 'fee') expect(new Big(fee.amount).lte(0)).to.equal(true);
      else expect(fee.type).to.equal('fee_refund');
      if (fee.type === 'fee_refund') expect(new Big(fee.amount).gte(0)).to.equal(true);
    }
    const withdrawals = (await taker.call('GET', '/api/v1/portfolio/withdrawals')).body.withdrawals;
    expect(withdrawals[0]).to.include({
      type: 'withdrawal',
      method: 'interac',
      reason: 'cash out',
      sub_method: 'Request',
    });
    const adjustments = (await taker.call('GET', '/api/v1/portfolio/adjustments')).body.adjustments;
    expect(adjustments[0]).to.include({ type: 'adjustment' });
    expect(new Big(adjustments[0].amount).eq('-1.5')).to.equal(true);
    expect((await taker.call('GET', '/api/v1/portfolio/loyalty')).status).to.equal(200);
  });

  it('the leaderboard after the operator refresh ranks both traders without account ids', async () => {
    const refreshed = await svc.adminRaw('POST', '/leaderboard/refresh');
    expect(refreshed.status, refreshed.text).to.equal(200);
    const board = await taker.call('GET', '/api/v1/leaderboard?period=all&metric=volume');
    expect(board.status, board.text).to.equal(200);
    expect(board.body.refreshed_at).to.equal(refreshed.body.refreshed_at);
    expect(
      board.body.leaderboard
        .map((r: { handle: string; rank: number; value: string }) => [r.handle, r.rank, r.value])
        .sort(),
    ).to.deep.equal([
      ['maker_one', 1, '6.00'],
      ['taker_one', 1, '6.00'],
    ]);
    expect(JSON.stringify(board.body)).to.not.include(taker.account_id);
    const profit = await taker.call('GET', '/api/v1/leaderboard?period=all&metric=profit');
    expect(profit.body.leaderboard[0].handle).to.equal('taker_one');
    expect(profit.body.leaderboard[0].top_sport_icon_url).to.equal('/icons/sports/ice_hockey.svg');
  });

  it('the OpenAPI document covers the member routes, and every answer matches its documented schema', async () => {
    const doc = (await taker.call('GET', '/api/v1/openapi.json')).body;
    for (const path of [
      '/me',
      '/me/profile',
      '/leaderboard',
      '/account/market_stats',
      '/portfolio/loyalty',
      '/portfolio/withdrawals',
      '/portfolio/fees',
      '/portfolio/adjustments',
    ]) {
      expect(doc.paths, path).to.have.property(`/api/v1${path}`);
    }
    expect(doc.paths).to.have.property('/avatars/{handle}.svg');
    expect(doc.components.schemas).to.include.keys('Me', 'Leaderboard', 'MarketStats', 'FeeEntry');
    const checker = new OpenApiChecker(doc);
    const calls: Array<[string, string, unknown?]> = [
      ['GET', '/api/v1/me'],
      ['PATCH', '/api/v1/me/profile', { avatar: { style: 'grid', palette: 'rose', seed: 'e2e' } }],
      ['PATCH', '/api/v1/me/profile', { handle: '!' }],
      ['GET', '/api/v1/leaderboard?period=all&metric=profit'],
      ['GET', '/api/v1/leaderboard?period=nope'],
      ['GET', `/api/v1/account/market_stats?market_ids=${marketId}`],
      ['GET', '/api/v1/portfolio/loyalty'],
      ['GET', '/api/v1/portfolio/withdrawals'],
      ['GET', '/api/v1/portfolio/fees'],
      ['GET', '/api/v1/portfolio/adjustments'],
    ];
    for (const [method, path, body] of calls) {
      const answer = await taker.call(method, path, body === undefined ? {} : { body });
      checker.check(method, path, answer.status, answer.body);
    }
  });

  it('rebuilding every member projector from zero through the runner gives identical read models', async () => {
    await caughtUp();
    const live = await dumpTables(svc);
    expect(live.member_profiles).to.have.length.greaterThan(0);
    for (const projector of MEMBER_PROJECTORS) await svc.service.runner.rebuild(projector.name);
    expect(await dumpTables(svc)).to.deep.equal(live);
  });
});
