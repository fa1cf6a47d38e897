// GET /leaderboard over HTTP: periods on New York days, the metrics, dense ranks, consent,
// hidden boards, categories, limits, the disabled switch, snapshots and their refresh.

import { expect } from 'chai';
import { startLeaderboardScheduler } from '../../../../projections/member/leaderboard/scheduler.ts';
import { refreshLeaderboards } from '../../../../projections/member/leaderboard/snapshot.ts';
import { listMarket, openAccount, place, scheduleEvent } from '../../../projections/member/fixtures.ts';
import { startMemberService, type MemberService, type Who } from './harness.ts';

const id = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const us = (iso: string) => Date.parse(iso) * 1000;
// Wednesday 18 November 2026, 10:00 in New York
const NOW = us('2026-11-18T15:00:00Z');
const YESTERDAY = us('2026-11-17T15:00:00Z');
const LAST_WEEK = us('2026-11-12T15:00:00Z');

const HOCKEY = id(0xe1);
const SOCCER = id(0xe2);
const M_HOCKEY = id(0xf1);
const M_SOCCER = id(0xf2);
const M_OLD = id(0xf3);

describe('leaderboard over HTTP', () => {
  let svc: MemberService;
  const A = id(0xa1); // us, default consent
  const B = id(0xa2); // us
  const C = id(0xa3); // ca: not listed by default
  const D = id(0xa4); // us, leaves the board
  const E = id(0xa5); // us, small volume
  const Z = id(0xa9); // ca: the other side of trades whose counterparty does not matter here
  const who = (accountId: string): Who => ({ account_id: accountId });
  const get = async (query: string) => svc.call('GET', `/api/v1/leaderboard${query}`, who(A));
  let order = 0;
  /** A sells to B: the seller rests, the buyer takes (no fees: every account here pays none). */
  const trade = (seller: string, buyer: string, marketId: string, contracts: string) => {
    order += 2;
    return [
      place(500 + order, seller, marketId, 'sell', '0.40', contracts),
      place(501 + order, buyer, marketId, 'buy', '0.40', contracts),
    ];
  };

  before(async () => {
    svc = await startMemberService();
    svc.clock.set(NOW);
    await svc.engineStep(
      [A, B, C, D, E, Z].flatMap((accountId) => [
        openAccount(accountId, {
          jurisdiction: accountId === C || accountId === Z ? 'ca' : 'us',
          created_at: LAST_WEEK - 86_400_000_000,
          base_fee_percent: 0,
        }),
        {
          kind: 'Deposit' as const,
          account_id: accountId,
          entry_id: id(0xd00 + Number.parseInt(accountId.slice(-2), 16)),
          amount: '1000',
        },
      ]),
      LAST_WEEK,
    );
    await svc.engineStep(
      [
        scheduleEvent(HOCKEY, { sport: 'Ice Hockey' }),
        scheduleEvent(SOCCER, { sport: 'Soccer', competition: 'EPL' }),
        listMarket(M_HOCKEY, HOCKEY),
        listMarket(M_SOCCER, SOCCER, { max_price: '2.00' }),
        listMarket(M_OLD, SOCCER),
      ],
      LAST_WEEK,
    );
    // last week (outside weekly, inside monthly): D trades a lot
    await svc.engineStep(trade(Z, D, M_OLD, '100'), LAST_WEEK);
    // yesterday: A buys 10 hockey contracts from B; C buys 3 soccer contracts
    await svc.engineStep([...trade(B, A, M_HOCKEY, '10'), ...trade(Z, C, M_SOCCER, '3')], YESTERDAY);
    // today: E buys 4 soccer contracts (max_price 2 → notional 8), 2 of them from A
    await svc.engineStep(
      [
        place(900, A, M_SOCCER, 'sell', '0.40', '2'),
        place(901, Z, M_SOCCER, 'sell', '0.40', '2'),
        place(902, E, M_SOCCER, 'buy', '0.40', '4'),
      ],
      NOW - 60_000_000,
    );
    // the hockey market resolves today: A wins 6, B loses 6
    await svc.engineStep({ kind: 'ResultMarket', market_id: M_HOCKEY, result: 'win' }, NOW - 30_000_000);
    // D leaves the board; A and B choose handles
    await svc.call('PATCH', '/api/v1/me/profile', who(D), { leaderboard_opt_in: false });
    await svc.call('PATCH', '/api/v1/me/profile', who(A), { handle: 'alpha' });
    await svc.call('PATCH', '/api/v1/me/profile', who(B), { handle: 'bravo' });
  });
  after(async () => svc?.stop());

  it('before the first snapshot: shown, no rows, refreshed_at and next_reset_at null', async () => {
    const res = await get('');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({
      period: 'weekly',
      category: 'all',
      metric: 'volume',
      shown: true,
      refreshed_at: null,
      next_reset_at: null,
      leaderboard: [],
    });
  });

  it('refreshLeaderboards builds the snapshot and reports its time', async () => {
    const { refreshed_at } = await refreshLeaderboards(svc.ctx);
    const res = await get('?period=weekly&metric=volume');
    expect(res.body.refreshed_at).to.equal(refreshed_at);
    expect(Date.parse(refreshed_at)).to.be.closeTo(NOW / 1000, 60_000);
  });

  it('weekly volume: notional filled × max_price, opted-in members only, ties share a dense rank, no account ids', async () => {
    const res = await get('?period=weekly&metric=volume');
    expect(res.body.next_reset_at).to.equal('2026-11-23T05:00:00.000Z'); // Monday midnight in New York
    expect(res.body.leaderboard).to.deep.equal([
      {
        rank: 1,
        handle: 'alpha',
        avatar_url: '/avatars/alpha.svg',
        top_sport: 'ice_hockey',
        top_sport_icon_url: '/icons/sports/ice_hockey.svg',
        value: '14.00',
      },
      {
        rank: 2,
        handle: 'bravo',
        avatar_url: '/avatars/bravo.svg',
        top_sport: 'ice_hockey',
        top_sport_icon_url: '/icons/sports/ice_hockey.svg',
        value: '10.00',
      },
      {
        rank: 3,
        handle: res.body.leaderboard[2].handle,
        avatar_url: res.body.leaderboard[2].avatar_url,
        top_sport: 'soccer',
        top_sport_icon_url: '/icons/sports/soccer.svg',
        value: '8.00',
      },
    ]);
    const text = JSON.stringify(res.body);
    for (const accountId of [A, B, C, D, E]) expect(text).to.not.include(accountId);
  });

  it('periods follow New York calendar days: daily excludes yesterday, monthly includes last week, all has no reset', async () => {
    const daily = await get('?period=daily&metric=volume');
    expect(daily.body.next_reset_at).to.equal('2026-11-19T05:00:00.000Z');
    expect(daily.body.leaderboard.map((r: { value: string }) => r.value)).to.deep.equal(['8.00', '4.00']);
    const monthly = await get('?period=monthly&metric=volume');
    expect(monthly.body.next_reset_at).to.equal('2026-12-01T05:00:00.000Z');
    const all = await get('?period=all&metric=volume');
    expect(all.body.next_reset_at).to.equal(null);
    expect(all.body.leaderboard).to.have.length(3); // D's large volume stays off: D left
  });

  it('ties share a rank and the next value takes the next integer', async () => {
    await svc.call('PATCH', '/api/v1/me/profile', who(C), { leaderboard_opt_in: true });
    // C (3 soccer contracts × 2 = 6) and … profit board: A +6, B −6; markets board: A and B tie at 1
    const markets = await get('?period=weekly&metric=markets');
    expect(markets.body.leaderboard.map((r: { rank: number; value: number }) => [r.rank, r.value])).to.deep.equal([
      [1, 1],
      [1, 1],
    ]);
    const volume = await get('?period=weekly&metric=volume');
    expect(volume.body.leaderboard.map((r: { rank: number }) => r.rank)).to.deep.equal([1, 2, 3, 4]);
    await svc.call('PATCH', '/api/v1/me/profile', who(C), { leaderboard_opt_in: false });
  });

  it('computes profit, win rate, biggest win, return, predictions and streak', async () => {
    const values = async (metric: string) =>
      (await get(`?period=weekly&metric=${metric}`)).body.leaderboard.map((r: { handle: string; value: unknown }) => [
        r.handle,
        r.value,
      ]);
    expect(await values('profit')).to.deep.equal([
      ['alpha', '6.00'],
      ['bravo', '-6.00'],
    ]);
    expect(await values('win_rate')).to.deep.equal([
      ['alpha', 1],
      ['bravo', 0],
    ]);
    expect(await values('biggest_win')).to.deep.equal([['alpha', '6.00']]);
    expect(await values('predictions')).to.deep.equal([
      ['alpha', 10],
      ['bravo', 10],
    ]);
    expect(await values('streak')).to.deep.equal([
      ['alpha', 1],
      ['bravo', 0],
    ]);
    const ret = await values('return');
    expect(ret[0]).to.deep.equal(['alpha', Number((6 / 14).toFixed(6))]);
  });

  it('categories: a sport key board counts that sport only; unknown keys are empty; keys are case-insensitive', async () => {
    const hockey = await get('?category=ice_hockey&metric=volume');
    expect(hockey.body.category).to.equal('ice_hockey');
    expect(hockey.body.leaderboard.map((r: { value: string }) => r.value)).to.deep.equal(['10.00', '10.00']);
    expect(hockey.body.leaderboard.map((r: { rank: number }) => r.rank)).to.deep.equal([1, 1]);
    expect((await get('?category=ICE_HOCKEY&metric=volume')).body.leaderboard).to.have.length(2);
    const unknown = await get('?category=curling');
    expect(unknown.status).to.equal(200);
    expect(unknown.body.leaderboard).to.deep.equal([]);
  });

  it('limit: default 100, clamped, junk is 400', async () => {
    expect((await get('?limit=1')).body.leaderboard).to.have.length(1);
    expect((await get('?limit=100000')).body.leaderboard).to.have.length(3);
    expect((await get('?limit=abc')).status).to.equal(400);
  });

  it('unknown period or metric is 400', async () => {
    expect((await get('?period=hourly')).status).to.equal(400);
    expect((await get('?metric=luck')).status).to.equal(400);
  });

  it('a board hidden in the settings is shown:false with no rows', async () => {
    await svc.ctx.settings.update({
      leaderboard_boards: [
        { period: 'weekly', category: 'all', metric: 'profit', shown: false },
        { period: 'daily', category: 'all', metric: 'markets', shown: true },
      ],
    });
    const hidden = await get('?period=weekly&metric=profit');
    expect(hidden.status).to.equal(200);
    expect(hidden.body).to.deep.include({ shown: false, leaderboard: [] });
    expect((await get('?period=weekly&metric=volume')).body.shown).to.equal(true);
    // the board the service opens on for a period is the first shown board configured for it
    expect((await get('?period=daily')).body.metric).to.equal('markets');
    await svc.ctx.settings.update({ leaderboard_boards: [] });
  });

  it('leaving shows at once; rejoining restores the standing', async () => {
    await svc.call('PATCH', '/api/v1/me/profile', who(B), { leaderboard_opt_in: false });
    expect((await get('?metric=volume')).body.leaderboard.map((r: { handle: string }) => r.handle)).to.not.include(
      'bravo',
    );
    await svc.call('PATCH', '/api/v1/me/profile', who(B), { leaderboard_opt_in: true });
    const back = (await get('?metric=volume')).body.leaderboard.find((r: { handle: string }) => r.handle === 'bravo');
    expect(back).to.deep.include({ rank: 2, value: '10.00' });
  });

  it('404 Leaderboard is not enabled when switched off', async () => {
    await svc.ctx.settings.update({ leaderboard_enabled: false });
    const res = await get('');
    expect(res).to.deep.include({ status: 404, body: { error: 'Leaderboard is not enabled' } });
    await svc.ctx.settings.update({ leaderboard_enabled: true });
  });

  it('a period boundary passing on the service clock resets the board at once', async () => {
    const before = await get('?period=daily&metric=volume');
    expect(before.body.leaderboard).to.not.deep.equal([]);
    svc.clock.set(us('2026-11-19T05:00:01Z')); // just past midnight in New York
    const after = await get('?period=daily&metric=volume');
    expect(after.body.leaderboard).to.deep.equal([]);
    expect(after.body.next_reset_at).to.equal('2026-11-20T05:00:00.000Z');
    expect(Date.parse(after.body.refreshed_at)).to.be.greaterThan(Date.parse(before.body.refreshed_at));
    svc.clock.set(NOW);
    await refreshLeaderboards(svc.ctx);
  });

  it('the scheduler rebuilds on its own and stops cleanly', async () => {
    svc.clock.advance(120_000); // older than the schedule's interval
    const stale = (await get('')).body.refreshed_at;
    const scheduler = startLeaderboardScheduler(svc.ctx, { checkIntervalMs: 20 });
    const deadline = Date.now() + 5_000;
    while ((await get('')).body.refreshed_at === stale && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    await scheduler.stop();
    expect((await get('')).body.refreshed_at).to.not.equal(stale);
  });
});
