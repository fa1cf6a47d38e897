// Public channels through the official Phoenix client over a real socket: the order book's
// snapshot plus its deltas equals what REST then shows, seq numbers run without gaps, a client
// that sees a gap rejoins and is whole again; ticker, trades, market_updates and events push
// what REST then reads; who may join.

import { expect } from 'chai';
import { startWholeService, type Member, type WholeService, placeLimit } from '../api/v1/harness.ts';
import { connect, join, refusedJoin, type Connected, type Joined } from './phoenix.ts';

type Level = [string, string];

/** A client-side book: the snapshot, then every delta applied in seq order. */
class ClientBook {
  bids = new Map<string, string>();
  offers = new Map<string, string>();
  seq = 0;
  gaps = 0;

  constructor(snapshot: { seq: number; bids: Level[]; offers: Level[] }) {
    this.seq = snapshot.seq;
    for (const [p, q] of snapshot.bids) this.bids.set(p, q);
    for (const [p, q] of snapshot.offers) this.offers.set(p, q);
  }

  apply(delta: { seq: number; bids: Level[]; offers: Level[] }): void {
    if (delta.seq !== this.seq + 1) this.gaps += 1;
    this.seq = delta.seq;
    for (const [p, q] of delta.bids) {
      if (q === '0') this.bids.delete(p);
      else this.bids.set(p, q);
    }
    for (const [p, q] of delta.offers) {
      if (q === '0') this.offers.delete(p);
      else this.offers.set(p, q);
    }
  }

  /** As the Market object shows levels: price descending, {price, quantity}. */
  view(): { bids: Array<{ price: string; quantity: string }>; offers: Array<{ price: string; quantity: string }> } {
    const sorted = (m: Map<string, string>) =>
      [...m.entries()].sort((a, b) => Number(b[0]) - Number(a[0])).map(([price, quantity]) => ({ price, quantity }));
    return { bids: sorted(this.bids), offers: sorted(this.offers) };
  }
}

describe('realtime: public channels', function () {
  let svc: WholeService;
  let maker: Member;
  let taker: Member;
  let marketId: string;
  let eventId: string;
  let makerSocket: Connected;
  let takerSocket: Connected;
  let anonymous: Connected;

  const restMarket = async (who: Member = maker) => {
    const answer = await who.call('GET', `/api/v1/markets?market_ids=${marketId}`);
    expect(answer.status).to.equal(200);
    return answer.body.markets[0];
  };
  const place = (who: Member, body: Record<string, unknown>) => placeLimit(who, { market_id: marketId, ...body });
  /** Applies deltas as they arrive until the book equals REST's Market levels. */
  const converge = async (book: ClientBook, joined: Joined, from: number) => {
    for (let index = from; ; index++) {
      const market = await restMarket();
      const view = book.view();
      if (
        JSON.stringify(view.bids) === JSON.stringify(market.bids) &&
        JSON.stringify(view.offers) === JSON.stringify(market.offers)
      )
        return index;
      const delta = await new Promise<any>((resolve) => {
        const deltas = () => joined.messages.filter((m) => m.event === 'delta' && m.payload.market_id === marketId);
        const poll = () => {
          const list = deltas();
          if (list.length > index) resolve(list[index]!.payload);
          else setImmediate(poll);
        };
        poll();
      });
      book.apply(delta);
    }
  };

  before(async () => {
    svc = await startWholeService();
    maker = await svc.member();
    taker = await svc.member();
    const market = await svc.market();
    marketId = market.market_id;
    eventId = market.event_id;
    makerSocket = await connect(svc.socketUrl, { key: maker.key });
    takerSocket = await connect(svc.socketUrl, { key: taker.readOnlyKey });
    anonymous = await connect(svc.socketUrl);
  });
  after(async () => {
    for (const socket of [makerSocket, takerSocket, anonymous]) socket?.close();
    await svc?.stop();
  });

  it('orderbook: snapshot then deltas equal the REST book, seq +1 each, quantity "0" removes a level', async () => {
    const joined = await join(takerSocket, 'orderbook', { market_ids: [marketId] });
    expect(joined.response.orderbooks).to.have.length(1);
    const snapshot = joined.response.orderbooks[0];
    expect(snapshot).to.include({ market_id: marketId });
    expect(snapshot.seq).to.be.a('number');
    const book = new ClientBook(snapshot);

    await place(maker, { action: 'sell', price: '0.60', quantity: '10' });
    await place(maker, { action: 'sell', price: '0.55', quantity: '5' });
    const bid = await place(maker, { action: 'buy', price: '0.40', quantity: '3' });
    let seen = await converge(book, joined, 0);
    // a cancel empties the bid level: the delta carries "0"
    expect(
      (await maker.call('DELETE', '/api/v1/orders/batched', { body: { orders: [{ order_id: bid.id }] } })).status,
    ).to.equal(200);
    const removal = await joined.next('delta', (d) =>
      d.bids.some(([price, quantity]: Level) => price === '0.40' && quantity === '0'),
    );
    expect(removal.market_id).to.equal(marketId);
    seen = await converge(book, joined, seen);
    // a taker buy lifts the best offer partly
    await place(taker, { action: 'buy', price: '0.55', quantity: '2' });
    await converge(book, joined, seen);
    expect(book.gaps).to.equal(0);
    expect(book.view().offers).to.deep.equal([
      { price: '0.60', quantity: '10' },
      { price: '0.55', quantity: '3' },
    ]);
    await joined.leave();
  });

  it('orderbook: a client that misses a delta sees the gap, rejoins, and is whole again', async () => {
    const first = await join(takerSocket, 'orderbook', { market_ids: [marketId] });
    const book = new ClientBook(first.response.orderbooks[0]);
    await place(maker, { action: 'buy', price: '0.31', quantity: '1' });
    await place(maker, { action: 'buy', price: '0.32', quantity: '1' });
    // drop the first delta on purpose: the next one shows the gap
    await first.next('delta', (d) => d.seq === book.seq + 1);
    const second = await first.next('delta', (d) => d.seq === book.seq + 2);
    book.apply(second);
    expect(book.gaps).to.equal(1);
    // resync: join again, the new snapshot replaces the book
    const again = await join(takerSocket, 'orderbook', { market_ids: [marketId] });
    const fresh = new ClientBook(again.response.orderbooks[0]);
    expect(fresh.seq).to.be.at.least(second.seq);
    await place(maker, { action: 'buy', price: '0.33', quantity: '1' });
    await converge(fresh, again, 0);
    expect(fresh.gaps).to.equal(0);
    await again.leave();
  });

  it('trades, ticker, market_updates and events push what REST then reads', async () => {
    // a market of its own, on an event of its own: the earlier tests left resting orders
    const market = await svc.market();
    marketId = market.market_id;
    eventId = market.event_id;
    const trades = await join(takerSocket, 'trades', { market_ids: [marketId] });
    expect(trades.response.trades).to.be.an('array');
    const ticker = await join(takerSocket, 'ticker', { market_ids: [marketId] });
    expect(ticker.response.tickers[0]).to.include({ market_id: marketId });
    const updates = await join(takerSocket, 'market_updates', { market_ids: [marketId] });
    expect(updates.response.markets[0]).to.include({ market_id: marketId, status: 'open', trading: true });
    const events = await join(anonymous, 'events', { event_ids: [eventId] });
    expect(events.response.events[0]).to.include({ event_id: eventId });

    await place(maker, { action: 'sell', price: '0.70', quantity: '4' });
    await place(taker, { action: 'buy', price: '0.70', quantity: '4' });
    const trade = await trades.next('trade', (t) => t.price === '0.70');
    expect(trade).to.include({ market_id: marketId, price: '0.70', quantity: '4', taker_action: 'buy' });
    expect(trade.time).to.be.a('string');
    const rest = await restMarket();
    expect(rest.recent_trades[0]).to.include({ trade_id: trade.trade_id, price: '0.70', quantity: '4' });

    const tick = await ticker.next('ticker', (t) => t.last_traded_price === '0.70');
    expect(tick).to.include({
      market_id: marketId,
      price: rest.price,
      last_traded_price: rest.last_traded_price,
      probability: rest.probability,
      volume24h: rest.volume24h,
    });

    const volume = await events.next('volume', (v) => v.total_volume === rest.total_volume);
    expect(volume).to.deep.include({ event_id: eventId, total_volume: '4' });

    await svc.admin('POST', `/markets/${marketId}/status`, { trading: false });
    const halted = await updates.next('market', (m) => m.trading === false);
    const after = await restMarket();
    expect(halted).to.include({ market_id: marketId, status: after.status, trading: after.trading });
    expect(halted.status).to.equal('suspended');
    await svc.admin('POST', `/markets/${marketId}/status`, { trading: true });
    await updates.next('market', (m) => m.trading === true);
    for (const joined of [trades, ticker, updates, events]) await joined.leave();
  });

  it('market data needs an authenticated socket; the payload names known markets', async () => {
    for (const topic of ['orderbook', 'ticker', 'trades', 'market_updates']) {
      expect(await refusedJoin(anonymous, topic, { market_ids: [marketId] })).to.deep.equal({ reason: 'unauthorized' });
    }
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(await refusedJoin(takerSocket, 'orderbook', { market_ids: [unknown] })).to.deep.equal({
      reason: 'unknown market',
      market_ids: [unknown],
    });
    expect((await refusedJoin(takerSocket, 'ticker', {})).reason).to.equal('invalid payload');
    expect((await refusedJoin(takerSocket, 'trades', { market_ids: 'x' })).reason).to.equal('invalid payload');
  });
});
