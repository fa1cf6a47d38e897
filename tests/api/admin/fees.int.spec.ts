// Fees from every source and referrals, through HTTP against the whole service: a market's
// settlement fee, an event's and a market group's fee at their last market's settlement, 0.00
// entries on no winnings, refunds naming the fee they refund (void, fill amendment, a market
// resulted again), referral credits and their loyalty entries; the ledger balanced throughout
// (cash + fee revenue = deposits); every read model rebuilt from zero equal to the live one; and
// the journal replayed and verified fact by fact.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { verifyJournal } from '../../../engine/verify.ts';
import { Big } from '../../../domain/money/big.ts';
import { allProjectors } from '../../../projections/registry.ts';
import { useWholeService, type Member } from '../v1/harness.ts';

interface FeeEntry {
  id: string;
  type: string;
  amount: string;
  fee_id: string | null;
  settlement_id: string | null;
  market_id: string | null;
  event_id: string | null;
}

describe('fees from every source, refunds and referrals (HTTP)', function () {
  this.timeout(120_000);
  const suite = useWholeService([], { market: false });
  /** Every member a test made: the ledger check sums over them all. */
  const members: Member[] = [];

  const member = async () => {
    const made = await suite.svc.member('1000');
    members.push(made);
    return made;
  };

  async function fees(who: Member): Promise<FeeEntry[]> {
    const all: FeeEntry[] = [];
    let cursor: string | null = null;
    do {
      const answer = await who.call(
        'GET',
        `/api/v1/portfolio/fees?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      expect(answer.status, answer.text).to.equal(200);
      all.push(...answer.body.fees);
      cursor = answer.body.cursor;
    } while (cursor);
    return all.reverse(); // oldest first
  }

  const balance = async (who: Member) => (await who.call('GET', '/api/v1/account/balance')).body.balance;
  const fills = async (who: Member, marketId: string) =>
    (await who.call('GET', `/api/v1/fills?market_ids=${marketId}`)).body.fills;

  /** `buyer` buys `quantity` at `price` from `seller`. */
  async function trade(marketId: string, buyer: Member, seller: Member, price: string, quantity = '10'): Promise<void> {
    const body = (action: string) => ({ action, market_id: marketId, order_type: 'limit', price, quantity });
    const sell = await seller.call('POST', '/api/v1/orders', { body: body('sell') });
    expect(sell.status, sell.text).to.equal(200);
    const buy = await buyer.call('POST', '/api/v1/orders', { body: body('buy') });
    expect(buy.status, buy.text).to.equal(200);
    expect(buy.body.order.status).to.equal('filled');
  }

  const result = async (marketId: string, outcome: string) =>
    suite.svc.admin('POST', `/markets/${marketId}/result`, { result: outcome });

  /**
   * Every member's cash follows its own totals, trading is zero-sum once markets are settled, and
   * what members paid in fees net of refunds is what their fee entries say: so member cash + fee
   * revenue = deposits, to the cent and beyond.
   */
  async function expectBalancedLedger(): Promise<void> {
    let settlementPnl = new Big(0);
    let cash = new Big(0);
    let deposits = new Big(0);
    let feeRevenue = new Big(0);
    for (const who of members) {
      const b = await balance(who);
      const expected = new Big(b.total_deposits)
        .minus(b.total_withdrawals)
        .plus(b.total_adjustments)
        .minus(b.total_fees)
        .plus(b.total_settlement_pnl);
      expect(b.account_balance, `cash of ${who.account_id}`).to.equal(
        expected.toFixed(Math.max(2, b.account_balance.split('.')[1]?.length ?? 2)),
      );
      const entries = await fees(who);
      const paid = entries.reduce((sum, e) => sum.minus(e.amount), new Big(0));
      expect(paid.eq(b.total_fees), `fee entries of ${who.account_id} add up to total_fees`).to.equal(true);
      settlementPnl = settlementPnl.plus(b.total_settlement_pnl);
      cash = cash.plus(b.account_balance);
      deposits = deposits.plus(b.total_deposits);
      feeRevenue = feeRevenue.plus(paid);
    }
    expect(settlementPnl.eq(0), 'trading is zero-sum once every market is settled').to.equal(true);
    expect(cash.plus(feeRevenue).eq(deposits), 'cash + fee revenue = deposits').to.equal(true);
  }

  it('charges a market settlement fee at its result on net winnings, 0.00 on a loss; fills carry it and show the potential fee before', async () => {
    const alice = await member();
    const bob = await member();
    const market = await suite.svc.market();
    const patched = await suite.svc.admin('PATCH', `/markets/${market.market_id}`, { settlement_fee_percent: 10 });
    expect(patched.market).to.include({
      market_id: market.market_id,
      settlement_fee_percent: 10,
      event_fee_percent: null,
      group_fee_percent: null,
    });
    await trade(market.market_id, alice, bob, '0.40');

    // if it won: alice would win 10 x 0.60, bob 10 x 0.40
    expect((await fills(alice, market.market_id))[0]).to.include({
      remaining_to_win: '6.00',
      remaining_potential_fee: '0.60',
    });
    expect((await fills(bob, market.market_id))[0]).to.include({
      remaining_to_win: '4.00',
      remaining_potential_fee: '0.40',
    });
    await suite.svc.admin('PATCH', `/markets/${market.market_id}`, { settlement_fee_percent: 20 });
    expect((await fills(alice, market.market_id))[0].remaining_potential_fee).to.equal('1.20');
    await suite.svc.admin('PATCH', `/markets/${market.market_id}`, { settlement_fee_percent: 10 });

    await result(market.market_id, 'win');
    const aliceFees = await fees(alice);
    const tradeFee = aliceFees.find((e) => e.settlement_id === null)!;
    const settlementFee = aliceFees.find((e) => e.settlement_id !== null)!;
    expect(tradeFee).to.include({ type: 'fee', fee_id: tradeFee.id, market_id: market.market_id });
    expect(settlementFee).to.include({
      type: 'fee',
      amount: '-0.60',
      fee_id: settlementFee.id,
      market_id: market.market_id,
      event_id: market.event_id,
    });
    const bobSettlementFee = (await fees(bob)).find((e) => e.settlement_id !== null)!;
    expect(bobSettlementFee).to.include({ type: 'fee', amount: '0.00', settlement_id: settlementFee.settlement_id });

    const [fill] = await fills(alice, market.market_id);
    expect(fill).to.include({ status: 'settled', remaining_potential_fee: '0.00' });
    expect(new Big(fill.total_fee).eq(new Big(fill.trade_fee).plus('0.60'))).to.equal(true);
    expect((await balance(alice)).total_fees).to.equal(new Big(fill.trade_fee).plus('0.60').toFixed(2));
    await expectBalancedLedger();
  });

  it('charges event and market group fees when their last market settles, on net winnings across them', async () => {
    const alice = await member();
    const bob = await member();
    const group = `group-${randomUUID()}`;
    const m1 = await suite.svc.market();
    const eventId = m1.event_id;
    const m2 = (
      await suite.svc.admin('POST', '/markets', {
        event_id: eventId,
        title: 'Second',
        status: 'open',
        grouping_id: group,
      })
    ).market;
    const m3 = await suite.svc.market({ grouping_id: group });
    const event = (await suite.svc.admin('PATCH', `/events/${eventId}`, { event_fee_percent: 5 })).event;
    expect(event).to.include({ event_id: eventId, event_fee_percent: 5 });
    expect(
      (await suite.svc.admin('PUT', `/market_groups/${group}`, { group_fee_percent: 2 })).market_group,
    ).to.deep.include({
      grouping_id: group,
      group_fee_percent: 2,
    });

    await trade(m1.market_id, alice, bob, '0.40'); // alice +6.00 on win
    await trade(m2.market_id, alice, bob, '0.70'); // alice -7.00 on lose
    await trade(m3.market_id, alice, bob, '0.20'); // alice +8.00 on win
    const scoped = async (who: Member) => (await fees(who)).filter((e) => e.settlement_id !== null);

    await result(m1.market_id, 'win');
    expect(await scoped(alice)).to.deep.equal([]);
    await result(m2.market_id, 'lose');
    // the event is complete: alice's net is -1.00, bob's +1.00 (5%: 0.05)
    const aliceEvent = await scoped(alice);
    const bobEvent = await scoped(bob);
    expect(aliceEvent.map((e) => [e.amount, e.market_id, e.event_id])).to.deep.equal([['0.00', null, eventId]]);
    expect(bobEvent.map((e) => [e.amount, e.market_id, e.event_id])).to.deep.equal([['-0.05', null, eventId]]);
    expect(aliceEvent[0]!.settlement_id).to.equal(bobEvent[0]!.settlement_id);

    await result(m3.market_id, 'win');
    // the group (m2, m3) is complete: alice's net is +1.00 (2%: 0.02), bob's -1.00
    expect((await scoped(alice)).slice(1).map((e) => e.amount)).to.deep.equal(['-0.02']);
    expect((await scoped(bob)).slice(1).map((e) => e.amount)).to.deep.equal(['0.00']);
    // the group fee is shared over alice's winning fill in m3
    const [m3Fill] = await fills(alice, m3.market_id);
    expect(new Big(m3Fill.total_fee).eq(new Big(m3Fill.trade_fee).plus('0.02'))).to.equal(true);
    await expectBalancedLedger();
  });

  it('refunds name the fee they refund: a void, an amendment that lowers a fee, a market resulted again', async () => {
    const alice = await member();
    const bob = await member();
    const tradeFeeOf = (entries: FeeEntry[], marketId: string) =>
      entries.find((e) => e.type === 'fee' && e.market_id === marketId && e.settlement_id === null)!;

    const voided = await suite.svc.market();
    await trade(voided.market_id, alice, bob, '0.40');
    await result(voided.market_id, 'void');
    const afterVoid = await fees(alice);
    const voidRefund = afterVoid.find((e) => e.type === 'fee_refund' && e.market_id === voided.market_id)!;
    expect(voidRefund.fee_id).to.equal(tradeFeeOf(afterVoid, voided.market_id).id);
    expect(voidRefund.settlement_id).to.be.a('string');

    const amended = await suite.svc.market();
    await trade(amended.market_id, alice, bob, '0.40');
    const [fill] = await fills(alice, amended.market_id);
    await suite.svc.admin('POST', `/fills/${fill.trade_id}/amend`, { filled: '5' });
    const afterAmend = await fees(alice);
    const amendRefund = afterAmend.find((e) => e.type === 'fee_refund' && e.market_id === amended.market_id)!;
    expect(amendRefund.fee_id).to.equal(tradeFeeOf(afterAmend, amended.market_id).id);
    expect(Number(amendRefund.amount)).to.be.greaterThan(0);
    await result(amended.market_id, 'lose');

    const resettled = await suite.svc.market({ settlement_fee_percent: 10 });
    await trade(resettled.market_id, alice, bob, '0.40');
    await result(resettled.market_id, 'win');
    const charged = (await fees(alice)).find((e) => e.market_id === resettled.market_id && e.settlement_id !== null)!;
    expect(charged.amount).to.equal('-0.60');
    const corrected = await result(resettled.market_id, 'lose');
    expect(corrected.market).to.include({ status: 'resulted', result: 'lose' });
    const refund = (await fees(alice)).find((e) => e.type === 'fee_refund' && e.market_id === resettled.market_id)!;
    expect(refund).to.include({ amount: '0.60', fee_id: charged.id });
    expect(refund.settlement_id).to.not.equal(charged.settlement_id);
    // bob now won 10 x 0.40: 10% of it
    expect(
      (await fees(bob))
        .filter((e) => e.market_id === resettled.market_id && e.settlement_id !== null)
        .map((e) => e.amount),
    ).to.deep.equal(['0.00', '-0.40']);
    expect((await fills(alice, resettled.market_id))[0]).to.include({ expired_pnl: '-4.00' });
    // the same result again is refused; a resulted market is not voided
    expect(
      (await suite.svc.adminRaw('POST', `/markets/${resettled.market_id}/result`, { result: 'lose' })).status,
    ).to.equal(422);
    expect(
      (await suite.svc.adminRaw('POST', `/markets/${resettled.market_id}/result`, { result: 'void' })).status,
    ).to.equal(422);
    await expectBalancedLedger();
  });

  it('refuses bad fee percents and unknown targets', async () => {
    const market = await suite.svc.market();
    for (const body of [
      { settlement_fee_percent: -1 },
      { settlement_fee_percent: 101 },
      { settlement_fee_percent: '5' },
    ]) {
      const answer = await suite.svc.adminRaw('PATCH', `/markets/${market.market_id}`, body);
      expect(answer.status).to.equal(400);
      expect(answer.body.error).to.match(/^settlement_fee_percent must /);
    }
    expect(
      (await suite.svc.adminRaw('PATCH', `/markets/${randomUUID()}`, { settlement_fee_percent: 1 })).status,
    ).to.equal(404);
    expect((await suite.svc.adminRaw('PATCH', `/events/${randomUUID()}`, { event_fee_percent: 1 })).status).to.equal(
      404,
    );
    expect((await suite.svc.adminRaw('PUT', '/market_groups/g', {})).body).to.deep.equal({
      error: 'group_fee_percent is required',
    });
    expect((await suite.svc.adminRaw('PUT', '/market_groups/g', { group_fee_percent: null })).status).to.equal(200);
    expect(
      (await suite.svc.adminRaw('PATCH', `/markets/${market.market_id}`, { settlement_fee_percent: null })).body.market
        .settlement_fee_percent,
    ).to.equal(null);
  });

  it('records referrals with clear refusals, and credits the referrer the setting when the referee first trades', async () => {
    const carol = await member();
    const dave = await member();
    const other = await member();
    const refer = (referrer: string, body: unknown) =>
      suite.svc.adminRaw('POST', `/accounts/${referrer}/referrals`, body);

    expect((await refer(carol.account_id, {})).body).to.deep.equal({ error: 'referee_account_id is required' });
    expect((await refer(carol.account_id, { referee_account_id: 'dave' })).status).to.equal(400);
    expect((await refer(carol.account_id, { referee_account_id: randomUUID() })).body).to.deep.equal({
      error: 'Referee account not found',
    });
    expect((await refer(randomUUID(), { referee_account_id: dave.account_id })).body).to.deep.equal({
      error: 'Account not found',
    });
    const self = await refer(carol.account_id, { referee_account_id: carol.account_id });
    expect([self.status, self.body.error]).to.deep.equal([422, 'An account cannot refer itself']);

    const recorded = await refer(carol.account_id, { referee_account_id: dave.account_id });
    expect(recorded.status, recorded.text).to.equal(200);
    expect(recorded.body.referral).to.include({
      referrer_account_id: carol.account_id,
      referee_account_id: dave.account_id,
    });
    expect(recorded.body.referral.created_at).to.be.a('string');
    const second = await refer(other.account_id, { referee_account_id: dave.account_id });
    expect([second.status, second.body.error]).to.deep.equal([422, 'Referee already has a referrer']);

    expect((await suite.svc.admin('PATCH', '/settings', { referral_points: 250 })).settings.referral_points).to.equal(
      250,
    );
    const market = await suite.svc.market();
    await trade(market.market_id, dave, other, '0.40', '1');
    await trade(market.market_id, dave, other, '0.40', '1'); // a second trade credits nothing more

    const loyalty = async (who: Member) =>
      (await who.call('GET', '/api/v1/portfolio/loyalty')).body.loyalty
        .filter((e: { type: string }) => e.type === 'referral')
        .map((e: { points: number; referrer_account_id: string; referee_account_id: string; amount: string }) => [
          e.points,
          e.referrer_account_id,
          e.referee_account_id,
          e.amount,
        ]);
    expect(await loyalty(carol)).to.deep.equal([[250, carol.account_id, dave.account_id, '0.00']]);
    expect(await loyalty(dave)).to.deep.equal([[0, carol.account_id, dave.account_id, '0.00']]);
    expect((await balance(carol)).points).to.equal(250);
    const late = await refer(carol.account_id, { referee_account_id: other.account_id });
    expect([late.status, late.body.error]).to.deep.equal([422, 'Referee has already traded']);
    await result(market.market_id, 'lose');
    await expectBalancedLedger();
  });

  it('rebuilds every read model from zero equal to the live one, and replays the journal to the same facts', async () => {
    const runner = suite.svc.service.runner;
    await runner.waitFor(await suite.svc.ctx.store.headPosition(), 10_000);
    const projectors = allProjectors();
    const tables = projectors.flatMap((projector) => projector.tables);
    const dump = async () => {
      const out: Record<string, string[]> = {};
      for (const table of tables) {
        const rows = await suite.svc.ctx.pool.query(`SELECT to_jsonb(t) AS row FROM public.${table} t`);
        out[table] = rows.rows.map((r) => JSON.stringify(r.row)).sort();
      }
      return out;
    };
    const live = await dump();
    expect(live.core_ledger_entries!.some((row) => row.includes('"fee_source":"market_group"'))).to.equal(true);
    for (const projector of projectors) await runner.rebuild(projector.name);
    expect(await dump()).to.deep.equal(live);

    const report = await verifyJournal(suite.svc.ctx.store, null);
    expect(report.mismatches).to.deep.equal([]);
    expect(report.ok).to.equal(true);
  });
});
