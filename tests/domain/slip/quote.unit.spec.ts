// The slip costing (domain/slip/quote.ts) on hand-made books: which levels fill at once, what
// rests or is dropped, risk on each side, taker and maker fees rounded up per level.

import { expect } from 'chai';
import { feeRates } from '../../../domain/engine/fees.ts';
import { quoteOrder, quoteTexts, type QuoteRequest } from '../../../domain/slip/quote.ts';

const ONE = 1_000_000_000; // nano-contracts per contract
const rates = feeRates({
  fee_schedule: 'on_trade',
  base_fee_percent: null,
  maker_factor: 0.5,
  taker_factor: 1,
  loyalty_tier: 'rookie',
}); // taker 2%, maker 1%

function texts(
  request: Partial<QuoteRequest> & Pick<QuoteRequest, 'action' | 'orderType' | 'nanos' | 'opposite'>,
  available = '1000.00',
) {
  const quote = quoteOrder({ priceCents: null, maxPriceCents: 100, rates, ...request });
  return quoteTexts(quote, available, null);
}

describe('domain: slip costing', () => {
  const bids = [
    { cents: 45, nanos: 3 * ONE },
    { cents: 40, nanos: 10 * ONE },
  ];

  it('a sell limit fills the bids at or above its price and rests the rest; risk is max_price - price', () => {
    const q = texts({ action: 'sell', orderType: 'limit', priceCents: 42, nanos: 5 * ONE, opposite: bids });
    expect(q.fills).to.deep.equal([{ price: '0.45', quantity: '3' }]);
    expect(q).to.include({
      filled_quantity: '3',
      resting_quantity: '2',
      unfilled_quantity: '0',
      average_price: '0.45',
    });
    expect(q.risk).to.equal('2.81'); // 3 x 0.55 + 2 x 0.58
    // taker 2% of 3 x min(0.45, 0.55) = 0.027 -> 0.03; maker 1% of 2 x 0.42 = 0.0084 -> 0.01
    expect(q.potential_fee).to.equal('0.04');
    expect(q.cost).to.equal('2.85');
  });

  it('a market order stops at its price when it has one and drops what finds no liquidity', () => {
    const capped = texts({ action: 'sell', orderType: 'market', priceCents: 41, nanos: 20 * ONE, opposite: bids });
    expect(capped).to.include({ filled_quantity: '3', resting_quantity: '0', unfilled_quantity: '17' });
    const open = texts({ action: 'sell', orderType: 'market', nanos: 20 * ONE, opposite: bids });
    expect(open).to.include({ filled_quantity: '13', unfilled_quantity: '7' });
    expect(open.average_price).to.equal('0.4115385'); // (1.35 + 4.00) / 13, 7 places
  });

  it('judges funds on the exact cost; an empty book leaves a limit order wholly resting', () => {
    const q = texts({ action: 'buy', orderType: 'limit', priceCents: 50, nanos: 4 * ONE, opposite: [] }, '2.01');
    expect(q).to.include({
      filled_quantity: '0',
      resting_quantity: '4',
      average_price: null,
      risk: '2.00',
      potential_fee: '0.02',
      cost: '2.02',
    });
    expect(q.sufficient_funds).to.equal(false);
    const rounded = quoteTexts(
      quoteOrder({
        action: 'buy',
        orderType: 'limit',
        priceCents: 33,
        nanos: 333_333_333,
        opposite: [],
        maxPriceCents: 100,
        rates,
      }),
      '5',
      2,
    );
    expect(rounded.risk).to.equal('0.11'); // 0.333333333 x 0.33 = 0.10999999989, half up to 2 places
  });
});
