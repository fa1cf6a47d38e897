// The order book's `seq` is a function of the journal: a second service started on the same
// PostgreSQL (its own DATA_DIR, so its engine replays the journal from the start) shows every
// market's book at the same seq as the service that decided the orders, so a client that
// reconnects to the other node resyncs by the snapshot rule; and a restarted service (from its
// snapshot plus the journal tail) shows the same seq again. Over real sockets with the official
// Phoenix client.

import { expect } from 'chai';
import { startWholeService, type Member, type WholeService, placeLimit } from '../api/v1/harness.ts';
import { connect, join } from './phoenix.ts';

type Book = { market_id: string; seq: number; bids: Array<[string, string]>; offers: Array<[string, string]> };

async function books(svc: WholeService, member: Member, marketIds: string[]): Promise<Book[]> {
  const socket = await connect(svc.socketUrl, { key: member.key });
  try {
    const joined = await join(socket, 'orderbook', { market_ids: marketIds });
    return joined.response.orderbooks as Book[];
  } finally {
    socket.close();
  }
}

describe('realtime: the order book seq is the same on every node', function () {
  this.timeout(120_000);
  let first: WholeService | undefined;
  let second: WholeService | undefined;

  after(async () => {
    await second?.stop();
    await first?.stop();
  });

  it('a second service on the same database shows every market at the seq the first one published', async () => {
    first = await startWholeService();
    const maker = await first.member();
    const taker = await first.member();
    const marketIds = [(await first.market()).market_id, (await first.market()).market_id];
    const trade = async (round: number) => {
      for (const [i, marketId] of marketIds.entries()) {
        await placeLimit(maker, { market_id: marketId, action: 'sell', price: `0.${50 + round + i}`, quantity: '3' });
        await placeLimit(maker, { market_id: marketId, action: 'buy', price: `0.${30 - round - i}`, quantity: '2' });
        await placeLimit(taker, { market_id: marketId, action: 'buy', price: `0.${50 + round + i}`, quantity: '1' });
      }
      // concurrent orders: several in one group commit
      await Promise.all(
        marketIds.flatMap((marketId) =>
          [1, 2, 3].map((k) =>
            placeLimit(taker, { market_id: marketId, action: 'buy', price: `0.${10 + k}`, quantity: '1' }),
          ),
        ),
      );
    };
    await trade(1);
    await trade(2);
    const published = await books(first, maker, marketIds);
    for (const book of published) expect(book.seq).to.be.above(3);

    second = await startWholeService({ DATABASE_URL: first.service.ctx.config.databaseUrl! });
    expect(await books(second, maker, marketIds)).to.deep.equal(published);

    // the first decides more; the second node started from zero, the first keeps counting
    await trade(3);
    const after = await books(first, maker, marketIds);
    for (const [i, book] of after.entries()) expect(book.seq).to.be.above(published[i]!.seq);
    await second.stop();
    second = await startWholeService({ DATABASE_URL: first.service.ctx.config.databaseUrl! });
    expect(await books(second, maker, marketIds)).to.deep.equal(after);
  });
});
