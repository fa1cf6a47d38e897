// Settlement-side fees, refunds that name their fee, re-settlement and referrals, on the pure
// engine: what is charged to whom, with which settlement, how a fill carries its share, and that
// the read models folded from the facts show the same.

import { expect } from 'chai';
import { ledgerSum } from '../../../domain/engine/ledger.ts';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import { account, deposit, market, order, place, Scenario, sportEvent } from './support.ts';

const fee = (scope: 'market' | 'event' | 'market_group', scopeId: string, percent: number | null): EngineInput => ({
  kind: 'SetSettlementFee',
  scope,
  scope_id: scopeId,
  percent,
});
const result = (marketId: string, outcome: 'win' | 'lose' | 'void'): EngineInput => ({
  kind: 'ResultMarket',
  market_id: marketId,
  result: outcome,
});

/** a buys 10 at 0.40 from b in `marketId`. */
function trade(s: Scenario, marketId: string, id: string, price = '0.40', quantity = '10'): void {
  s.given(
    place('a', order(`${id}-a`, 'buy', price, quantity, { market_id: marketId })),
    place('b', order(`${id}-b`, 'sell', price, quantity, { market_id: marketId })),
  );
}

function scenario(): Scenario {
  return new Scenario().given(
    account('a'),
    account('b'),
    deposit('a', '1000'),
    deposit('b', '1000'),
    sportEvent('ev'),
    sportEvent('ev2'),
  );
}

const settlementFees = (s: Scenario, accountId: string) =>
  s.ledger(accountId).filter((e) => e.fee_source !== null && e.fee_source !== 'trade');

describe('settlement-side fees', () => {
  it('charges the market fee at settlement on net winnings, 0.00 on a loss, shared over the winning fills', () => {
    const s = scenario().given(market('m'), fee('market', 'm', 10));
    trade(s, 'm', 't1');
    const settled = s.when(result('m', 'win'));
    const settlementId =
      settled.events.find((e) => e.type === 'MarketSettled')!.type === 'MarketSettled'
        ? (settled.events.find((e) => e.type === 'MarketSettled') as { settlement_id: string }).settlement_id
        : '';
    // a won 10 x 0.60 = 6.00: 10% is 0.60; b lost 6.00: a fee of 0.00
    expect(
      settlementFees(s, 'a').map((e) => [e.type, e.amount, e.fee_source, e.settlement_id, e.market_id]),
    ).to.deep.equal([['fee', '-0.60', 'settlement', settlementId, 'm']]);
    expect(settlementFees(s, 'b').map((e) => [e.type, e.amount, e.fee_source])).to.deep.equal([
      ['fee', '0.00', 'settlement'],
    ]);
    const [fill] = s.fills('a');
    expect(Number(fill!.total_fee)).to.equal(Number(fill!.trade_fee) + 0.6);
    expect(ledgerSum(s.engine.state).eq(0)).to.equal(true);
  });

  it('assesses nothing where no percent is set', () => {
    const s = scenario().given(market('m'));
    trade(s, 'm', 't1');
    s.given(result('m', 'win'));
    expect(settlementFees(s, 'a')).to.deep.equal([]);
  });

  it('charges event and group fees when the last market of the event or group settles, on winnings across it', () => {
    const s = scenario().given(
      fee('event', 'ev', 5),
      fee('market_group', 'g2', 2),
      market('m1', { grouping_id: 'g1' }),
      market('m2', { grouping_id: 'g2' }),
      market('m3', { event_id: 'ev2', grouping_id: 'g2' }),
    );
    trade(s, 'm1', 't1'); // a: +6.00 on win
    trade(s, 'm2', 't2', '0.70', '10'); // a: -7.00 on lose
    trade(s, 'm3', 't3', '0.20', '10'); // a: +8.00 on win
    s.given(result('m1', 'win'));
    expect(settlementFees(s, 'a')).to.deep.equal([]);
    s.given(result('m2', 'lose'));
    // event ev complete: a's net is 6.00 - 7.00 < 0, b's is 1.00: 5% is 0.05
    expect(settlementFees(s, 'a').map((e) => [e.amount, e.fee_source, e.event_id])).to.deep.equal([
      ['0.00', 'event', 'ev'],
    ]);
    expect(settlementFees(s, 'b').map((e) => [e.amount, e.fee_source, e.event_id])).to.deep.equal([
      ['-0.05', 'event', 'ev'],
    ]);
    s.given(result('m3', 'win'));
    // group g2 (m2, m3) complete: a's net is -7.00 + 8.00 = 1.00: 2% is 0.02; b's is -1.00
    expect(
      settlementFees(s, 'a')
        .filter((e) => e.fee_source === 'market_group')
        .map((e) => [e.amount, e.market_id, e.event_id]),
    ).to.deep.equal([['-0.02', null, null]]);
    expect(
      settlementFees(s, 'b')
        .filter((e) => e.fee_source === 'market_group')
        .map((e) => e.amount),
    ).to.deep.equal(['0.00']);
    expect(ledgerSum(s.engine.state).eq(0)).to.equal(true);
  });

  it('a market resulted again refunds its fees, naming them, and charges them on the new winnings', () => {
    const s = scenario().given(market('m', { grouping_id: 'g' }), fee('market', 'm', 10), fee('event', 'ev', 5));
    trade(s, 'm', 't1');
    s.given(result('m', 'win'));
    const charged = settlementFees(s, 'a');
    expect(charged.map((e) => [e.amount, e.fee_source])).to.deep.equal([
      ['-0.60', 'settlement'],
      ['-0.30', 'event'],
    ]);
    const balanceBefore = Number(s.balance('b').account_balance);
    s.given(result('m', 'lose'));
    const refunds = settlementFees(s, 'a').filter((e) => e.type === 'fee_refund');
    expect(refunds.map((e) => [e.amount, e.fee_source, e.fee_id])).to.deep.equal([
      ['0.60', 'settlement', charged[0]!.id],
      ['0.30', 'event', charged[1]!.id],
    ]);
    // b now won 4.00 (10 x 0.40): 10% and 5% of it, and got back 10 x 1.00
    expect(
      settlementFees(s, 'b')
        .filter((e) => e.amount !== '0.00')
        .map((e) => [e.type, e.amount, e.fee_source]),
    ).to.deep.equal([
      ['fee', '-0.40', 'settlement'],
      ['fee', '-0.20', 'event'],
    ]);
    expect(Number(s.balance('b').account_balance)).to.be.closeTo(balanceBefore + 10 - 0.6, 1e-9);
    expect(s.fills('a')[0]!.expired_pnl).to.equal('-4.00');
    expect(s.views.market('m').result).to.equal('lose');
    expect(ledgerSum(s.engine.state).eq(0)).to.equal(true);
  });

  it('a void refunds each trade fee naming it; an amendment that lowers a fee does too', () => {
    const s = scenario().given(market('m'));
    trade(s, 'm', 't1');
    const [fill] = s.fills('a');
    const tradeFee = s.ledger('a').find((e) => e.type === 'fee' && e.trade_id === fill!.trade_id)!;
    s.given({ kind: 'AmendFill', trade_id: fill!.trade_id, filled: '5' });
    const amendRefund = s.ledger('a').find((e) => e.type === 'fee_refund')!;
    expect(amendRefund.fee_id).to.equal(tradeFee.id);
    s.given(result('m', 'void'));
    const voidRefund = s.ledger('a').filter((e) => e.type === 'fee_refund')[1]!;
    expect([voidRefund.fee_id, voidRefund.fee_source]).to.deep.equal([tradeFee.id, 'trade']);
  });

  it('refuses a percent below 0 or above 100, and unknown markets and events', () => {
    const s = scenario().given(market('m'));
    expect(s.when(fee('market', 'm', -1)).error?.code).to.equal('fee_percent_invalid');
    expect(s.when(fee('market', 'm', 101)).error?.code).to.equal('fee_percent_invalid');
    expect(s.when(fee('market', 'nope', 1)).error?.code).to.equal('market_not_found');
    expect(s.when(fee('event', 'nope', 1)).error?.code).to.equal('event_not_found');
  });
});

describe('referrals', () => {
  it('credits the referrer the points in force once, at the referee first trade, with an entry for each', () => {
    const s = scenario().given(account('c'), deposit('c', '100'), market('m'), {
      kind: 'SetReferralPoints',
      points: 250,
    });
    s.given({ kind: 'RecordReferral', referrer_account_id: 'b', referee_account_id: 'c' });
    s.given(place('c', order('c1', 'buy', '0.40', '1')), place('a', order('a1', 'sell', '0.40', '2')));
    s.given(place('c', order('c2', 'buy', '0.40', '1')));
    const entries = (id: string) =>
      s
        .ledger(id)
        .filter((e) => e.type === 'referral')
        .map((e) => [e.points, e.referrer_account_id, e.referee_account_id]);
    expect(entries('b')).to.deep.equal([[250, 'b', 'c']]);
    expect(entries('c')).to.deep.equal([[0, 'b', 'c']]);
    expect(s.balance('b').points).to.equal(250);
  });

  it('refuses unknown accounts, a self-referral, a second referrer and a referee who has traded', () => {
    const s = scenario().given(account('c'), market('m'));
    const refer = (referrer: string, referee: string) =>
      s.when({ kind: 'RecordReferral', referrer_account_id: referrer, referee_account_id: referee }).error;
    expect(refer('nope', 'c')).to.deep.equal({ code: 'account_not_found' });
    expect(refer('a', 'nope')).to.deep.equal({ code: 'referee_not_found' });
    expect(refer('c', 'c')).to.deep.equal({ code: 'self_referral' });
    expect(refer('a', 'c')).to.equal(undefined);
    expect(refer('b', 'c')).to.deep.equal({ code: 'referee_already_referred' });
    trade(s, 'm', 't1');
    expect(refer('c', 'a')).to.deep.equal({ code: 'referee_already_traded' });
  });
});
