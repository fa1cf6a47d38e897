// GET /account/market_stats and the ledger lists over HTTP: fields, filters, paging, ownership.

import { expect } from 'chai';
import { MARKET_STATS_COUNTS, MARKET_STATS_DECIMAL_FIELDS } from '../../../../api/v1/member/schemas.ts';
import {
  ALICE,
  amendment,
  BOB,
  EVENT,
  MARKET,
  MARKET2,
  T0,
  marketLifeSteps,
  orderId,
} from '../../../projections/member/fixtures.ts';
import { startMemberService, type MemberService } from './harness.ts';

const LEDGER_COMMON = [
  'id',
  'account_id',
  'amount',
  'points',
  'type',
  'event_id',
  'market_id',
  'fee_id',
  'payment_id',
  'settlement_id',
  'inserted_at',
  'time',
];
const SETTLED_AT = T0 + 7_200_000_000;

describe('market stats and ledgers over HTTP', () => {
  let svc: MemberService;
  const alice = { account_id: ALICE };
  const get = (path: string, who = alice) => svc.call('GET', `/api/v1${path}`, who);

  before(async () => {
    svc = await startMemberService();
    for (const { nowUs, inputs } of marketLifeSteps()) {
      const facts = await svc.engineStep(inputs, nowUs);
      if (inputs.some((i) => i.kind === 'PlaceOrder' && i.order.order_id === orderId(6)))
        await svc.engineStep(amendment(facts), nowUs + 1);
    }
  });
  after(async () => svc?.stop());

  describe('GET /account/market_stats', () => {
    it('answers every documented field, numbers as decimal strings and counts as integers', async () => {
      const res = await get('/account/market_stats');
      expect(res.status).to.equal(200);
      expect(res.body.cursor).to.equal(null);
      const row = res.body.market_stats.find((r: { market_id: string }) => r.market_id === MARKET);
      expect(row).to.include({
        account_id: ALICE,
        event_id: EVENT,
        competition: 'NHL',
        sport: 'Ice Hockey',
        status: 'resulted',
        title: 'Market f1',
        archived_at: null,
      });
      expect(row.last_settled_at).to.equal(SETTLED_AT);
      expect(row.settled_at).to.equal(SETTLED_AT);
      expect(row.event_start_time).to.be.a('number');
      expect(row.inserted_at).to.be.a('number');
      expect(row.updated_at).to.be.at.least(row.inserted_at);
      for (const field of MARKET_STATS_DECIMAL_FIELDS)
        expect(row[field], field)
          .to.be.a('string')
          .and.match(/^-?\d+(\.\d+)?$/);
      for (const field of MARKET_STATS_COUNTS)
        expect(row[field], field).to.be.a('number').and.satisfy(Number.isInteger);
      expect(row).to.include({
        contracts_traded: '5',
        contracts_settled: '5',
        settlements: 1,
        trade_count: 1,
        total_fees: '0.02',
        total_net_pnl: '2.98',
        market_max_price: '1.00',
      });
    });

    it('filters by market and event ids; bad ids are 400', async () => {
      const ids = async (query: string) =>
        (await get(`/account/market_stats?${query}`)).body.market_stats.map((r: { market_id: string }) => r.market_id);
      expect(await ids(`market_ids=${MARKET2}`)).to.deep.equal([MARKET2]);
      expect(await ids(`event_ids=${EVENT}`)).to.have.length(2);
      expect((await get('/account/market_stats?market_ids=nope')).status).to.equal(400);
    });

    it('exclude_zero_settlements: true drops unsettled markets; an unrecognised value drops the filter', async () => {
      const count = async (value: string) =>
        (await get(`/account/market_stats?exclude_zero_settlements=${value}`)).body.market_stats.length;
      expect(await count('true')).to.equal(1);
      expect(await count('false')).to.equal(2);
      expect(await count('maybe')).to.equal(2);
    });

    it('from_time and to_time are inclusive bounds on last_settled_at; non-integers are 400', async () => {
      const count = async (query: string) => (await get(`/account/market_stats?${query}`)).body.market_stats.length;
      expect(await count(`from_time=${SETTLED_AT}&to_time=${SETTLED_AT}`)).to.equal(1);
      expect(await count(`from_time=${SETTLED_AT + 1}`)).to.equal(0);
      expect(await count(`to_time=${SETTLED_AT - 1}`)).to.equal(0);
      expect((await get('/account/market_stats?from_time=yesterday')).status).to.equal(400);
    });

    it('sports and competitions match case-insensitively', async () => {
      const count = async (query: string) => (await get(`/account/market_stats?${query}`)).body.market_stats.length;
      expect(await count('sports=ICE%20HOCKEY')).to.equal(2);
      expect(await count('sports=soccer,ice%20hockey')).to.equal(2);
      expect(await count('sports=soccer')).to.equal(0);
      expect(await count('competitions=nhl')).to.equal(2);
    });

    it('pages with an opaque cursor, no row twice', async () => {
      const first = await get('/account/market_stats?limit=1');
      expect(first.body.market_stats).to.have.length(1);
      expect(first.body.cursor).to.be.a('string');
      const second = await get(`/account/market_stats?limit=1&cursor=${encodeURIComponent(first.body.cursor)}`);
      expect(second.body.market_stats).to.have.length(1);
      expect(second.body.market_stats[0].market_id).to.not.equal(first.body.market_stats[0].market_id);
      expect(second.body.cursor).to.equal(null);
      expect((await get('/account/market_stats?cursor=garbage')).status).to.equal(400);
    });

    it('shows only the caller account', async () => {
      const bob = await get('/account/market_stats', { account_id: BOB });
      expect(bob.body.market_stats.map((r: { account_id: string }) => r.account_id)).to.deep.equal([BOB, BOB]);
    });
  });

  describe('ledger lists', () => {
    it('/portfolio/loyalty: rollup (and referral) entries only, most recent first, with referral ids', async () => {
      const res = await get('/portfolio/loyalty');
      expect(res.status).to.equal(200);
      expect(res.body.loyalty.map((e: { type: string }) => e.type)).to.deep.equal(['rollup']);
      expect(Object.keys(res.body.loyalty[0]).sort()).to.deep.equal(
        [...LEDGER_COMMON, 'referee_account_id', 'referrer_account_id'].sort(),
      );
      expect(res.body.loyalty[0]).to.include({
        referee_account_id: null,
        referrer_account_id: null,
        points: 4,
        amount: '2.00',
        market_id: MARKET,
      });
    });

    it('/portfolio/withdrawals: with method, reason and sub_method', async () => {
      const res = await get('/portfolio/withdrawals');
      expect(res.body.withdrawals).to.have.length(1);
      expect(Object.keys(res.body.withdrawals[0]).sort()).to.deep.equal(
        [...LEDGER_COMMON, 'method', 'reason', 'sub_method'].sort(),
      );
      expect(res.body.withdrawals[0]).to.include({
        type: 'withdrawal',
        amount: '10.00',
        method: 'interac',
        reason: 'cash out',
        sub_method: 'Send',
      });
    });

    it('/portfolio/fees: fee never positive, fee_refund never negative, zero fees listed, no extra fields', async () => {
      const res = await get('/portfolio/fees');
      expect(res.body.fees.map((e: { type: string; amount: string }) => [e.type, e.amount])).to.deep.equal([
        ['fee_refund', '0.02'],
        ['fee', '-0.05'],
        ['fee', '-0.02'],
      ]);
      for (const entry of res.body.fees) expect(Object.keys(entry).sort()).to.deep.equal([...LEDGER_COMMON].sort());
      const bob = await get('/portfolio/fees', { account_id: BOB });
      expect(bob.body.fees.map((e: { amount: string }) => e.amount)).to.deep.equal(['0.00', '0.00']);
    });

    it('/portfolio/adjustments: manual adjustments', async () => {
      const res = await get('/portfolio/adjustments');
      expect(
        res.body.adjustments.map((e: { type: string; amount: string; reason: string }) => [e.type, e.amount, e.reason]),
      ).to.deep.equal([['adjustment', '5.00', 'goodwill']]);
    });

    it('pages by cursor; another account sees none of these entries', async () => {
      const first = await get('/portfolio/fees?limit=2');
      expect(first.body.fees).to.have.length(2);
      const second = await get(`/portfolio/fees?limit=2&cursor=${encodeURIComponent(first.body.cursor)}`);
      expect(second.body.fees.map((e: { type: string; amount: string }) => [e.type, e.amount])).to.deep.equal([
        ['fee', '-0.02'],
      ]);
      expect(second.body.cursor).to.equal(null);
      expect((await get('/portfolio/withdrawals', { account_id: BOB })).body.withdrawals).to.deep.equal([]);
      expect(
        (await get('/portfolio/loyalty', { account_id: BOB })).body.loyalty.map(
          (e: { account_id: string }) => e.account_id,
        ),
      ).to.deep.equal([BOB]);
      expect((await get('/portfolio/withdrawals?limit=x')).status).to.equal(400);
    });

    it('a forged cursor is 400 `cursor is invalid` on every list, never a 500', async () => {
      const forge = (key: unknown[]) => Buffer.from(JSON.stringify(key)).toString('base64url');
      const journalKeys = [
        forge(['9999999999999999999', 1]),
        forge(['1', 99_999_999_999]),
        forge([1.5, 1]),
        forge([1e300, 1]),
        forge(['1', 'x']),
        'not-a-cursor',
      ];
      for (const path of [
        '/portfolio/loyalty',
        '/portfolio/withdrawals',
        '/portfolio/fees',
        '/portfolio/adjustments',
      ]) {
        for (const cursor of journalKeys) {
          const res = await get(`${path}?cursor=${cursor}`);
          expect([path, cursor, res.status, res.body.error]).to.deep.equal([path, cursor, 400, 'cursor is invalid']);
        }
        expect((await get(`${path}?cursor=a&cursor=b`)).status).to.equal(400);
      }
      const statsKeys = [
        forge(['9999999999999999999', MARKET]),
        forge([1e300, MARKET]),
        forge([1.5, MARKET]),
        forge([T0, 'x\u0000']),
        forge([T0, 7]),
      ];
      for (const cursor of statsKeys) {
        const res = await get(`/account/market_stats?cursor=${cursor}`);
        expect([cursor, res.status, res.body.error]).to.deep.equal([cursor, 400, 'cursor is invalid']);
      }
    });
  });
});
