// Markets read model against GET /markets: tiered default ordering, `suspended`
// rendering while filters match the stored status, every filter, market_ids overriding the
// rest, sort_by event_start, stable keyset paging, and the Market object's derived fields
// (book levels, recent trades, volumes, 24h change, open interest, probability, home_category).

import { expect } from 'chai';
import type { EngineInput, MarketFields } from '../../../domain/engine/inputs.ts';
import { getMarket, listMarkets, type MarketFilters } from '../../../projections/core/queries/markets.ts';
import { listMarketTrades } from '../../../projections/core/queries/trades.ts';
import {
  cancel,
  deposit,
  Desk,
  HOUR_US,
  listMarket,
  openAccount,
  place,
  projectedDatabase,
  scheduleEvent,
  T0,
  type ProjectedDb,
} from './fixtures.ts';

const NOW = T0 + HOUR_US;

describe('core read models: markets', () => {
  describe('listing', () => {
    let p: ProjectedDb;
    const desk = new Desk();
    // events starting at different times; sports and competitions with mixed case
    const soon = scheduleEvent({ start: T0 + 2 * HOUR_US, sport: 'Football', competition: 'NFL' });
    const later = scheduleEvent({ start: T0 + 10 * HOUR_US, sport: 'Basketball', competition: 'NBA' });
    const latest = scheduleEvent({ start: T0 + 20 * HOUR_US, sport: 'football', competition: 'NCAAF' });
    const ms: Record<string, MarketFields & { input: EngineInput }> = {
      openLater: listMarket(later.event_id, { status: 'open', trading: true }),
      openSoon: listMarket(soon.event_id, { status: 'open', trading: true }),
      preOpen: listMarket(soon.event_id, { status: 'pre_open', trading: true }),
      halted: listMarket(later.event_id, { status: 'open', trading: false }),
      haltedPre: listMarket(soon.event_id, { status: 'pre_open', trading: false }),
      scheduled: listMarket(latest.event_id, { status: 'scheduled', trading: true }),
      closed: listMarket(soon.event_id, { status: 'closed', trading: false }),
      cancelled: listMarket(later.event_id, { status: 'open', trading: false }),
      resulted: listMarket(soon.event_id, { status: 'closed', trading: false }),
      voided: listMarket(latest.event_id, { status: 'closed', trading: false }),
    };
    const idOf = (name: string): string => ms[name]!.market_id;
    const list = async (filters: MarketFilters = {}, limit = 100) =>
      (await listMarkets(p.db.pool, filters, { limit }, NOW)).markets;

    before(async () => {
      p = await projectedDatabase();
      await p.project(desk.record([soon, later, latest].map((event) => event.input)));
      await p.project(desk.record(Object.values(ms).map((m) => m.input)));
      await p.project(
        desk.record([
          { kind: 'ChangeMarketStatus', market_id: idOf('cancelled'), status: 'cancelled' },
          { kind: 'ResultMarket', market_id: idOf('resulted'), result: 'win' },
          { kind: 'ResultMarket', market_id: idOf('voided'), result: 'void' },
        ]),
      );
    });
    after(async () => p.db.drop());

    it('orders tradeable first, then by tier, soonest event first within a tier', async () => {
      const ids = (await list()).map((m) => m.market_id);
      const tiers = [
        ['openSoon', 'openLater'],
        ['preOpen'],
        ['haltedPre', 'halted'],
        ['scheduled'],
        ['closed', 'cancelled'],
        ['resulted', 'voided'],
      ];
      expect(ids).to.deep.equal(tiers.flat().map(idOf));
    });

    it('renders `suspended` for halted open/pre_open markets while status=open still matches them', async () => {
      const all = await list();
      expect(all.find((m) => m.market_id === idOf('halted'))?.status).to.equal('suspended');
      expect(all.find((m) => m.market_id === idOf('haltedPre'))?.status).to.equal('suspended');
      expect(all.find((m) => m.market_id === idOf('closed'))?.status).to.equal('closed');
      const open = await list({ statuses: ['open'] });
      expect(open.map((m) => m.market_id).sort()).to.deep.equal(
        [idOf('openSoon'), idOf('openLater'), idOf('halted')].sort(),
      );
      const preOpen = await list({ statuses: ['pre_open'] });
      expect(preOpen.map((m) => m.status)).to.deep.equal(['pre_open', 'suspended']);
    });

    it('renders `trading` as accepting orders right now: only open or pre_open markets that are not halted', async () => {
      const all = await list();
      const accepting = all
        .filter((m) => m.trading)
        .map((m) => m.market_id)
        .sort();
      expect(accepting).to.deep.equal(['openSoon', 'openLater', 'preOpen'].map(idOf).sort());
      // a scheduled market whose halt flag is off still accepts no orders
      expect(all.find((m) => m.market_id === idOf('scheduled'))?.trading).to.equal(false);
    });

    it('filters on trading, event ids, sports and competitions (case-insensitive), combined', async () => {
      const trading = await list({ trading: true });
      expect(trading.every((m) => m.trading)).to.equal(true);
      expect(trading.map((m) => m.market_id)).to.deep.equal(['openSoon', 'openLater', 'preOpen'].map(idOf));
      const notTrading = await list({ trading: false });
      expect(notTrading.every((m) => !m.trading)).to.equal(true);
      expect(notTrading).to.have.length(7);

      const football = await list({ sports: ['FOOTBALL'] });
      expect(football.every((m) => m.sport?.toLowerCase() === 'football')).to.equal(true);
      expect(football).to.have.length(7);
      const nba = await list({ competitions: ['nba'] });
      expect(nba.map((m) => m.market_id).sort()).to.deep.equal(['openLater', 'halted', 'cancelled'].map(idOf).sort());
      const byEvent = await list({ eventIds: [later.event_id], statuses: ['open'], trading: true });
      expect(byEvent.map((m) => m.market_id)).to.deep.equal([idOf('openLater')]);
    });

    it('market_ids returns exactly those markets, unpaginated, ignoring every other filter', async () => {
      const wanted = [idOf('voided'), idOf('openSoon'), idOf('closed'), 'unknown-market'];
      const page = await listMarkets(
        p.db.pool,
        { marketIds: wanted, statuses: ['scheduled'], trading: true, sports: ['curling'] },
        { limit: 1 },
        NOW,
      );
      expect(page.cursor).to.equal(null);
      expect(page.markets.map((m) => m.market_id).sort()).to.deep.equal(wanted.slice(0, 3).sort());
    });

    it('sort_by event_start replaces the tiers, ascending or descending', async () => {
      const asc = await list({ sortBy: { name: 'event_start', direction: 'asc' } });
      const starts = asc.map((m) => Date.parse(m.event_start as string));
      expect(starts).to.deep.equal([...starts].sort((a, b) => a - b));
      const desc = await list({ sortBy: { name: 'event_start', direction: 'desc' } });
      expect(desc.map((m) => m.market_id)).to.deep.equal(asc.map((m) => m.market_id).reverse());
    });

    it('pages with a cursor without duplicates or skips while markets are listed between pages', async () => {
      let newcomers = 0;
      for (const sortBy of [undefined, { name: 'event_start' as const, direction: 'desc' as const }]) {
        const expected = (await list({ sortBy })).map((m) => m.market_id);
        const seen: string[] = [];
        let cursor: string | null = null;
        let guard = 0;
        do {
          const page = await listMarkets(p.db.pool, { sortBy }, { limit: 3, cursor }, NOW);
          seen.push(...page.markets.map((m) => m.market_id));
          cursor = page.cursor;
          // a new market on an event far in the past sorts before everything already read
          newcomers += 1;
          const early = scheduleEvent({ start: T0 - 1000 * HOUR_US - newcomers });
          await p.project(desk.record([early.input, listMarket(early.event_id, { status: 'open' }).input]));
          guard += 1;
        } while (cursor !== null && guard < 20);
        if (sortBy) {
          // descending: earlier-starting newcomers belong after the pages already read: they may appear at the end only
          expect(seen.slice(0, expected.length)).to.deep.equal(expected);
        } else {
          expect(seen).to.deep.equal(expected);
        }
      }
    });
  });

  describe('the Market object', () => {
    let p: ProjectedDb;
    const desk = new Desk();
    const maker = openAccount();
    const taker = openAccount();
    const event = scheduleEvent({
      start: NOW + 3 * HOUR_US,
      title: 'Lions at Bears',
      short_title: 'DET @ CHI',
      participants: ['Lions', 'Bears'],
    });
    const m = listMarket(event.event_id, {
      status: 'open',
      trading: true,
      max_price: '1.00',
      grouping_name: 'Moneyline',
      rules: 'Official result.',
    });
    const tape = listMarket(event.event_id);
    let listedAt = 0;
    const run = async (input: Parameters<Desk['record']>[0], at?: number) =>
      p.project(desk.record(input, at === undefined ? undefined : { nowUs: at }));

    before(async () => {
      p = await projectedDatabase();
      await run([maker.input, taker.input, deposit(maker.account_id, '100000'), deposit(taker.account_id, '100000')]);
      await run([event.input, m.input, tape.input]);
      listedAt = desk.nowUs - 1000; // m was the record's second step, tape its third
    });
    after(async () => p.db.drop());

    it('carries every documented field with the event fields joined in and constants where nothing feeds them', async () => {
      const wire = (await getMarket(p.db.pool, m.market_id, NOW)) as unknown as Record<string, unknown>;
      for (const field of [
        'market_id',
        'event_id',
        'status',
        'trading',
        'archived',
        'featured',
        'featured_home',
        'manual_probability',
        'price',
        'last_traded_price',
        'max_price',
        'probability',
        'price_change24h',
        'open_interest',
        'total_volume',
        'volume24h',
        'bids',
        'offers',
        'recent_trades',
        'participants',
        'filters',
        'trading_filters',
        'keywords',
        'title',
        'short_title',
        'group_title',
        'description',
        'question',
        'rules',
        'specifier',
        'symbol',
        'position',
        'result',
        'powered_by',
        'competition',
        'sport',
        'event_title',
        'event_short_title',
        'event_type',
        'event_status',
        'event_start',
        'home_category',
        'grouping_id',
        'grouping_name',
        'in_play_delay_sec',
        'points_cost',
        'last_probability_at',
        'settled_at',
        'timestamp',
        'timestamp_int',
        'stat_detail',
      ]) {
        expect(wire, field).to.have.property(field);
      }
      expect(wire).to.not.have.property('seq');
      expect(wire).to.include({
        status: 'open',
        archived: false,
        featured_home: false,
        manual_probability: false,
        price: null,
        probability: null,
        total_volume: '0',
        volume24h: '0',
        open_interest: '0',
        price_change24h: 0,
        event_title: 'Lions at Bears',
        event_short_title: 'DET @ CHI',
        event_status: 'scheduled',
        sport: 'Football',
        competition: 'NFL',
        group_title: 'Moneyline',
        description: 'Official result.',
        home_category: 'Upcoming',
        timestamp_int: listedAt,
        stat_detail: null,
      });
      expect(wire.participants).to.deep.equal(['Lions', 'Bears']);
      expect(wire.keywords).to.deep.equal([]);
      expect(wire.event_start).to.equal(new Date(event.start / 1000).toISOString());
      expect(wire.timestamp).to.equal(new Date(NOW / 1000).toISOString());
    });

    it('aggregates resting orders into price levels: bids price descending, offers price descending with the best last', async () => {
      const bids = [
        place(maker.account_id, m.market_id, 'buy', '0.40', '5'),
        place(maker.account_id, m.market_id, 'buy', '0.40', '2.5'),
        place(maker.account_id, m.market_id, 'buy', '0.45', '1'),
      ];
      const offers = [
        place(maker.account_id, m.market_id, 'sell', '0.55', '3'),
        place(maker.account_id, m.market_id, 'sell', '0.60', '7'),
      ];
      // not resting: rejected (more than the account holds), and a cancelled one
      const poor = openAccount();
      const cancelled = place(taker.account_id, m.market_id, 'buy', '0.35', '2');
      await run([
        poor.input,
        place(poor.account_id, m.market_id, 'buy', '0.43', '1').input,
        cancelled.input,
        cancel(taker.account_id, cancelled.id),
      ]);
      await run([...bids, ...offers].map((o) => o.input));
      const wire = await getMarket(p.db.pool, m.market_id, NOW);
      expect(wire?.bids).to.deep.equal([
        { price: '0.45', quantity: '1' },
        { price: '0.40', quantity: '7.5' },
      ]);
      expect(wire?.offers).to.deep.equal([
        { price: '0.60', quantity: '7' },
        { price: '0.55', quantity: '3' },
      ]);
      expect(wire?.price).to.equal('0.5'); // mid of 0.45 and 0.55 before any trade
      expect(wire?.probability).to.equal(0.5);

      // a sell of 3 takes the best bid whole and 2 of the oldest 0.40; a cancel removes the other
      await run([
        place(taker.account_id, m.market_id, 'sell', '0.40', '3').input,
        cancel(maker.account_id, bids[1]!.id),
      ]);
      const after = await getMarket(p.db.pool, m.market_id, NOW);
      expect(after?.bids).to.deep.equal([{ price: '0.40', quantity: '3' }]);
      expect(after?.last_traded_price).to.equal('0.40');
    });

    it('keeps the tape: recent trades newest first (15 at most), total and 24h volume, price change, last probability time', async () => {
      // one trade 30 hours ago at 0.50 (outside the 24h window), then 16 trades inside it ending at 0.60
      await run(
        [
          place(maker.account_id, tape.market_id, 'sell', '0.50', '10').input,
          place(taker.account_id, tape.market_id, 'buy', '0.50', '10').input,
        ],
        NOW - 30 * HOUR_US,
      );
      const [old] = desk.trades;
      const recent: string[] = [];
      for (let i = 0; i < 16; i++) {
        const price = i === 15 ? '0.60' : '0.55';
        await run(
          [
            place(maker.account_id, tape.market_id, 'sell', price, '1').input,
            place(taker.account_id, tape.market_id, 'buy', price, '1').input,
          ],
          NOW - (16 - i) * 60_000_000,
        );
        recent.push(desk.trades[0]!.trade_id);
      }

      const wire = await getMarket(p.db.pool, tape.market_id, NOW);
      expect(wire?.recent_trades).to.have.length(15);
      expect(wire?.recent_trades[0]).to.deep.equal({
        trade_id: recent[15],
        price: '0.60',
        quantity: '1',
        time: new Date(Math.floor((NOW - 60_000_000) / 1000)).toISOString(),
      });
      expect(wire?.recent_trades.map((t) => t.trade_id)).to.deep.equal(recent.slice(1).reverse());
      expect(wire?.total_volume).to.equal('26');
      expect(wire?.volume24h).to.equal('16');
      expect(wire?.last_traded_price).to.equal('0.60');
      expect(wire?.price).to.equal('0.60');
      expect(wire?.probability).to.equal(0.6);
      expect(wire?.price_change24h).to.equal(20); // 0.50 → 0.60
      expect(wire?.last_probability_at).to.equal(NOW - 60_000_000);

      const page = await listMarketTrades(p.db.pool, tape.market_id, { limit: 5 });
      expect(page.trades.map((t) => t.trade_id)).to.deep.equal(recent.slice(11).reverse());
      expect(page.cursor).to.not.equal(null);
      expect(old).to.not.equal(undefined);
    });

    it('counts open interest from long positions', async () => {
      expect((await getMarket(p.db.pool, tape.market_id, NOW))?.open_interest).to.equal('26');
    });

    it('is Live once its event is in progress and it is open; not once it is closed; suspended when halted', async () => {
      await run({ kind: 'StartSportEvent', event_id: event.event_id }, NOW);
      let wire = await getMarket(p.db.pool, m.market_id, NOW);
      expect(wire?.home_category).to.equal('Live');
      expect(wire?.event_status).to.equal('in_progress');
      await run({ kind: 'ChangeMarketStatus', market_id: m.market_id, trading: false });
      wire = await getMarket(p.db.pool, m.market_id, NOW);
      expect(wire?.status).to.equal('suspended');
      expect(wire?.trading).to.equal(false);
      await run({ kind: 'ResultMarket', market_id: m.market_id, result: 'win' });
      const settledAt = desk.nowUs;
      wire = await getMarket(p.db.pool, m.market_id, NOW);
      expect(wire).to.include({
        status: 'resulted',
        home_category: null,
        result: 'win',
        settled_at: settledAt,
        powered_by: 'operator',
      });
    });

    it('announces changes with routing keys and the wire docs', async () => {
      const o = place(maker.account_id, tape.market_id, 'buy', '0.20', '1');
      const changes = await run(o.input);
      const orderChange = changes.find((c) => c.kind === 'order');
      expect(orderChange?.keys).to.deep.equal({
        account_id: maker.account_id,
        user_id: maker.user_id,
        market_id: tape.market_id,
      });
      expect(orderChange?.doc).to.not.have.property('seq');
      expect(changes.find((c) => c.kind === 'balance')?.keys).to.deep.equal({
        account_id: maker.account_id,
        user_id: maker.user_id,
      });
      const marketChange = changes.find((c) => c.kind === 'market');
      expect(marketChange?.keys).to.deep.equal({ market_id: tape.market_id });
      expect((marketChange?.doc as { bids: Array<{ price: string }> }).bids.map((b) => b.price)).to.include('0.20');
    });
  });
});
