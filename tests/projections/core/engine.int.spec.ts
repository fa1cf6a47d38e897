// The core read models fed by the real engine: a seeded random session (accounts, deposits,
// limit and market orders crossing, cancels, trading halts, a result) is journaled one record
// per input, then projected in uneven batches. The projected book, balances, orders, open
// interest and volume must equal what the journal's final snapshots say, and projecting the
// same journal in one batch, or twice, must give the very same rows.

import { expect } from 'chai';
import { Big } from '../../../domain/money/big.ts';
import type { BalanceView, OrderView } from '../../../domain/views.ts';
import { getBalance } from '../../../projections/core/queries/accounts.ts';
import { getMarket } from '../../../projections/core/queries/markets.ts';
import { listOrders } from '../../../projections/core/queries/orders.ts';
import { listPositions } from '../../../projections/core/queries/positions.ts';
import { renderBalance, renderOrder } from '../../../projections/core/render.ts';
import { BOOK_DEPTH_MAX } from '../../../projections/core/market.ts';
import { expectReplayedAlike, projectedDatabase } from './fixtures.ts';
import { engineSession, finalSnapshots, recordsOf, seeded } from './session.ts';

describe('core read models fed by the engine', () => {
  const random = seeded(7);
  const session = engineSession({ seed: 20260101, accounts: 6, markets: 3, inputs: 600 });
  const { accountIds, marketIds, nowUs } = session;
  const records = recordsOf(session.steps);

  function referenceBook(orders: Iterable<OrderView>, marketId: string) {
    const levels = { buy: new Map<string, Big>(), sell: new Map<string, Big>() };
    for (const o of orders) {
      if (
        o.market_id !== marketId ||
        o.order_type !== 'limit' ||
        o.price === null ||
        !['open', 'accepted'].includes(o.status)
      )
        continue;
      const remaining = new Big(o.quantity).minus(o.filled);
      if (remaining.lte(0)) continue;
      const side = levels[o.action];
      side.set(o.price, (side.get(o.price) ?? new Big(0)).plus(remaining));
    }
    const render = (entries: Array<[string, Big]>) =>
      entries.map(([price, quantity]) => ({ price, quantity: quantity.toFixed() }));
    const byPriceDesc = (a: [string, Big], b: [string, Big]) => new Big(b[0]).cmp(a[0]);
    return {
      bids: render([...levels.buy.entries()].sort(byPriceDesc).slice(0, BOOK_DEPTH_MAX)),
      offers: render([...levels.sell.entries()].sort(byPriceDesc).slice(-BOOK_DEPTH_MAX)),
    };
  }

  it('journals a session with trades, cancels, halts and resting orders', () => {
    const events = session.steps.flatMap((step) => step.events);
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count('Traded')).to.be.greaterThan(50);
    expect(count('LotClosed')).to.be.greaterThan(0);
    expect(count('MarketStatusChanged')).to.be.greaterThan(10);
    expect(count('OrderCancelled')).to.be.greaterThan(0);
    const { orders } = finalSnapshots(session.steps);
    expect([...orders.values()].filter((o) => o.status === 'open').length).to.be.greaterThan(10);
  });

  it("shows the journal's final state: book levels, balances, orders, positions, volume and open interest", async () => {
    const p = await projectedDatabase();
    try {
      // uneven batches, as a subscription would deliver them
      let at = 0;
      while (at < records.length) {
        const size = 1 + Math.floor(random() * 40);
        await p.project(...records.slice(at, at + size));
        at += size;
      }
      const { orders, balances, positions, volume } = finalSnapshots(session.steps);
      for (const marketId of marketIds) {
        const wire = await getMarket(p.db.pool, marketId, nowUs);
        const reference = referenceBook(orders.values(), marketId);
        expect(wire?.bids, `bids of ${marketId}`).to.deep.equal(reference.bids);
        expect(wire?.offers, `offers of ${marketId}`).to.deep.equal(reference.offers);
        expect(wire?.total_volume).to.equal((volume.get(marketId) ?? new Big(0)).toFixed());
        const longs = [...positions.values()].filter((x) => x.market_id === marketId && new Big(x.position).gt(0));
        expect(wire?.open_interest).to.equal(longs.reduce((sum, x) => sum.plus(x.position), new Big(0)).toFixed());
      }
      for (const accountId of accountIds) {
        expect(await getBalance(p.db.pool, accountId)).to.deep.equal(
          renderBalance(balances.get(accountId) as BalanceView),
        );
        const mine = [...orders.values()].filter((o) => o.account_id === accountId);
        const listed = await listOrders(p.db.pool, accountId, {}, { limit: 200 });
        expect(listed.orders.map((o) => o.id).sort()).to.deep.equal(mine.map((o) => o.id).sort());
        for (const o of listed.orders) expect(o).to.deep.equal(renderOrder(orders.get(o.id) as OrderView));
        const open = [...positions.values()].filter((x) => x.account_id === accountId && !new Big(x.position).eq(0));
        const listedPositions = (await listPositions(p.db.pool, accountId)).positions;
        expect(listedPositions.map((x) => x.market_id).sort()).to.deep.equal(open.map((x) => x.market_id).sort());
        const sizes = listedPositions.map((x) => new Big(x.contracts).toNumber());
        expect(sizes).to.deep.equal([...sizes].sort((a, b) => b - a));
      }

      // the same journal in one batch, and then again, leaves the very same rows
      await expectReplayedAlike(records, p.db.pool);
    } finally {
      await p.db.drop();
    }
  });
});
