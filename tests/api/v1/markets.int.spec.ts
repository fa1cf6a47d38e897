// GET /markets (filters, tiered default order, sort_by, market_ids, suspended rendering),
// GET /fills, GET /positions and GET /account/balance over HTTP, checked against the OpenAPI
// document.

import { expect } from 'chai';
import { startWholeService, type Answer, type Member, type WholeService } from './harness.ts';
import { OpenApiChecker } from '../openapi/openapi.ts';

type Market = { market_id: string; status: string; trading: boolean; event_id: string };

describe('markets and portfolio reads (/api/v1)', () => {
  let svc: WholeService;
  let alice: Member;
  let bob: Member;
  let openapi: OpenApiChecker;
  const m: Record<string, Market> = {};
  const events: Record<string, string> = {};

  async function get(who: Member, path: string): Promise<Answer> {
    const answer = await who.call('GET', path);
    openapi.check('GET', path, answer.status, answer.body);
    return answer;
  }
  const idsOf = (answer: Answer) => answer.body.markets.map((x: Market) => x.market_id);

  before(async () => {
    svc = await startWholeService();
    alice = await svc.member();
    bob = await svc.member();
    openapi = new OpenApiChecker((await alice.call('GET', '/api/v1/openapi.json')).body);
    const hour = 3_600_000;
    const at = (h: number) => new Date(svc.ctx.clock.nowUs() / 1000 + h * hour).toISOString();
    const event = async (name: string, hours: number, sport: string, competition: string) => {
      const { event: e } = await svc.admin('POST', '/events', { title: name, start: at(hours), sport, competition });
      events[name] = e.event_id;
      return e.event_id as string;
    };
    const market = async (name: string, eventId: string, status: string) => {
      const { market: listed } = await svc.admin('POST', '/markets', { event_id: eventId, title: name, status });
      m[name] = listed;
      return listed.market_id as string;
    };
    const soon = await event('soon', 2, 'Soccer', 'EPL');
    const later = await event('later', 48, 'Basketball', 'NBA');
    await market('openLater', later, 'open');
    await market('openSoon', soon, 'open');
    await market('preOpen', soon, 'pre_open');
    await market('halted', soon, 'open');
    await svc.admin('POST', `/markets/${m.halted!.market_id}/status`, { trading: false });
    await market('scheduled', soon, 'scheduled');
    await market('closed', later, 'open');
    await svc.admin('POST', `/markets/${m.closed!.market_id}/status`, { status: 'closed' });
    await market('resulted', soon, 'open');
    await svc.admin('POST', `/markets/${m.resulted!.market_id}/result`, { result: 'win' });
  });
  after(async () => {
    await svc?.stop();
  });

  describe('GET /markets', () => {
    it('orders tradeable first, then pre_open, halted, scheduled, closed, settled; soonest event first within a tier', async () => {
      const answer = await get(alice, '/api/v1/markets');
      expect(idsOf(answer)).to.deep.equal(
        ['openSoon', 'openLater', 'preOpen', 'halted', 'scheduled', 'closed', 'resulted'].map((k) => m[k]!.market_id),
      );
    });

    it('renders a halted open market as `suspended`, still matched by status=open', async () => {
      const open = await get(alice, '/api/v1/markets?status=open');
      expect(idsOf(open)).to.deep.equal(['openSoon', 'openLater', 'halted'].map((k) => m[k]!.market_id));
      const halted = open.body.markets.find((x: Market) => x.market_id === m.halted!.market_id);
      expect(halted).to.include({ status: 'suspended', trading: false });
    });

    it('filters by a status list, trading, event_ids, sports and competitions (case-insensitive)', async () => {
      expect(idsOf(await get(alice, '/api/v1/markets?status=closed,resulted'))).to.have.members([
        m.closed!.market_id,
        m.resulted!.market_id,
      ]);
      expect(idsOf(await get(alice, '/api/v1/markets?status=open&trading=false'))).to.deep.equal([m.halted!.market_id]);
      expect(idsOf(await get(alice, '/api/v1/markets?trading=true&status=open'))).to.deep.equal([
        m.openSoon!.market_id,
        m.openLater!.market_id,
      ]);
      expect(idsOf(await get(alice, `/api/v1/markets?event_ids=${events.later}`))).to.deep.equal([
        m.openLater!.market_id,
        m.closed!.market_id,
      ]);
      expect(idsOf(await get(alice, '/api/v1/markets?sports=basketball'))).to.deep.equal([
        m.openLater!.market_id,
        m.closed!.market_id,
      ]);
      expect(idsOf(await get(alice, '/api/v1/markets?competitions=epl,nba&status=scheduled'))).to.deep.equal([
        m.scheduled!.market_id,
      ]);
    });

    it('sort_by[name]=event_start replaces the tiers; sort_by[direction] asc or desc', async () => {
      const asc = idsOf(await get(alice, '/api/v1/markets?sort_by[name]=event_start&status=open'));
      expect(asc.indexOf(m.openLater!.market_id)).to.equal(2);
      const desc = idsOf(
        await get(alice, '/api/v1/markets?sort_by%5Bname%5D=event_start&sort_by%5Bdirection%5D=desc&status=open'),
      );
      expect(desc[0]).to.equal(m.openLater!.market_id);
    });

    it('market_ids returns exactly those markets, unpaginated, ignoring every other parameter', async () => {
      const path = `/api/v1/markets?market_ids=${m.resulted!.market_id},${m.openSoon!.market_id}&status=OPEN&limit=1&trading=maybe`;
      const answer = await get(alice, path);
      expect(answer.status).to.equal(200);
      expect(answer.body.cursor).to.equal(null);
      expect(idsOf(answer)).to.have.members([m.resulted!.market_id, m.openSoon!.market_id]);
    });

    it('400 for uppercase or unknown statuses, trading other than true/false, unknown sort values', async () => {
      for (const query of [
        'status=OPEN',
        'status=live',
        'trading=on',
        'trading=off',
        'trading=1',
        'trading=TRUE',
        'sort_by[name]=title',
        'sort_by[direction]=up',
        'event_ids=nope',
        'market_ids=nope',
      ]) {
        const answer = await get(alice, `/api/v1/markets?${query}`);
        expect(answer.status, query).to.equal(400);
      }
    });

    it('pages with cursors and clamps limit silently', async () => {
      const seen: string[] = [];
      let page = await get(alice, '/api/v1/markets?limit=3');
      seen.push(...idsOf(page));
      while (page.body.cursor) {
        page = await get(alice, `/api/v1/markets?limit=3&cursor=${encodeURIComponent(page.body.cursor)}`);
        seen.push(...idsOf(page));
      }
      expect(seen).to.deep.equal(idsOf(await get(alice, '/api/v1/markets?limit=900')));
      expect(seen).to.have.length(7);
    });
  });

  describe('GET /fills, /positions, /account/balance', () => {
    let buyId: string;
    let sellId: string;
    before(async () => {
      const market = m.openSoon!.market_id;
      sellId = (
        await alice.call('POST', '/api/v1/orders', {
          body: {
            action: 'sell',
            market_id: market,
            order_type: 'limit',
            price: '0.40',
            quantity: '5',
            client_order_id: 'ask',
          },
        })
      ).body.order.id;
      const buy = await bob.call('POST', '/api/v1/orders', {
        body: {
          action: 'buy',
          market_id: market,
          order_type: 'limit',
          price: '0.40',
          quantity: '3',
          client_order_id: 'bid',
        },
      });
      expect(buy.status, buy.text).to.equal(200);
      buyId = buy.body.order.id;
      expect(buy.body.order.filled).to.equal('3');
    });

    it("fills of the account, with the trade's price and size", async () => {
      const bobs = await get(bob, '/api/v1/fills');
      expect(bobs.body.fills).to.have.length(1);
      expect(bobs.body.fills[0]).to.include({
        order_id: buyId,
        account_id: bob.account_id,
        market_id: m.openSoon!.market_id,
        price: '0.40',
        liquidity_action: 'taker',
        client_order_id: 'bid',
      });
      const alices = await get(alice, '/api/v1/fills');
      expect(alices.body.fills[0]).to.include({ order_id: sellId, liquidity_action: 'provider' });
    });

    it("filters fills by order_ids (another account's order matches nothing), market_ids and one status", async () => {
      expect((await get(bob, `/api/v1/fills?order_ids=${buyId}`)).body.fills).to.have.length(1);
      expect((await get(bob, `/api/v1/fills?order_ids=${sellId}`)).body.fills).to.have.length(0);
      expect((await get(bob, `/api/v1/fills?market_ids=${m.openLater!.market_id}`)).body.fills).to.have.length(0);
      const status = (await get(bob, '/api/v1/fills')).body.fills[0].status;
      expect((await get(bob, `/api/v1/fills?status=${status}`)).body.fills).to.have.length(1);
      expect((await get(bob, '/api/v1/fills?status=open,settled')).status).to.equal(400);
      expect((await get(bob, '/api/v1/fills?status=bogus')).status).to.equal(400);
    });

    it('open positions, largest first', async () => {
      const bobs = await get(bob, '/api/v1/positions');
      expect(bobs.body.positions).to.have.length(1);
      expect(bobs.body.positions[0]).to.include({ market_id: m.openSoon!.market_id, side: 'long', contracts: '3' });
      const alices = await get(alice, '/api/v1/positions');
      expect(alices.body.positions[0]).to.include({ side: 'short', contracts: '3' });
    });

    it('the balance object, with decimal strings', async () => {
      const answer = await get(bob, '/api/v1/account/balance');
      expect(answer.body.balance.account_id).to.equal(bob.account_id);
      expect(answer.body.balance.account_balance).to.match(/^-?\d+(\.\d+)?$/);
    });
  });
});
