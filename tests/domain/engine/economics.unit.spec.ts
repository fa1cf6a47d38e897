// Contract economics as tables: liabilities and their rounding, netting of orders against the
// position, fees per schedule and their rounding, closing PnL, settlement, void, points and
// amendments. Default account: fixed_percent at 1%; market max_price 1.00.

import { expect } from 'chai';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import type { BalanceView } from '../../../domain/views.ts';
import { ledgerSum } from '../../../domain/engine/ledger.ts';
import { account, deposit, order, place, tradingScenario } from './support.ts';

type BalanceExpectation = Partial<
  Pick<
    BalanceView,
    | 'account_balance'
    | 'available_balance'
    | 'buy_order_liability'
    | 'sell_order_liability'
    | 'position_premium_liability'
    | 'total_fees'
    | 'total_settlement_pnl'
    | 'points'
    | 'loyalty_tier'
    | 'total_traded'
    | 'total_trade_count'
  >
>;

interface Row {
  name: string;
  accountFields?: object;
  market?: object;
  when: EngineInput[];
  then: Record<string, BalanceExpectation>;
}

const trade10at40: EngineInput[] = [
  place('a', order('a1', 'buy', '0.40', '10')),
  place('b', order('b1', 'sell', '0.40', '10')),
];

const rows: Row[] = [
  {
    name: 'a resting buy reserves remaining x price plus the fee reserve; cash does not move',
    when: [place('a', order('a1', 'buy', '0.40', '10'))],
    then: {
      a: {
        account_balance: '100.00',
        buy_order_liability: '4.04',
        sell_order_liability: '0.00',
        position_premium_liability: '0.00',
        available_balance: '95.96',
      },
    },
  },
  {
    name: 'a resting sell reserves remaining x (max_price - price) plus the fee reserve',
    when: [place('a', order('a1', 'sell', '0.70', '10'))],
    then: { a: { sell_order_liability: '3.03', available_balance: '96.97' } },
  },
  {
    name: 'a trade: both pay 1% of min(price, max-price) per contract; positions reserve their risk',
    when: trade10at40,
    then: {
      a: {
        account_balance: '99.96',
        buy_order_liability: '0.00',
        position_premium_liability: '4.00',
        available_balance: '95.96',
        total_fees: '0.04',
        total_traded: '4.00',
        total_trade_count: 1,
      },
      b: {
        account_balance: '99.96',
        position_premium_liability: '6.00',
        available_balance: '93.96',
        total_traded: '6.00',
      },
    },
  },
  {
    name: 'an order that would close the position is netted against it (position liability goes negative)',
    when: [...trade10at40, place('a', order('a2', 'sell', '0.60', '10'))],
    then: { a: { sell_order_liability: '4.04', position_premium_liability: '0.00', available_balance: '95.92' } },
  },
  {
    name: 'a closing trade realises PnL into cash (FIFO), fee rounded up to the cent',
    when: [...trade10at40, place('a', order('a2', 'sell', '0.55', '10')), place('b', order('b2', 'buy', '0.55', '10'))],
    then: {
      a: {
        account_balance: '101.41',
        position_premium_liability: '0.00',
        available_balance: '101.41',
        total_settlement_pnl: '1.50',
        total_fees: '0.09',
      },
      b: { account_balance: '98.41', available_balance: '98.41', total_settlement_pnl: '-1.50' },
    },
  },
  {
    name: 'result win pays the long max_price - price per contract, the short loses it',
    when: [...trade10at40, { kind: 'ResultMarket', market_id: 'm', result: 'win' }],
    then: {
      a: { account_balance: '105.96', available_balance: '105.96', total_settlement_pnl: '6.00' },
      b: { account_balance: '93.96', total_settlement_pnl: '-6.00' },
    },
  },
  {
    name: 'result lose: the long loses the price, the short gains it',
    when: [...trade10at40, { kind: 'ResultMarket', market_id: 'm', result: 'lose' }],
    then: {
      a: { account_balance: '95.96', total_settlement_pnl: '-4.00' },
      b: { account_balance: '103.96', total_settlement_pnl: '4.00' },
    },
  },
  {
    name: 'void unwinds at zero PnL with every fee refunded',
    when: [
      ...trade10at40,
      place('a', order('a2', 'sell', '0.55', '10')),
      place('b', order('b2', 'buy', '0.55', '10')),
      { kind: 'ResultMarket', market_id: 'm', result: 'void' },
    ],
    then: {
      a: { account_balance: '100.00', available_balance: '100.00', total_fees: '0.00', total_settlement_pnl: '0.00' },
      b: { account_balance: '100.00', total_fees: '0.00', total_settlement_pnl: '0.00' },
    },
  },
  {
    name: 'on_trade: maker pays 2% x maker_factor, taker 2% x taker_factor',
    accountFields: { fee_schedule: 'on_trade', maker_factor: 0.5, taker_factor: 1 },
    when: trade10at40,
    then: { a: { account_balance: '99.96', total_fees: '0.04' }, b: { account_balance: '99.92', total_fees: '0.08' } },
  },
  {
    name: 'loyalty_tier_on_trade starts at rookie (2%) with the factors',
    accountFields: { fee_schedule: 'loyalty_tier_on_trade', maker_factor: 0, taker_factor: 1.5 },
    when: trade10at40,
    then: { a: { total_fees: '0.00', loyalty_tier: 'rookie' }, b: { total_fees: '0.12' } },
  },
  {
    name: 'fixed_percent uses base_fee_percent; a sub-cent fee rounds up to one cent',
    accountFields: { fee_schedule: 'fixed_percent', base_fee_percent: 1 },
    when: [place('a', order('a1', 'buy', '0.33', '3')), place('b', order('b1', 'sell', '0.33', '3'))],
    then: { a: { total_fees: '0.01', account_balance: '99.99' } },
  },
  {
    name: 'points accrue from the amount risked and are credited at settlement',
    market: { points_cost: 1 },
    when: [...trade10at40, { kind: 'ResultMarket', market_id: 'm', result: 'lose' }],
    then: { a: { points: 4 }, b: { points: 6 } },
  },
  {
    name: 'a voided market credits no points',
    market: { points_cost: 1 },
    when: [...trade10at40, { kind: 'ResultMarket', market_id: 'm', result: 'void' }],
    then: { a: { points: 0 }, b: { points: 0 } },
  },
];

describe('economics', () => {
  for (const row of rows) {
    it(row.name, () => {
      const s = tradingScenario('100.00', row.market ?? {}, row.accountFields ?? {});
      for (const input of row.when) {
        const outcome = s.when(input);
        expect(outcome.ok, `${input.kind}: ${JSON.stringify(outcome.error)}`).to.equal(true);
        expect(ledgerSum(s.engine.state).eq(0), 'ledger balances').to.equal(true);
      }
      for (const [id, expected] of Object.entries(row.then)) expect(s.balance(id), id).to.include(expected);
    });
  }

  it('fills carry the fee to nine places, the rounded fee, and per-contract values for both sides', () => {
    const s = tradingScenario('100.00', { max_price: '1.00' });
    s.given(place('a', order('a1', 'buy', '0.33', '3')));
    const outcome = s.when(place('b', order('b1', 'sell', '0.33', '3')));
    const trade = outcome.events.find((e) => e.type === 'Traded');
    if (trade?.type !== 'Traded') throw new Error('no trade');
    expect(trade).to.include({
      price: '0.33',
      quantity: '3',
      taker_side: 'sell',
      maker_fee: '0.009900000',
      taker_fee: '0.009900000',
      maker_closing: '0',
    });
    expect(s.views.fill(trade.maker_fill_id)).to.include({
      liquidity_action: 'provider',
      action: 'buy',
      unrounded_trade_fee: '0.009900000',
      trade_fee: '0.01',
      pc_risk: '0.33',
      pc_to_win: '0.67',
      remaining: '3',
      status: 'open',
    });
    expect(s.views.fill(trade.taker_fill_id)).to.include({
      liquidity_action: 'taker',
      action: 'sell',
      pc_risk: '0.67',
      pc_to_win: '0.33',
      original_risk: '2.01',
      original_to_win: '0.99',
    });
    expect(trade.maker_fill_id).to.not.equal(trade.taker_fill_id);
    const fees = outcome.events.filter((e) => e.type === 'Transferred' && e.kind === 'fee');
    expect(fees.map((e) => e.type === 'Transferred' && [e.from, e.to, e.amount])).to.deep.equal([
      ['cash:a', 'fees', '0.01'],
      ['cash:b', 'fees', '0.01'],
    ]);
    expect(
      s
        .ledger()
        .filter((e) => e.type === 'fee')
        .map((e) => e.amount),
    ).to.deep.equal(['-0.01', '-0.01']);
  });

  it('a closed fill reports closed contracts and PnL; settlement marks the rest expired', () => {
    const s = tradingScenario();
    s.given(...trade10at40, place('a', order('a2', 'sell', '0.55', '4')), place('b', order('b2', 'buy', '0.55', '4')));
    const [opening] = s.fills('a').filter((f) => f.order_id === 'a1');
    expect(opening).to.include({ closed_contracts: '4', closed_pnl: '0.60', remaining: '6', status: 'open' });
    const [closing] = s.fills('a').filter((f) => f.order_id === 'a2');
    expect(closing).to.include({ closing: '4', remaining: '0', status: 'settled' });
    s.when({ kind: 'ResultMarket', market_id: 'm', result: 'win' });
    const settled = s.fills('a').find((f) => f.order_id === 'a1')!;
    expect(settled).to.include({
      expired_contracts: '6',
      expired_pnl: '3.60',
      remaining: '0',
      status: 'settled',
      gross_pnl: '4.20',
    });
    expect(settled.settled_at).to.be.a('string');
  });

  it('voided fills are cancelled and their fees refunded with fee_refund entries', () => {
    const s = tradingScenario();
    s.given(...trade10at40);
    const outcome = s.when({ kind: 'ResultMarket', market_id: 'm', result: 'void' });
    const refunds = outcome.events.filter((e) => e.type === 'Transferred' && e.kind === 'fee_refund');
    expect(refunds.map((e) => e.type === 'Transferred' && [e.from, e.amount])).to.deep.equal([
      ['fees', '0.04'],
      ['fees', '0.04'],
    ]);
    expect(
      s
        .ledger()
        .filter((e) => e.type === 'fee_refund')
        .map((e) => e.amount),
    ).to.deep.equal(['0.04', '0.04']);
    expect(s.fills().every((f) => f.status === 'cancelled' && f.total_fee === '0.00')).to.equal(true);
  });

  it('a voided market leaves no profit or fee on its fills, closing trades included', () => {
    const s = tradingScenario();
    // a opens 10 at 0.40 and closes 4 at 0.55: realised PnL and closing fees, then the void
    s.given(...trade10at40, place('a', order('a2', 'sell', '0.55', '4')), place('b', order('b2', 'buy', '0.55', '4')));
    expect(s.fills('a').some((f) => f.closed_pnl !== '0.00')).to.equal(true);
    s.when({ kind: 'ResultMarket', market_id: 'm', result: 'void' });
    for (const fill of s.fills()) {
      expect(fill, fill.trade_id).to.include({
        status: 'cancelled',
        total_fee: '0.00',
        closed_pnl: '0.00',
        expired_pnl: '0.00',
        gross_pnl: '0.00',
        closed_fee: '0.00',
        expired_fee: '0.00',
        closed_net_pnl: '0.00',
        expired_net_pnl: '0.00',
      });
    }
    expect(s.balance('a')).to.include({ account_balance: '100.00', total_settlement_pnl: '0.00' });
  });

  it('an amended fill keeps the original, corrects position and fees on both sides', () => {
    const s = tradingScenario();
    s.given(...trade10at40);
    const fill = s.fills('a')[0]!;
    const outcome = s.when({ kind: 'AmendFill', trade_id: fill.trade_id, price: '0.30' });
    expect(outcome.ok).to.equal(true);
    const amended = s.fills('a')[0]!;
    expect(amended).to.include({
      amended: true,
      price: '0.30',
      original_price: '0.40',
      original_filled: '10',
      trade_fee: '0.03',
    });
    expect(amended.last_modified_at).to.equal(s.now);
    expect(s.balance('a')).to.include({
      account_balance: '99.97',
      position_premium_liability: '3.00',
      available_balance: '96.97',
    });
    expect(s.balance('b')).to.include({
      account_balance: '99.97',
      position_premium_liability: '7.00',
      available_balance: '92.97',
    });
    expect(outcome.events.filter((e) => e.type === 'FillAmended')).to.have.length(2);
    const refunds = outcome.events.filter((e) => e.type === 'Transferred' && e.kind === 'fee_refund');
    expect(refunds).to.have.length(2);
    s.when({ kind: 'ResultMarket', market_id: 'm', result: 'win' });
    expect(s.balance('a').account_balance).to.equal('106.97');
    expect(s.balance('b').account_balance).to.equal('92.97');
  });

  it('refuses to amend a fill that is partly closed, unknown, or of a settled market', () => {
    const s = tradingScenario();
    s.given(...trade10at40, place('a', order('a2', 'sell', '0.55', '4')), place('b', order('b2', 'buy', '0.55', '4')));
    const opening = s.fills('a').find((f) => f.order_id === 'a1')!;
    expect(s.when({ kind: 'AmendFill', trade_id: opening.trade_id, price: '0.30' }).error).to.deep.equal({
      code: 'fill_not_amendable',
    });
    expect(s.when({ kind: 'AmendFill', trade_id: 'nope', price: '0.30' }).error).to.deep.equal({
      code: 'fill_not_found',
    });
    s.when({ kind: 'ResultMarket', market_id: 'm', result: 'win' });
    expect(s.when({ kind: 'AmendFill', trade_id: opening.trade_id, price: '0.30' }).error).to.deep.equal({
      code: 'fill_not_amendable',
    });
  });

  it('available balance never goes negative when fee rounding would overdraw: such a maker is cancelled', () => {
    // c funds two 0.1-contract bids exactly (0.0505 each with the fee reserve); each fill's fee rounds up to 0.01.
    const s = tradingScenario('10.00').given(account('c'), deposit('c', '0.11'));
    s.given(place('c', order('c1', 'buy', '0.50', '0.1')), place('c', order('c2', 'buy', '0.50', '0.1')));
    expect(s.balance('c').available_balance).to.equal('0.00');
    s.when(place('b', order('b1', 'sell', '0.50', '0.2')));
    expect(s.order('c1')).to.include({ status: 'cancelled', cancellation_reason: 'insufficient_funds' });
    // c1's reservation is freed, so c2 can pay its rounded fee and fills.
    expect(s.order('c2').status).to.equal('filled');
    expect(s.balance('c')).to.include({ account_balance: '0.10', available_balance: '0.05' });
    expect(s.order('b1')).to.include({ status: 'open', filled: '0.1' });
  });

  it('a fee schedule change re-reserves live orders at the new rates', () => {
    const s = tradingScenario().given(place('a', order('a1', 'buy', '0.40', '10')));
    expect(s.balance('a').buy_order_liability).to.equal('4.04');
    s.when({ kind: 'UpdateAccount', account_id: 'a', fields: { fee_schedule: 'fixed_percent', base_fee_percent: 5 } });
    expect(s.balance('a')).to.include({ buy_order_liability: '4.20', available_balance: '95.80', base_fee_percent: 5 });
  });

  it('credited points move the account up the loyalty tiers, and its rate with them', () => {
    const s = tradingScenario(
      '10000.00',
      { points_cost: 1 },
      { fee_schedule: 'loyalty_tier_on_trade', maker_factor: 1, taker_factor: 1 },
    );
    s.given(place('a', order('a1', 'buy', '0.50', '2000')), place('b', order('b1', 'sell', '0.50', '2000')));
    const outcome = s.when({ kind: 'ResultMarket', market_id: 'm', result: 'lose' });
    expect(s.balance('a')).to.include({ points: 1000, loyalty_tier: 'pro' });
    const credit = outcome.events.find((e) => e.type === 'PointsCredited' && e.account_id === 'a');
    expect(credit).to.include({ points: 1000, amount_risked: '1000.00' });
    expect(s.ledger('a').find((e) => e.type === 'rollup')).to.include({ points: 1000, amount: '1000.00' });
    expect(
      outcome.events.some((e) => e.type === 'LoyaltyTierChanged' && e.account_id === 'a' && e.tier === 'pro'),
    ).to.equal(true);
  });

  it('when higher fees no longer fit the cash, the newest live orders are cancelled', () => {
    const s = tradingScenario('17.23').given(
      place('b', order('b1', 'sell', '0.58', '20')),
      place('b', order('b2', 'sell', '0.58', '20')),
    );
    expect(s.balance('b').available_balance).to.equal('0.26');
    s.when({
      kind: 'UpdateAccount',
      account_id: 'b',
      fields: { fee_schedule: 'on_trade', maker_factor: 0.5, taker_factor: 1.5 },
    });
    expect(s.order('b2')).to.include({ status: 'cancelled', cancellation_reason: 'insufficient_funds' });
    expect(s.order('b1').status).to.equal('open');
    expect(Number(s.balance('b').available_balance)).to.be.gte(0);
  });
});
