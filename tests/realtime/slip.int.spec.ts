// order_slip and betslip through the official Phoenix client: a quote is costed from the live
// book and the member's balance, pushed again as `slip` when the book moves, and nothing is
// ever placed.

import { expect } from 'chai';
import { useWholeService, type Member, placeLimit } from '../api/v1/harness.ts';
import { connect, join, type Connected } from './phoenix.ts';

function push(
  joined: { channel: { push(event: string, payload: object): { receive(status: string, cb: (r: any) => void): any } } },
  event: string,
  payload: object,
): Promise<{ status: string; response: any }> {
  return new Promise((resolve) => {
    joined.channel
      .push(event, payload)
      .receive('ok', (response: unknown) => resolve({ status: 'ok', response }))
      .receive('error', (response: unknown) => resolve({ status: 'error', response }));
  });
}

describe('realtime: order_slip and betslip', function () {
  let socket: Connected;
  after(() => socket?.close());
  const suite = useWholeService(['maker', 'quoter'], { deposits: { quoter: '100' } });

  const place = (who: Member, body: Record<string, unknown>) => placeLimit(who, { market_id: suite.marketId, ...body });

  before(async () => {
    await place(suite.maker, { action: 'sell', price: '0.40', quantity: '5' });
    await place(suite.maker, { action: 'sell', price: '0.45', quantity: '10' });
    await suite.maker.call('GET', '/api/v1/orders'); // returns once the read models (and so the feed) have the book
    socket = await connect(suite.svc.socketUrl, { key: suite.quoter.readOnlyKey });
  });

  it('costs an order from the book: fills by price, average, resting part, risk, fee, funds; nothing placed', async () => {
    const slip = await join(socket, `order_slip:${suite.quoter.user_id}`);
    const terms = { market_id: suite.marketId, action: 'buy', order_type: 'limit', price: '0.45', quantity: '12' };
    const answer = await push(slip, 'quote', terms);
    expect(answer.status).to.equal('ok');
    const quote = answer.response.slip;
    expect(quote).to.include(terms);
    expect(quote.fills).to.deep.equal([
      { price: '0.40', quantity: '5' },
      { price: '0.45', quantity: '7' },
    ]);
    expect(quote).to.include({ filled_quantity: '12', resting_quantity: '0', unfilled_quantity: '0' });
    expect(quote.average_price).to.equal('0.4291667'); // (5 x 0.40 + 7 x 0.45) / 12
    expect(quote.risk).to.equal('5.15');
    // default schedule: fixed 1% on min(price, max - price) per contract, up to the cent per level
    // fixed 1% on min(price, max_price - price) per contract, each level up to the cent: 0.02 + 0.0315 -> 0.06
    expect(quote.potential_fee).to.equal('0.06');
    expect(quote.available_balance).to.equal('100.00');
    expect(quote.sufficient_funds).to.equal(true);
    expect((await suite.quoter.call('GET', '/api/v1/orders')).body.orders).to.deep.equal([]);

    // the book moves: the slip is costed again and pushed
    await place(suite.maker, { action: 'sell', price: '0.39', quantity: '1' });
    const moved = await slip.next('slip', (s) => s.slip.fills[0].price === '0.39');
    expect(moved.slip.fills).to.deep.equal([
      { price: '0.39', quantity: '1' },
      { price: '0.40', quantity: '5' },
      { price: '0.45', quantity: '6' },
    ]);

    const refused = await push(slip, 'quote', {
      market_id: suite.marketId,
      action: 'buy',
      order_type: 'limit',
      price: '0.001',
      quantity: '1',
    });
    expect(refused).to.deep.equal({
      status: 'error',
      response: {
        reason: 'invalid order',
        error: 'price must be a whole number of cents (at most two decimal places)',
      },
    });
    await slip.leave();
  });

  it('betslip answers the same with money rounded to two decimals; a market order leaves the rest unfilled', async () => {
    const slip = await join(socket, `betslip:${suite.quoter.user_id}`);
    const answer = await push(slip, 'quote', {
      market_id: suite.marketId,
      action: 'buy',
      order_type: 'market',
      quantity: '100',
    });
    const quote = answer.response.slip;
    expect(quote.filled_quantity).to.equal('16');
    expect(quote.unfilled_quantity).to.equal('84');
    expect(quote.resting_quantity).to.equal('0');
    expect(quote.average_price).to.match(/^\d+\.\d{2}$/);
    for (const field of ['risk', 'potential_fee', 'cost', 'available_balance'])
      expect(quote[field], field).to.match(/^\d+\.\d{2}$/);
    await slip.leave();

    // the engine, given the same order, fills what the slip said at the prices and fees it said
    const order = await place(suite.quoter, { action: 'buy', order_type: 'market', quantity: '100' });
    expect(order.filled).to.equal(quote.filled_quantity);
    const fills = (await suite.quoter.call('GET', `/api/v1/fills?order_ids=${order.id}`)).body.fills;
    const byPrice = fills
      .map((f: { price: string; filled: string }) => ({ price: f.price, quantity: f.filled }))
      .sort((a: { price: string }, b: { price: string }) => Number(a.price) - Number(b.price));
    expect(byPrice).to.deep.equal(quote.fills);
    const fees = fills.reduce(
      (sum: number, f: { trade_fee: string }) => sum + Math.round(Number(f.trade_fee) * 100),
      0,
    );
    expect((fees / 100).toFixed(2)).to.equal(quote.potential_fee);
  });
});
