// One suite for every OrderBook: price-time priority, trades at the resting price, market orders
// never rest, O(1) cancel; the invariants are asserted after every step of random streams, and
// the fast book must behave exactly like the reference book.

import { expect } from 'chai';
import fc from 'fast-check';
import type { OrderBook } from '../../../domain/book/book.ts';
import { FastOrderBook } from '../../../domain/book/fast.ts';
import { assertBookInvariants, matchIncoming, type IncomingOrder } from '../../../domain/book/match.ts';
import { ReferenceOrderBook } from '../../../domain/book/reference.ts';

const MAX = 100;
const books: [string, () => OrderBook][] = [
  ['reference', () => new ReferenceOrderBook(MAX)],
  ['fast', () => new FastOrderBook(MAX)],
];

/** A limit order; each has its own owner unless one is given. */
const limit = (id: string, side: 'buy' | 'sell', price: number, qty: number, owner = `owner-${id}`): IncomingOrder => ({
  id,
  ownerId: owner,
  side,
  limitCents: price,
  quantityNanos: qty,
});

for (const [name, make] of books) {
  describe(`order book: ${name}`, () => {
    it('rests non-crossing limit orders, best price first', () => {
      const book = make();
      matchIncoming(book, limit('b1', 'buy', 40, 5));
      matchIncoming(book, limit('b2', 'buy', 45, 5));
      matchIncoming(book, limit('s1', 'sell', 60, 5));
      assertBookInvariants(book);
      expect(book.bestPrice('buy')).to.equal(45);
      expect(book.bestPrice('sell')).to.equal(60);
      expect(book.best('buy')!.id).to.equal('b2');
    });

    it('trades at the resting price, oldest first within a level (price-time priority)', () => {
      const book = make();
      matchIncoming(book, limit('s1', 'sell', 55, 3));
      matchIncoming(book, limit('s2', 'sell', 50, 3));
      matchIncoming(book, limit('s3', 'sell', 50, 3));
      const result = matchIncoming(book, limit('b', 'buy', 60, 7));
      expect(result.trades.map((t) => [t.makerOrderId, t.priceCents, t.nanos])).to.deep.equal([
        ['s2', 50, 3],
        ['s3', 50, 3],
        ['s1', 55, 1],
      ]);
      expect(result.rested).to.equal(false);
      expect(book.get('s1')!.remainingNanos).to.equal(2);
      assertBookInvariants(book);
    });

    it('rests the remainder of a limit order at its own price', () => {
      const book = make();
      matchIncoming(book, limit('s1', 'sell', 50, 3));
      const result = matchIncoming(book, limit('b', 'buy', 52, 5));
      expect(result.filledNanos).to.equal(3);
      expect(result.rested).to.equal(true);
      expect(book.bestPrice('buy')).to.equal(52);
      assertBookInvariants(book);
    });

    it('never rests a market order', () => {
      const book = make();
      matchIncoming(book, limit('s1', 'sell', 50, 3));
      const result = matchIncoming(book, {
        id: 'm',
        ownerId: 'taker',
        side: 'buy',
        limitCents: null,
        quantityNanos: 10,
      });
      expect(result.filledNanos).to.equal(3);
      expect(result.rested).to.equal(false);
      expect(book.size()).to.equal(0);
      assertBookInvariants(book);
    });

    it("cancels the incoming owner's own resting orders instead of trading with them (self-trade prevention) and fills behind them", () => {
      const book = make();
      matchIncoming(book, limit('mine', 'sell', 50, 2, 'me'));
      matchIncoming(book, limit('theirs', 'sell', 50, 2, 'them'));
      matchIncoming(book, limit('mine2', 'sell', 51, 2, 'me'));
      const cancelled: string[] = [];
      const result = matchIncoming(book, limit('b', 'buy', 51, 3, 'me'), {
        onCancelled: (resting, selfTrade) => {
          if (selfTrade) cancelled.push(resting.id);
        },
      });
      expect(result.trades.map((t) => [t.makerOrderId, t.nanos])).to.deep.equal([['theirs', 2]]);
      expect(result.cancelled).to.deep.equal(['mine', 'mine2']);
      expect(cancelled).to.deep.equal(['mine', 'mine2']);
      expect(result.rested).to.equal(true);
      expect(book.get('b')!.remainingNanos).to.equal(1);
      assertBookInvariants(book);
    });

    it('follows its policy: a resting order it cancels is skipped, a stop leaves the remainder unrested', () => {
      const book = make();
      for (const [id, price] of [
        ['s1', 50],
        ['s2', 51],
        ['s3', 52],
      ] as const)
        matchIncoming(book, limit(id, 'sell', price, 2));
      const traded: string[] = [];
      const result = matchIncoming(book, limit('b', 'buy', 60, 10), {
        beforeTrade: (resting) => (resting.id === 's1' ? 'cancel_resting' : resting.id === 's3' ? 'stop' : 'trade'),
        onTrade: (resting, nanos, price) => traded.push(`${resting.id}:${nanos}@${price}`),
      });
      expect(traded).to.deep.equal(['s2:2@51']);
      expect(result).to.include({ filledNanos: 2, rested: false, stopped: true });
      expect(result.cancelled).to.deep.equal(['s1']);
      expect(book.get('s3')!.remainingNanos).to.equal(2);
      expect(book.get('b')).to.equal(undefined);
      assertBookInvariants(book);
    });

    it('does not rest a limited order that may not rest (a market order held to its worst price)', () => {
      const book = make();
      matchIncoming(book, limit('s1', 'sell', 50, 3));
      matchIncoming(book, limit('s2', 'sell', 55, 3));
      const result = matchIncoming(book, {
        id: 'm',
        ownerId: 'taker',
        side: 'buy',
        limitCents: 50,
        quantityNanos: 5,
        rests: false,
      });
      expect(result).to.include({ filledNanos: 3, rested: false, stopped: false });
      expect(book.bestPrice('sell')).to.equal(55);
      expect(book.bestPrice('buy')).to.equal(-1);
    });

    it('cancels from the middle of a level and keeps FIFO for the rest', () => {
      const book = make();
      for (const id of ['a', 'b', 'c']) matchIncoming(book, limit(id, 'buy', 40, 1));
      expect(book.cancel('b')!.id).to.equal('b');
      expect(book.cancel('b')).to.equal(undefined);
      expect(book.levels('buy')[0]!.orders.map((o) => o.id)).to.deep.equal(['a', 'c']);
      assertBookInvariants(book);
    });

    it('reports the price needed to fill a size', () => {
      const book = make();
      matchIncoming(book, limit('s1', 'sell', 50, 3));
      matchIncoming(book, limit('s2', 'sell', 70, 3));
      expect(book.priceToFill('buy', 2)).to.equal(50);
      expect(book.priceToFill('buy', 5)).to.equal(70);
      expect(book.priceToFill('buy', 50)).to.equal(70);
      expect(book.priceToFill('sell', 1)).to.equal(-1);
    });

    it("leaves one owner's orders out of the price needed to fill a size", () => {
      const book = make();
      matchIncoming(book, limit('own1', 'buy', 30, 1, 'me'));
      matchIncoming(book, limit('other', 'buy', 30, 1, 'them'));
      matchIncoming(book, limit('own2', 'buy', 25, 5, 'me'));
      matchIncoming(book, limit('deep', 'buy', 20, 4, 'them'));
      expect(book.priceToFill('sell', 2)).to.equal(30);
      expect(book.priceToFill('sell', 2, 'me')).to.equal(20);
      expect(book.priceToFill('sell', 1, 'me')).to.equal(30);
      expect(book.priceToFill('sell', 50, 'me')).to.equal(20);
      expect(book.priceToFill('sell', 1, 'them')).to.equal(30);
      expect(book.priceToFill('sell', 2, 'them')).to.equal(25);
      expect(book.priceToFill('buy', 1, 'me')).to.equal(-1);
    });
  });
}

describe('order books agree on random streams', () => {
  const operation = fc.oneof(
    fc.record({
      kind: fc.constant('limit' as const),
      side: fc.constantFrom('buy' as const, 'sell' as const),
      price: fc.integer({ min: 1, max: MAX - 1 }),
      qty: fc.integer({ min: 1, max: 20 }),
    }),
    fc.record({
      kind: fc.constant('market' as const),
      side: fc.constantFrom('buy' as const, 'sell' as const),
      qty: fc.integer({ min: 1, max: 30 }),
    }),
    fc.record({ kind: fc.constant('cancel' as const), index: fc.nat() }),
  );
  it('same trades, same levels, invariants after every step', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 200 }), (operations) => {
        const reference = new ReferenceOrderBook(MAX);
        const fast = new FastOrderBook(MAX);
        const ids: string[] = [];
        operations.forEach((op, i) => {
          const id = `o${i}`;
          if (op.kind === 'cancel') {
            const target = ids[op.index % Math.max(ids.length, 1)];
            if (target) expect(fast.cancel(target)?.id).to.equal(reference.cancel(target)?.id);
          } else {
            const owner = i % 3 === 0 ? 'y' : 'x';
            for (const side of ['buy', 'sell'] as const)
              expect(fast.priceToFill(side, op.qty, owner)).to.equal(reference.priceToFill(side, op.qty, owner));
            const incoming: IncomingOrder = {
              id,
              ownerId: owner,
              side: op.side,
              limitCents: op.kind === 'limit' ? op.price : null,
              quantityNanos: op.qty,
            };
            const a = matchIncoming(reference, { ...incoming });
            const b = matchIncoming(fast, { ...incoming });
            expect(b).to.deep.equal(a);
            for (const trade of b.trades) expect(trade.makerOwnerId).to.not.equal(owner); // never a self-trade
            ids.push(id);
          }
          assertBookInvariants(reference);
          assertBookInvariants(fast);
          expect(fast.levels('buy')).to.deep.equal(reference.levels('buy'));
          expect(fast.levels('sell')).to.deep.equal(reference.levels('sell'));
        });
      }),
      { numRuns: 200 },
    );
  });
});

describe('FastOrderBook: changed levels (what the engine publishes after a journaled batch)', () => {
  it('lists each moved level once with its total now, 0 when emptied, and forgets them once taken', () => {
    const book = new FastOrderBook(100);
    book.add({ id: 'a', ownerId: 'x', side: 'buy', priceCents: 40, remainingNanos: 2_000_000_000 });
    book.add({ id: 'b', ownerId: 'y', side: 'buy', priceCents: 40, remainingNanos: 1_000_000_000 });
    book.add({ id: 'c', ownerId: 'y', side: 'sell', priceCents: 60, remainingNanos: 1_000_000_000 });
    expect(book.takeChangedLevels()).to.deep.equal([
      { side: 'buy', priceCents: 40, totalNanos: 3_000_000_000 },
      { side: 'sell', priceCents: 60, totalNanos: 1_000_000_000 },
    ]);
    expect(book.takeChangedLevels()).to.deep.equal([]);
    book.fill('a', 500_000_000);
    book.cancel('c');
    expect(book.takeChangedLevels()).to.deep.equal([
      { side: 'buy', priceCents: 40, totalNanos: 2_500_000_000 },
      { side: 'sell', priceCents: 60, totalNanos: 0 },
    ]);
  });
});
