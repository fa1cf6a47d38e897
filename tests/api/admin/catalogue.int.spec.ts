// The market catalogue over HTTP against the whole service (docs/OPERATOR.md "Answers",
// the Market object and the account market stats object): the operator's
// catalogue fields on POST and PATCH /admin/v1/markets rendered as set by GET /api/v1/markets,
// changes to events, symbol uniqueness, clear 400s, archiving (out of the default list, still
// by market_ids, archived_at and null live-index fields on every account's market stats), and
// read models rebuilt from zero equal to the live ones after all of it.

import { expect } from 'chai';
import { CORE_TABLES } from '../../../projections/core/schema.ts';
import { MEMBER_PROJECTORS } from '../../../projections/member/index.ts';
import { OpenApiChecker } from '../openapi/openapi.ts';
import { useServiceClient, type ApiKeyCredentials } from './http.ts';

type Json = Record<string, any>;

const UNKNOWN_ID = '0b5f2a8e-1111-4222-8333-444455556666';
const IN_A_DAY = () => new Date(Date.now() + 86_400_000).toISOString();

describe('market catalogue and archiving over HTTP', function () {
  this.timeout(120_000);
  const suite = useServiceClient();
  let reader: ApiKeyCredentials;
  let checker: OpenApiChecker;

  before(async () => {
    await suite.client.ok('GET', '/clock'); // learn the service time for signing
    const account = (await suite.client.ok('POST', '/accounts', {})).account;
    reader = (await suite.client.ok('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_only' }))
      .api_key;
    checker = new OpenApiChecker((await suite.client.raw('GET', '/api/v1/openapi.json', {})).body);
  });

  async function newEvent(body: Json = {}): Promise<Json> {
    return (
      await suite.client.ok('POST', '/events', {
        title: 'Home v Away',
        start: IN_A_DAY(),
        sport: 'Soccer',
        competition: 'EPL',
        participants: ['Home', 'Away'],
        ...body,
      })
    ).event;
  }
  async function newMarket(body: Json = {}): Promise<Json> {
    const eventId = body.event_id ?? (await newEvent()).event_id;
    return (
      await suite.client.ok('POST', '/markets', { title: 'Home to win', status: 'open', ...body, event_id: eventId })
    ).market;
  }
  /** The market as GET /api/v1/markets?market_ids= shows it to a member (checked against the OpenAPI document). */
  async function listed(marketId: string): Promise<Json> {
    const path = `/markets?market_ids=${marketId}`;
    const answer = await suite.client.signed(reader, 'GET', path);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    checker.check('GET', `/api/v1${path}`, answer.status, answer.body);
    expect(answer.body.markets).to.have.length(1);
    return answer.body.markets[0];
  }
  async function defaultList(query = ''): Promise<string[]> {
    const path = `/markets?limit=200${query}`;
    const answer = await suite.client.signed(reader, 'GET', path);
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    checker.check('GET', `/api/v1${path}`, answer.status, answer.body);
    return answer.body.markets.map((m: Json) => m.market_id);
  }
  async function caughtUp(): Promise<void> {
    await suite.service.service.runner.waitFor(await suite.service.ctx.store.headPosition(), 10_000);
  }

  const CATALOGUE = {
    filters: ['soccer', 'epl', 'match-result'],
    trading_filters: ['in-play', 'popular'],
    keywords: ['derby', 'london'],
    participants: ['Home FC'],
    specifier: 'total=2.5',
    position: '1',
    description: 'Settles on the 90-minute result.',
    group_title: 'Match result',
    powered_by: 'Opta',
    stat_detail: { stat: 'goals', line: 2.5, players: ['Kane', 'Son'], nested: { home: true } },
    featured_home: true,
    manual_probability: true,
  };

  describe('catalogue fields', () => {
    it('POST /markets takes every catalogue field; the admin answer and GET /api/v1/markets render them as set', async () => {
      const market = await newMarket({
        ...CATALOGUE,
        symbol: `CAT-${Date.now()}`,
        question: 'Will Home win?',
        rules: 'Official result.',
      });
      expect(market).to.deep.include(CATALOGUE);
      expect(market.archived).to.equal(false);
      const shown = await listed(market.market_id);
      expect(shown).to.deep.include({
        ...CATALOGUE,
        archived: false,
        question: 'Will Home win?',
        rules: 'Official result.',
        symbol: market.symbol,
      });
      for (const list of ['filters', 'trading_filters', 'keywords', 'participants']) {
        for (const item of shown[list]) expect(item, list).to.be.a('string');
      }
    });

    it("a market listed without them: empty lists, the event's participants, group_title from grouping_name, description from rules", async () => {
      const market = await newMarket({ grouping_name: 'Moneyline', rules: 'Official result.' });
      expect(await listed(market.market_id)).to.deep.include({
        filters: [],
        trading_filters: [],
        keywords: [],
        participants: ['Home', 'Away'],
        specifier: null,
        position: null,
        group_title: 'Moneyline',
        description: 'Official result.',
        powered_by: null,
        stat_detail: null,
        featured_home: false,
        manual_probability: false,
        archived: false,
      });
    });

    it("PATCH /markets/{id} changes the fields given and leaves the rest; null clears a text, participants null goes back to the event's", async () => {
      const market = await newMarket(CATALOGUE);
      // the fields that read back as they were sent
      const asSent = {
        title: 'Home win',
        short_title: 'HOME',
        featured: true,
        in_play_delay_sec: 7,
        points_cost: 3,
        question: 'Home?',
        rules: 'Rules.',
        grouping_name: 'Result',
      };
      const patched = (
        await suite.client.ok('PATCH', `/markets/${market.market_id}`, {
          keywords: ['cup'],
          description: null,
          stat_detail: null,
          participants: null,
          ...asSent,
          featured_home: false,
        })
      ).market;
      expect(patched).to.deep.include({
        keywords: ['cup'],
        description: 'Rules.',
        stat_detail: null,
        participants: ['Home', 'Away'],
        title: 'Home win',
      });
      expect(await listed(market.market_id)).to.deep.include({
        ...CATALOGUE,
        keywords: ['cup'],
        description: 'Rules.',
        stat_detail: null,
        participants: ['Home', 'Away'],
        featured_home: false,
        ...asSent,
      });

      const again = (
        await suite.client.ok('PATCH', `/markets/${market.market_id}`, {
          stat_detail: [1, 'two', { three: 3 }],
          specifier: null,
          filters: [],
        })
      ).market;
      expect(again).to.deep.include({
        stat_detail: [1, 'two', { three: 3 }],
        specifier: null,
        filters: [],
        keywords: ['cup'],
      });
      // the very same values again change nothing and still answer the market
      const same = await suite.client.admin('PATCH', `/markets/${market.market_id}`, {
        filters: [],
        keywords: ['cup'],
      });
      expect(same.status).to.equal(200);
      expect(same.body.market).to.deep.include({ market_id: market.market_id, keywords: ['cup'], title: 'Home win' });
    });

    it("PATCH /markets/{id} with status or trading follows the status route's rules", async () => {
      const market = await newMarket({ status: 'scheduled' });
      const path = `/markets/${market.market_id}`;
      expect((await suite.client.ok('PATCH', path, { status: 'open', keywords: ['live'] })).market).to.deep.include({
        status: 'open',
        trading: true,
        keywords: ['live'],
      });
      expect((await suite.client.ok('PATCH', path, { trading: false })).market).to.include({
        status: 'suspended',
        trading: false,
        halted: true,
      });
      expect((await suite.client.ok('PATCH', path, { trading: true })).market).to.include({
        status: 'open',
        trading: true,
      });
      await suite.client.ok('POST', `${path}/result`, { result: 'win' });
      const settled = await suite.client.admin('PATCH', path, { status: 'open', keywords: ['never'] });
      expect(settled).to.deep.equal({ status: 422, body: { error: 'Market is already settled' } });
      expect((await listed(market.market_id)).keywords).to.deep.equal(['live']); // a refused change changes nothing
      // catalogue fields of a settled market may still change; powered_by names the resulting provider
      expect((await suite.client.ok('PATCH', path, { powered_by: 'Sportradar' })).market).to.include({
        status: 'resulted',
        powered_by: 'Sportradar',
      });
    });

    it('a symbol change keeps symbols unique (422), and a symbol given up is free again', async () => {
      const stamp = Date.now();
      const [x, y] = [`X-${stamp}`, `Y-${stamp}`];
      const a = await newMarket({ symbol: x });
      const b = await newMarket({ symbol: y });
      const taken = await suite.client.admin('PATCH', `/markets/${b.market_id}`, { symbol: x });
      expect(taken).to.deep.equal({ status: 422, body: { error: `symbol ${x} is already used by another market` } });
      expect((await listed(b.market_id)).symbol).to.equal(y);
      expect((await suite.client.ok('PATCH', `/markets/${a.market_id}`, { symbol: x })).market.symbol).to.equal(x); // its own symbol again
      expect(
        (await suite.client.ok('PATCH', `/markets/${a.market_id}`, { symbol: `Z-${stamp}` })).market.symbol,
      ).to.equal(`Z-${stamp}`);
      expect((await suite.client.ok('PATCH', `/markets/${b.market_id}`, { symbol: x })).market.symbol).to.equal(x);
      expect(
        (await suite.client.admin('POST', '/markets', { event_id: a.event_id, title: 'Clash', symbol: x })).status,
      ).to.equal(422);
      expect((await suite.client.ok('PATCH', `/markets/${b.market_id}`, { symbol: null })).market.symbol).to.equal(
        null,
      );
      expect(
        (await suite.client.ok('POST', '/markets', { event_id: a.event_id, title: 'Now free', symbol: x })).market
          .symbol,
      ).to.equal(x);
    });

    it('clear 400s for malformed fields, 404 for an unknown market; nothing changes', async () => {
      const market = await newMarket({ keywords: ['kept'] });
      const path = `/markets/${market.market_id}`;
      const cases: Array<[Json, string]> = [
        [{}, 'body must contain at least one field'],
        [{ filters: 'soccer' }, 'filters must be an array'],
        [{ trading_filters: null }, 'trading_filters must be an array'],
        [{ keywords: ['ok', 5] }, 'keywords[1] must be a string'],
        [{ participants: 'Home' }, 'participants must be an array or null'],
        [{ filters: Array.from({ length: 101 }, (_, i) => `f${i}`) }, 'filters must NOT have more than 100 items'],
        [{ keywords: ['x'.repeat(501)] }, 'keywords[0] must NOT have more than 500 characters'],
        [{ featured_home: 'yes' }, 'featured_home must be a boolean'],
        [{ manual_probability: 1 }, 'manual_probability must be a boolean'],
        [{ archived: 'true' }, 'archived must be a boolean'],
        [{ specifier: 2.5 }, 'specifier must be a string or null'],
        [{ title: '' }, 'title must not be empty'],
        [{ status: 'resulted' }, 'status must be one of scheduled, pre_open, open, closed, cancelled'],
        [{ stat_detail: { text: 'x'.repeat(20_001) } }, 'stat_detail must be at most 20000 characters of JSON'],
        [{ event_id: UNKNOWN_ID }, "event_id cannot be changed: it is fixed for the market's life"],
        [{ max_price: '2.00' }, "max_price cannot be changed: it is fixed for the market's life"],
        [{ grouping_id: 'another-group' }, "grouping_id cannot be changed: it is fixed for the market's life"],
        [{ grouping_id: null }, "grouping_id cannot be changed: it is fixed for the market's life"],
      ];
      for (const [body, error] of cases) {
        expect(await suite.client.admin('PATCH', path, body), JSON.stringify(body).slice(0, 80)).to.deep.equal({
          status: 400,
          body: { error },
        });
      }
      // the market's own fixed values may be sent back unchanged
      expect(
        (
          await suite.client.admin('PATCH', path, {
            event_id: market.event_id,
            max_price: '1.00',
            grouping_id: market.grouping_id,
            keywords: ['kept'],
          })
        ).status,
      ).to.equal(200);
      expect(
        (await suite.client.admin('POST', '/markets', { event_id: market.event_id, title: 'Bad', filters: [1] })).body,
      ).to.deep.equal({ error: 'filters[0] must be a string' });
      expect((await suite.client.admin('PATCH', `/markets/${UNKNOWN_ID}`, { keywords: [] })).status).to.equal(404);
      expect((await suite.client.admin('PATCH', '/markets/not-a-uuid', { keywords: [] })).status).to.equal(404);
      expect((await listed(market.market_id)).keywords).to.deep.equal(['kept']);
    });
  });

  describe('events', () => {
    it('PATCH /events/{id} changes the event; its markets show the new title, sport, competition, start and participants', async () => {
      const event = await newEvent();
      const market = await newMarket({ event_id: event.event_id });
      const own = await newMarket({ event_id: event.event_id, participants: ['Own'] });
      const start = new Date(Date.now() + 3 * 86_400_000).toISOString();
      const sport = `Futsal-${Date.now()}`;
      const patched = (
        await suite.client.ok('PATCH', `/events/${event.event_id}`, {
          title: 'Home v Away (rescheduled)',
          short_title: 'HOM v AWA',
          event_type: 'match',
          sport,
          competition: 'Cup',
          participants: ['Home United', 'Away Town'],
          start,
        })
      ).event;
      expect(patched).to.include({
        event_id: event.event_id,
        title: 'Home v Away (rescheduled)',
        short_title: 'HOM v AWA',
        sport,
        competition: 'Cup',
      });
      expect(patched.participants).to.deep.equal(['Home United', 'Away Town']);
      expect(Date.parse(patched.start)).to.equal(Date.parse(start));
      await caughtUp();
      expect(await listed(market.market_id)).to.deep.include({
        event_title: 'Home v Away (rescheduled)',
        event_short_title: 'HOM v AWA',
        event_type: 'match',
        sport,
        competition: 'Cup',
        participants: ['Home United', 'Away Town'],
        event_start: new Date(Date.parse(start)).toISOString(),
      });
      expect((await listed(own.market_id)).participants).to.deep.equal(['Own']);
      expect((await defaultList(`&sports=${sport}`)).sort()).to.deep.equal([market.market_id, own.market_id].sort());

      // only the fields given change
      expect((await suite.client.ok('PATCH', `/events/${event.event_id}`, { competition: null })).event).to.include({
        title: 'Home v Away (rescheduled)',
        sport,
        competition: null,
      });
    });

    it('clear 400s, 404 for an unknown event', async () => {
      const event = await newEvent();
      const path = `/events/${event.event_id}`;
      for (const [body, error] of [
        [{}, 'body must contain at least one field'],
        [{ start: 'tomorrow' }, 'start must be a date-time string'],
        [{ title: '' }, 'title must not be empty'],
        [{ participants: ['ok', 1] }, 'participants[1] must be a string'],
        [{ sport: false }, 'sport must be a string or null'],
      ] as Array<[Json, string]>) {
        expect(await suite.client.admin('PATCH', path, body), JSON.stringify(body)).to.deep.equal({
          status: 400,
          body: { error },
        });
      }
      expect((await suite.client.admin('PATCH', `/events/${UNKNOWN_ID}`, { title: 'Nobody' })).status).to.equal(404);
    });
  });

  describe('archiving', () => {
    it("an archived market leaves the default list, is still returned by market_ids, and every account's market stats get archived_at with null live-index fields", async () => {
      const event = await newEvent({ sport: 'Hockey', competition: 'NHL' });
      const market = await newMarket({ event_id: event.event_id, title: 'Leafs win' });
      const other = await newMarket({ event_id: event.event_id, title: 'Habs win' });
      const members: Array<{ account_id: string; key: ApiKeyCredentials }> = [];
      for (let i = 0; i < 3; i++) {
        const account = (
          await suite.client.ok('POST', '/accounts', { fee_schedule: 'fixed_percent', base_fee_percent: 0 })
        ).account;
        await suite.client.ok('POST', `/accounts/${account.account_id}/deposits`, { amount: '100.00' });
        members.push({
          account_id: account.account_id,
          key: (await suite.client.ok('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_write' }))
            .api_key,
        });
      }
      const [maker, taker, late] = members as [(typeof members)[0], (typeof members)[0], (typeof members)[0]];
      const order = (marketId: string, action: string, quantity: string) => ({
        market_id: marketId,
        action,
        order_type: 'limit',
        price: '0.40',
        quantity,
      });
      expect(
        (await suite.client.signed(maker.key, 'POST', '/orders', order(market.market_id, 'sell', '10'))).status,
      ).to.equal(200);
      expect(
        (await suite.client.signed(taker.key, 'POST', '/orders', order(market.market_id, 'buy', '6'))).status,
      ).to.equal(200);
      expect(
        (await suite.client.signed(taker.key, 'POST', '/orders', order(other.market_id, 'buy', '1'))).status,
      ).to.equal(200);

      const statsOf = async (who: { key: ApiKeyCredentials }, marketId: string): Promise<Json | undefined> => {
        const path = `/account/market_stats?market_ids=${marketId}`;
        const answer = await suite.client.signed(who.key, 'GET', path);
        expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
        checker.check('GET', `/api/v1${path}`, answer.status, answer.body);
        return answer.body.market_stats[0];
      };
      const start = Date.parse(event.start) * 1000;
      for (const who of [maker, taker]) {
        expect(await statsOf(who, market.market_id)).to.include({
          archived_at: null,
          status: 'open',
          title: 'Leafs win',
          event_start_time: start,
        });
      }
      expect(await defaultList()).to.include.members([market.market_id, other.market_id]);

      const before = (await suite.client.ok('GET', '/clock')).now_us;
      const archived = (await suite.client.ok('PATCH', `/markets/${market.market_id}`, { archived: true })).market;
      const after = (await suite.client.ok('GET', '/clock')).now_us;
      expect(archived).to.include({ market_id: market.market_id, archived: true });

      const listedNow = await defaultList();
      expect(listedNow).to.not.include(market.market_id);
      expect(listedNow).to.include(other.market_id);
      for (const query of [
        '&status=open',
        `&event_ids=${event.event_id}`,
        '&sports=Hockey',
        '&trading=true',
        '&sort_by[name]=event_start',
      ]) {
        expect(await defaultList(query), query).to.not.include(market.market_id);
      }
      expect(await listed(market.market_id)).to.include({
        market_id: market.market_id,
        archived: true,
        title: 'Leafs win',
        status: 'open',
      });

      const makerRow = (await statsOf(maker, market.market_id))!;
      const archivedAt = makerRow.archived_at as number;
      expect(archivedAt).to.be.within(before, after);
      for (const who of [maker, taker]) {
        const row = (await statsOf(who, market.market_id))!;
        expect(row).to.include({
          account_id: who.account_id,
          market_id: market.market_id,
          event_id: event.event_id,
          archived_at: archivedAt,
          status: null,
          title: null,
          event_start_time: null,
        });
        expect(row).to.include({ sport: 'Hockey', competition: 'NHL', trade_count: 1 }); // the rest of the row stays
      }
      expect(await statsOf(taker, other.market_id)).to.include({
        archived_at: null,
        status: 'open',
        title: 'Habs win',
        event_start_time: start,
      });

      // from then on: an account that first acts in the market afterwards gets the same
      expect(
        (await suite.client.signed(late.key, 'POST', '/orders', order(market.market_id, 'buy', '1'))).status,
      ).to.equal(200);
      expect(await statsOf(late, market.market_id)).to.include({
        archived_at: archivedAt,
        status: null,
        title: null,
        event_start_time: null,
        orders: 1,
      });
      // and after more changes to the market
      await suite.client.ok('PATCH', `/markets/${market.market_id}`, { title: 'Leafs win (old)', status: 'closed' });
      expect(await statsOf(maker, market.market_id)).to.include({ archived_at: archivedAt, status: null, title: null });

      // archiving is final; archiving again changes nothing
      expect(await suite.client.admin('PATCH', `/markets/${market.market_id}`, { archived: false })).to.deep.equal({
        status: 422,
        body: { error: 'Market is archived; archiving cannot be undone' },
      });
      expect(
        (await suite.client.ok('PATCH', `/markets/${market.market_id}`, { archived: true })).market.archived,
      ).to.equal(true);
      expect((await statsOf(taker, market.market_id))!.archived_at).to.equal(archivedAt);
      // archived: false on a market never archived is no change
      expect(
        (await suite.client.ok('PATCH', `/markets/${other.market_id}`, { archived: false })).market.archived,
      ).to.equal(false);
    });

    it('a settled market archived with its catalogue change in one PATCH', async () => {
      const market = await newMarket();
      await suite.client.ok('POST', `/markets/${market.market_id}/result`, { result: 'void' });
      const archived = (
        await suite.client.ok('PATCH', `/markets/${market.market_id}`, { archived: true, powered_by: 'Operator desk' })
      ).market;
      expect(archived).to.include({ archived: true, status: 'voided', powered_by: 'Operator desk' });
      expect(await defaultList('&status=voided')).to.not.include(market.market_id);
    });
  });

  describe('read models', () => {
    it('every projector rebuilt from zero equals its live read model after all of the above', async () => {
      await caughtUp();
      const dump = async (tables: readonly string[]) => {
        const out: Record<string, string[]> = {};
        for (const table of tables) {
          const rows = await suite.service.ctx.pool.query(`SELECT to_jsonb(t) AS row FROM public.${table} t`);
          out[table] = rows.rows.map((r) => JSON.stringify(r.row)).sort();
        }
        return out;
      };
      const tables = [...CORE_TABLES, ...MEMBER_PROJECTORS.flatMap((p) => p.tables)];
      const live = await dump(tables);
      expect(live.core_markets!.some((row) => JSON.parse(row).archived === true)).to.equal(true);
      await suite.service.service.runner.rebuild('core');
      for (const projector of MEMBER_PROJECTORS) await suite.service.service.runner.rebuild(projector.name);
      expect(await dump(tables)).to.deep.equal(live);
    });
  });
});
