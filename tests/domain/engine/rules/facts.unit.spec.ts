// The engine's rules as facts: given what happened (inputs, and the facts they stated), when one
// more input arrives, then exactly these facts (in order; the closing FundsReserved statements are
// left out unless a rule is about funds). One or a few per rule family: placement, matching,
// cancel, settlement, void, amend, fees. The facts are the contract every read model folds.

import { expect } from 'chai';
import type { StepOutcome } from '../../../../domain/engine/engine.ts';
import type { EngineEvent } from '../../../../domain/engine/events.ts';
import { cancel, order, place, type Scenario, tradingScenario } from '../support.ts';

type Expected = { type: EngineEvent['type'] } & Record<string, unknown>;

/** The outcome's facts, FundsReserved left out, are `expected` in order (each fact holds at least the fields given). */
function thenFacts(outcome: StepOutcome, expected: readonly Expected[]): EngineEvent[] {
  expect(outcome.ok, JSON.stringify(outcome.error)).to.equal(true);
  const facts = outcome.events.filter((fact) => fact.type !== 'FundsReserved');
  expect(facts.map((fact) => fact.type)).to.deep.equal(expected.map((fact) => fact.type));
  facts.forEach((fact, i) => expect(fact, `fact ${i} (${fact.type})`).to.deep.include(expected[i]!));
  return facts;
}

/** The fill ids of the trades stated so far, maker first, in order. */
function fillsOf(s: Scenario): string[] {
  return s.events().flatMap((fact) => (fact.type === 'Traded' ? [fact.maker_fill_id, fact.taker_fill_id] : []));
}

/** A market where b rests a sell of 10 at 0.40 and a bought 4 of it at 0.45 (a is long 4 at 0.40, b short 4). */
function traded(): Scenario {
  return tradingScenario().given(
    place('b', order('s1', 'sell', '0.40', '10')),
    place('a', order('b1', 'buy', '0.45', '4')),
  );
}

describe('engine rules as facts: placement', () => {
  it('given an empty book, when a limit buy arrives, then it is accepted open and rests (nothing trades)', () => {
    thenFacts(tradingScenario().when(place('a', order('b1', 'buy', '0.40', '10'))), [
      {
        type: 'OrderAccepted',
        status: 'open',
        order_id: 'b1',
        account_id: 'a',
        action: 'buy',
        price: '0.40',
        quantity: '10',
        delayed_until: null,
      },
    ]);
  });

  it('given a member with 1.00, when a buy risking 5.00 arrives, then it is rejected for funds', () => {
    thenFacts(tradingScenario('1.00').when(place('a', order('b1', 'buy', '0.50', '10'))), [
      { type: 'OrderRejected', reason: 'insufficient_funds', order_id: 'b1' },
    ]);
  });

  it('given an empty book, when a market order arrives, then it is refused for want of liquidity', () => {
    thenFacts(tradingScenario().when(place('a', order('b1', 'buy', null, '3'))), [
      { type: 'OrderRejected', reason: 'no_liquidity', order_id: 'b1' },
    ]);
  });

  it('given a pre-open market, when a limit order arrives, then it is accepted and waits for the open', () => {
    thenFacts(tradingScenario('100.00', { status: 'pre_open' }).when(place('a', order('b1', 'buy', '0.40', '1'))), [
      { type: 'OrderAccepted', status: 'accepted', order_id: 'b1' },
    ]);
  });
});

describe('engine rules as facts: matching', () => {
  it('given a resting sell, when a crossing buy arrives, then they trade at the resting price and the trade says what each order has left', () => {
    const s = tradingScenario().given(place('b', order('s1', 'sell', '0.40', '10')));
    thenFacts(s.when(place('a', order('b1', 'buy', '0.45', '4'))), [
      { type: 'OrderAccepted', status: 'open', order_id: 'b1' },
      {
        type: 'Traded',
        price: '0.40',
        quantity: '4',
        taker_side: 'buy',
        maker_order_id: 's1',
        maker_closing: '0',
        maker_remaining: '6',
        maker_status: 'open',
        taker_order_id: 'b1',
        taker_closing: '0',
        taker_remaining: '0',
        taker_status: 'filled',
      },
      { type: 'Transferred', kind: 'fee', from: 'cash:b', to: 'fees', market_id: 'm' },
      { type: 'Transferred', kind: 'fee', from: 'cash:a', to: 'fees', market_id: 'm' },
    ]);
  });

  it("given a resting sell of its own, when a member's crossing buy arrives, then the resting order is cancelled (self-trade prevention)", () => {
    const s = tradingScenario().given(place('a', order('s1', 'sell', '0.40', '2')));
    thenFacts(s.when(place('a', order('b1', 'buy', '0.45', '2'))), [
      { type: 'OrderAccepted', status: 'open', order_id: 'b1' },
      { type: 'OrderCancelled', order_id: 's1', reason: 'self_trade_prevented', status: 'cancelled' },
    ]);
  });

  it('given a long position, when the member sells into a bid, then the trade closes its lot first in, first out, realising the PnL', () => {
    const s = traded().given(place('b', order('b2', 'buy', '0.55', '4')));
    const [, longFill] = fillsOf(s);
    thenFacts(s.when(place('a', order('s2', 'sell', '0.50', '4'))), [
      { type: 'OrderAccepted', status: 'open', order_id: 's2' },
      {
        type: 'Traded',
        price: '0.55',
        quantity: '4',
        maker_order_id: 'b2',
        maker_closing: '4',
        taker_order_id: 's2',
        taker_closing: '4',
        taker_status: 'filled',
      },
      { type: 'LotClosed', fill_id: fillsOf(s)[0], quantity: '4', pnl: '-0.60' },
      { type: 'Transferred', kind: 'trade_pnl', from: 'cash:b', to: 'pool:m', amount: '0.60' },
      { type: 'Transferred', kind: 'fee', from: 'cash:b' },
      { type: 'LotClosed', fill_id: longFill, quantity: '4', pnl: '0.60' },
      { type: 'Transferred', kind: 'trade_pnl', from: 'pool:m', to: 'cash:a', amount: '0.60' },
      { type: 'Transferred', kind: 'fee', from: 'cash:a' },
    ]);
  });
});

describe('engine rules as facts: cancel', () => {
  it('given a partly filled resting order, when its member cancels it, then it is partially cancelled', () => {
    thenFacts(traded().when(cancel('b', 's1')), [
      { type: 'OrderCancelled', order_id: 's1', reason: 'cancelled_by_user', status: 'partially_cancelled' },
    ]);
  });

  it('given a filled order, when its member cancels it, then nothing is stated (refused: it can no longer be cancelled)', () => {
    const outcome = traded().when(cancel('a', 'b1'));
    expect(outcome).to.deep.include({ ok: false, error: { code: 'order_not_cancellable' }, events: [] });
  });
});

describe('engine rules as facts: settlement and void', () => {
  it('given a trade, when the market results win, then live orders go, each lot settles at the result and the pool pays out', () => {
    const s = traded();
    const [shortFill, longFill] = fillsOf(s);
    thenFacts(s.when({ kind: 'ResultMarket', market_id: 'm', result: 'win' }), [
      { type: 'OrderCancelled', order_id: 's1', reason: 'market_resulted', status: 'partially_cancelled' },
      { type: 'LotSettled', fill_id: shortFill, quantity: '4', pnl: '-2.40' },
      { type: 'Transferred', kind: 'settlement', from: 'cash:b', to: 'pool:m', amount: '2.40' },
      { type: 'LotSettled', fill_id: longFill, quantity: '4', pnl: '2.40' },
      { type: 'Transferred', kind: 'settlement', from: 'pool:m', to: 'cash:a', amount: '2.40' },
      { type: 'MarketSettled', market_id: 'm', result: 'win' },
    ]);
  });

  it('given a trade, when the market is voided, then both fills unwind and their fees are refunded', () => {
    const s = traded();
    const [shortFill, longFill] = fillsOf(s);
    thenFacts(s.when({ kind: 'ResultMarket', market_id: 'm', result: 'void' }), [
      { type: 'OrderCancelled', order_id: 's1', reason: 'market_voided', status: 'partially_cancelled' },
      { type: 'Transferred', kind: 'fee_refund', from: 'fees', to: 'cash:b', amount: '0.02', fill_id: shortFill },
      { type: 'FillVoided', fill_id: shortFill },
      { type: 'Transferred', kind: 'fee_refund', from: 'fees', to: 'cash:a', amount: '0.02', fill_id: longFill },
      { type: 'FillVoided', fill_id: longFill },
      // what each trader realised in the market is reversed (nothing here: no trade closed a lot)
      { type: 'Transferred', kind: 'settlement', amount: '0.00', market_id: 'm' },
      { type: 'Transferred', kind: 'settlement', amount: '0.00', market_id: 'm' },
      { type: 'MarketSettled', market_id: 'm', result: 'void' },
    ]);
  });
});

describe('engine rules as facts: amend and fees', () => {
  it('given a trade, when the operator corrects its price, then both fills are amended with the fee the new price makes, and the difference moves', () => {
    const s = traded();
    const [shortFill, longFill] = fillsOf(s);
    thenFacts(s.when({ kind: 'AmendFill', trade_id: longFill!, price: '0.20' }), [
      { type: 'FillAmended', fill_id: longFill, account_id: 'a', price: '0.20', quantity: '4', fee: '0.008000000' },
      { type: 'Transferred', kind: 'fee_refund', from: 'fees', to: 'cash:a', amount: '0.01', fill_id: longFill },
      { type: 'FillAmended', fill_id: shortFill, account_id: 'b', price: '0.20', quantity: '4', fee: '0.008000000' },
      { type: 'Transferred', kind: 'fee_refund', from: 'fees', to: 'cash:b', amount: '0.01', fill_id: shortFill },
    ]);
  });

  it("given members on the default schedule, when they trade, then each side's fee is stated at nine places and charged up to the cent", () => {
    const s = tradingScenario().given(place('b', order('s1', 'sell', '0.40', '10')));
    const [, traded, makerFee, takerFee] = thenFacts(s.when(place('a', order('b1', 'buy', '0.40', '1'))), [
      { type: 'OrderAccepted' },
      { type: 'Traded', maker_fee: '0.004000000', taker_fee: '0.004000000' },
      { type: 'Transferred', kind: 'fee', amount: '0.01' },
      { type: 'Transferred', kind: 'fee', amount: '0.01' },
    ]);
    expect(traded).to.include({ maker_remaining: '9', taker_remaining: '0' });
    expect([makerFee, takerFee].map((fact) => (fact as { fill_id: string }).fill_id)).to.deep.equal(fillsOf(s));
  });

  it("given a trade, when the funds it leaves are stated, then each side's reservation closes the step", () => {
    const s = tradingScenario().given(place('b', order('s1', 'sell', '0.40', '10')));
    const funds = s
      .when(place('a', order('b1', 'buy', '0.45', '4')))
      .events.filter((fact) => fact.type === 'FundsReserved');
    expect(funds).to.deep.equal([
      {
        type: 'FundsReserved',
        account_id: 'a',
        buy_orders: '0.00',
        sell_orders: '0.00',
        positions: '1.60',
        available: '98.38',
      },
      {
        type: 'FundsReserved',
        account_id: 'b',
        buy_orders: '0.00',
        sell_orders: '3.63',
        positions: '2.40',
        available: '93.95',
      },
    ]);
  });
});
