// Live orders, balances and positions read from the engine's published view (api/v1/liveReads.ts)
// give exactly what the read models give: a long seeded random workload over HTTP (limit and
// market orders crossing, batches of legs, cancels, a pre-open market opened, a halt), requests
// sent concurrently so that journal records hold many steps; at checkpoints, once the read
// models caught up, the same requests go to both sources and must answer alike, page by page,
// cursors included. And a member's read of a live order after its own write is answered from
// the view, without waiting for the projectors.

import { expect } from 'chai';
import { liveBalanceOf, liveOrderOf, liveOrdersOf, livePositionsOf } from '../../../api/v1/liveReads.ts';
import { seededRandom } from '../../../domain/random.ts';
import { LIVE_ORDER_STATUSES } from '../../../domain/views.ts';
import { getBalance } from '../../../projections/core/queries/accounts.ts';
import { getOrder, listOrders } from '../../../projections/core/queries/orders.ts';
import { listPositions } from '../../../projections/core/queries/positions.ts';
import { startWholeService, type Answer, type Member, type WholeService } from './harness.ts';

describe("live state from the engine's view (GET /orders, /orders/{id}, /account/balance, /positions)", () => {
  let svc: WholeService;
  let members: Member[];
  let marketIds: string[];
  const random = seededRandom(20261127);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;

  before(async () => {
    svc = await startWholeService();
    members = [];
    for (let i = 0; i < 5; i++) members.push(await svc.member('2000'));
    marketIds = [
      (await svc.market()).market_id,
      (await svc.market()).market_id,
      (await svc.market({ status: 'pre_open' })).market_id,
    ];
  });
  after(async () => {
    await svc?.stop();
  });

  const caughtUp = async () => svc.ctx.projections.waitFor(await svc.store.headPosition(), 30_000);

  it("a member's GET /orders/{id} right after its own POST is answered from the view: the read models have not seen the order", async () => {
    const [alice] = members as [Member];
    await caughtUp();
    // the projectors are held back: they cannot write the orders read model until the lock goes
    const holder = await svc.ctx.pool.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE core_orders IN EXCLUSIVE MODE');
    let placed: Answer;
    let balance: Answer;
    try {
      placed = await alice.call('POST', '/api/v1/orders', {
        body: { action: 'buy', market_id: marketIds[0], order_type: 'limit', price: '0.05', quantity: '1' },
      });
      expect(placed.status, placed.text).to.equal(200);
      const read = await alice.call('GET', `/api/v1/orders/${placed.body.order.id}`);
      expect(read.status, read.text).to.equal(200);
      expect(read.body.order).to.deep.equal(placed.body.order);
      balance = await alice.call('GET', '/api/v1/account/balance');
      const open = await alice.call('GET', '/api/v1/orders?status=open');
      expect(open.body.orders.map((o: { id: string }) => o.id)).to.include(placed.body.order.id);
      const positions = await alice.call('GET', '/api/v1/positions');
      expect(positions.status).to.equal(200);
      // nothing waited for the projectors: the read model still lacks the order
      expect(
        (await svc.ctx.pool.query('SELECT 1 FROM core_orders WHERE id = $1', [placed.body.order.id])).rowCount,
      ).to.equal(0);
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    await caughtUp();
    expect(balance.body.balance).to.deep.equal(await getBalance(svc.ctx.pool, alice.account_id));
    expect(balance.body.balance.buy_order_liability).to.not.equal('0.00');
    // a read the view cannot answer (every status) waits for the read models, as before
    const all = await alice.call('GET', '/api/v1/orders');
    expect(all.body.orders.map((o: { id: string }) => o.id)).to.include(placed.body.order.id);
  });

  it('answers what the read models answer, page by page and cursor by cursor, through a long random workload', async function () {
    this.timeout(240_000);
    const placed = new Map<string, string>(); // order id -> account id
    const clientIds: string[] = [];
    let checkpoints = 0;
    const compared = { orders: 0, pages: 0, positions: 0 };

    const orderBody = (): Record<string, unknown> => {
      const isMarket = random() < 0.1;
      const clientOrderId = random() < 0.3 ? `c-${Math.floor(random() * 40)}` : undefined;
      if (clientOrderId) clientIds.push(clientOrderId);
      return {
        action: random() < 0.5 ? 'buy' : 'sell',
        market_id: pick(marketIds),
        order_type: isMarket ? 'market' : 'limit',
        price: isMarket ? '1.00' : (0.3 + Math.floor(random() * 30) / 100).toFixed(2),
        quantity: String(1 + Math.floor(random() * 9)),
        ...(clientOrderId ? { client_order_id: clientOrderId } : {}),
      };
    };
    const note = (who: Member, order: { id: string } | undefined) => {
      if (order) placed.set(order.id, who.account_id);
    };
    const operation = async (step: number): Promise<void> => {
      const who = pick(members);
      const roll = random();
      if (roll < 0.55) {
        const answer = await who.call('POST', '/api/v1/orders', { body: orderBody() });
        note(who, answer.body?.order);
      } else if (roll < 0.7) {
        const answer = await who.call('POST', '/api/v1/orders/batched', {
          body: { orders: [orderBody(), orderBody()] },
        });
        for (const result of answer.body?.results ?? []) note(who, result.order);
      } else if (roll < 0.97) {
        const mine = [...placed].filter(([, accountId]) => accountId === who.account_id).map(([id]) => id);
        if (mine.length === 0) return;
        await who.call('DELETE', '/api/v1/orders/batched', {
          body: {
            orders: [{ order_id: pick(mine) }, { order_id: pick(mine) }].filter(
              (o, i, all) => all.findIndex((x) => x.order_id === o.order_id) === i,
            ),
          },
        });
      } else {
        const marketId = pick(marketIds.slice(0, 2));
        await svc.admin('POST', `/markets/${marketId}/status`, { status: step % 2 === 0 ? 'open' : 'closed' });
      }
    };

    async function pagesAlike(accountId: string, filters: Parameters<typeof listOrders>[2]): Promise<void> {
      const limit = 1 + Math.floor(random() * 6);
      let cursor: string | null = null;
      for (let guard = 0; guard < 500; guard++) {
        const live = liveOrdersOf(svc.ctx, accountId, filters, { limit, cursor });
        expect(live, 'the view answers a live-only list').to.not.equal(undefined);
        const stored = await listOrders(svc.ctx.pool, accountId, filters, { limit, cursor });
        expect(live).to.deep.equal(stored);
        compared.pages++;
        cursor = stored.cursor;
        if (cursor === null) return;
      }
      throw new Error('paging did not end');
    }

    async function sourcesAlike(): Promise<void> {
      await caughtUp();
      checkpoints++;
      const liveStatuses = LIVE_ORDER_STATUSES;
      for (const who of members) {
        const accountId = who.account_id;
        // every order: the view holds it exactly when the read model shows it live, and alike
        for (const [orderId, owner] of placed) {
          const stored = await getOrder(svc.ctx.pool, accountId, orderId);
          const live = liveOrderOf(svc.ctx, accountId, orderId);
          if (owner !== accountId) {
            expect(live).to.equal(undefined);
            continue;
          }
          if (stored && liveStatuses.includes(stored.status)) {
            expect(live, `live order ${orderId}`).to.deep.equal(stored);
            compared.orders++;
          } else {
            expect(live, `order ${orderId} (${stored?.status}) is not in the view`).to.equal(undefined);
          }
        }
        await pagesAlike(accountId, { statuses: ['open'] });
        await pagesAlike(accountId, { statuses: ['accepted', 'open', 'delayed'] });
        await pagesAlike(accountId, { statuses: ['accepted'], marketIds: [marketIds[2] as string] });
        await pagesAlike(accountId, { statuses: ['open'], marketIds: [pick(marketIds), pick(marketIds)] });
        if (clientIds.length > 0)
          await pagesAlike(accountId, {
            statuses: ['open', 'accepted'],
            clientOrderIds: [pick(clientIds), pick(clientIds)],
          });
        const someIds = [...placed.keys()].filter(() => random() < 0.3);
        await pagesAlike(accountId, { statuses: ['open'], orderIds: someIds });

        expect(liveBalanceOf(svc.ctx, accountId)).to.deep.equal(await getBalance(svc.ctx.pool, accountId));
        const limit = 1 + Math.floor(random() * 2);
        let cursor: string | null = null;
        do {
          const live = livePositionsOf(svc.ctx, accountId, { limit, cursor });
          const stored = await listPositions(svc.ctx.pool, accountId, { limit, cursor });
          expect(live).to.deep.equal(stored);
          compared.positions += stored.positions.length;
          cursor = stored.cursor;
        } while (cursor !== null);
      }
    }

    for (let round = 0; round < 30; round++) {
      const ops: Promise<void>[] = [];
      for (let i = 0; i < 24; i++) ops.push(operation(round * 24 + i));
      await Promise.all(ops);
      if (round === 10) await svc.admin('POST', `/markets/${marketIds[2]}/status`, { status: 'open' });
      if (round % 5 === 4) await sourcesAlike();
    }
    await sourcesAlike();
    expect(checkpoints).to.be.greaterThan(5);
    expect(compared.orders, 'live orders compared').to.be.greaterThan(100);
    expect(compared.pages).to.be.greaterThan(200);
    expect(compared.positions, 'positions compared').to.be.greaterThan(10);
  });
});
