// client.feed() against a real service: the local order book from snapshot + deltas, its resync
// after a forced seq gap (a proxy drops one delta) and after the service restarts (seq starts
// again), private channels as typed streams, cancel_on_disconnect, and heartbeats keeping a quiet
// socket open past the service's heartbeat timeout.

import { expect } from 'chai';
import {
  apiKey,
  createClient,
  FeedJoinError,
  oauth,
  session,
  type BookEvent,
  type ExchangeClient,
  type OrderBook,
} from '@event-exchange/client';
import { freePort, testDatabase, type TestDatabase } from '../support/pg.ts';
import {
  eventually,
  FeedProxy,
  oauthMemberTokens,
  startService,
  useService,
  type Admin,
  type Service,
} from './support.ts';

/** The book as `{price: quantity}` per side, for comparing with what was placed. */
const sides = (book: OrderBook) => ({ bids: Object.fromEntries(book.bids), offers: Object.fromEntries(book.offers) });

async function drain(book: OrderBook, events: BookEvent[]): Promise<void> {
  for await (const event of book) events.push(event);
}

describe('client: the feed against a live service', function () {
  this.timeout(120_000);

  describe('order book and private streams', () => {
    const suite = useService();
    let marketId: string;
    let member: Awaited<ReturnType<Admin['member']>>;
    let client: ExchangeClient;

    before(async () => {
      marketId = await suite.service.admin.market();
      member = await suite.service.admin.member();
      client = createClient({
        baseUrl: suite.service.baseUrl,
        wsUrl: suite.service.wsUrl,
        credentials: apiKey(member.keyId, member.privateKey),
      });
    });

    const bid = (price: string, quantity: string) =>
      client.placeOrder({ market_id: marketId, action: 'buy', order_type: 'limit', price, quantity });

    it('keeps a local book from the snapshot and every delta, with an event per change', async () => {
      await bid('0.40', '5');
      const feed = client.feed();
      const book = feed.orderBook(marketId);
      const events: BookEvent[] = [];
      const draining = drain(book, events);
      await book.ready();
      expect(sides(book)).to.deep.equal({ bids: { '0.40': '5' }, offers: {} });
      await bid('0.41', '2');
      await client.placeOrder({
        market_id: marketId,
        action: 'sell',
        order_type: 'limit',
        price: '0.60',
        quantity: '7',
      });
      await eventually('two deltas', () => events.filter((event) => event.type === 'delta').length === 2);
      expect(sides(book)).to.deep.equal({ bids: { '0.41': '2', '0.40': '5' }, offers: { '0.60': '7' } });
      expect(book.bestBid).to.deep.equal(['0.41', '2']);
      expect(book.bestOffer).to.deep.equal(['0.60', '7']);
      expect(events[0]).to.include({ type: 'snapshot', reason: 'join' });
      expect(book.resyncs).to.equal(0);
      book.close();
      await draining;
      await feed.close();
      await client.cancelAll();
    });

    it('a dropped delta (seq gap): the book joins again, replaces itself with the new snapshot, and ends right', async () => {
      const proxy = await new FeedProxy(suite.service.wsUrl).start();
      try {
        const viaProxy = createClient({
          baseUrl: suite.service.baseUrl,
          wsUrl: proxy.url,
          credentials: apiKey(member.keyId, member.privateKey),
        });
        const feed = viaProxy.feed();
        const book = feed.orderBook(marketId);
        const events: BookEvent[] = [];
        const draining = drain(book, events);
        await book.ready();
        proxy.dropNext((frame) => frame[2] === 'orderbook' && frame[3] === 'delta');
        await bid('0.30', '1'); // its delta is lost
        await eventually('the proxy dropped a delta', () => proxy.dropped === 1);
        await bid('0.31', '2'); // this delta reveals the gap
        await eventually('a resync', () => book.resyncs === 1 && sides(book).bids['0.31'] === '2');
        expect(sides(book).bids).to.include({ '0.30': '1', '0.31': '2' });
        expect(events.find((event) => event.type === 'snapshot' && event.reason === 'gap')).to.not.equal(undefined);
        await bid('0.32', '3'); // deltas flow again after the new snapshot
        await eventually('the next delta', () => sides(book).bids['0.32'] === '3');
        book.close();
        await draining;
        await feed.close();
      } finally {
        await proxy.stop();
        await client.cancelAll();
      }
    });

    it('private channels are typed streams: a snapshot, then each update', async () => {
      const feed = client.feed();
      const orders = feed.orders()[Symbol.asyncIterator]();
      const first = await orders.next();
      expect(first.value).to.include({ type: 'snapshot' });
      const placed = await bid('0.12', '4');
      let update = await orders.next();
      while (update.value.type !== 'update' || update.value.order.id !== placed.id) update = await orders.next();
      expect(update.value.order).to.include({ id: placed.id, price: '0.12', quantity: '4' });
      const balances = feed.balances()[Symbol.asyncIterator]();
      const balance = await balances.next();
      expect(balance.value).to.deep.include({ type: 'snapshot' });
      expect(balance.value.type === 'snapshot' && balance.value.balance.account_balance).to.equal('1000.00');
      await orders.return!();
      await balances.return!();
      await feed.close();
      await client.cancelAll();
    });

    it('an OAuth token goes on the handshake (x-svc-oauth-token); a session client connects anonymously', async () => {
      const { clientId, tokens, accountId, userId } = await oauthMemberTokens(suite.service, suite.service.admin, [
        'orders.read',
        'balance.read',
      ]);
      const viaOAuth = createClient({
        baseUrl: suite.service.baseUrl,
        wsUrl: suite.service.wsUrl,
        credentials: oauth({ clientId, ...tokens }),
      });
      const oauthFeed = viaOAuth.feed({ userId }); // without profile.read the token cannot read GET /me
      const balances = oauthFeed.balances()[Symbol.asyncIterator]();
      const first = await balances.next();
      expect(first.value.type === 'snapshot' && first.value.balance.account_id).to.equal(accountId);
      await balances.return!();
      await oauthFeed.close();

      const { session: issued } = await suite.service.admin.ok('POST', `/accounts/${member.accountId}/sessions`, {});
      const viaSession = createClient({
        baseUrl: suite.service.baseUrl,
        wsUrl: suite.service.wsUrl,
        credentials: session(issued.token),
      });
      const anonymous = viaSession.feed();
      const orders = anonymous.orders()[Symbol.asyncIterator]();
      const refused = await orders.next().catch((caught: unknown) => caught);
      expect(refused).to.be.instanceOf(FeedJoinError);
      expect(refused).to.include({ reason: 'unauthorized' });
      await anonymous.close();
    });

    it('a refused join is a FeedJoinError with the service reason', async () => {
      const feed = client.feed();
      const book = feed.orderBook('00000000-0000-4000-8000-000000000000');
      const error = await book.ready().catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(FeedJoinError);
      expect(error).to.include({ reason: 'unknown market' });
      await feed.close();
    });

    it('cancel_on_disconnect: orders flagged so are cancelled when the feed holding `orders` closes', async () => {
      const feed = client.feed();
      const orders = feed.orders()[Symbol.asyncIterator]();
      await orders.next(); // the join reply: cancel_on_disconnect is armed for this socket
      const kept = await client.placeOrder({
        market_id: marketId,
        action: 'buy',
        order_type: 'limit',
        price: '0.13',
        quantity: '1',
      });
      const flagged = await client.placeOrder({
        market_id: marketId,
        action: 'buy',
        order_type: 'limit',
        price: '0.14',
        quantity: '1',
        cancel_on_disconnect: true,
      });
      await feed.close();
      await eventually(
        'the flagged order cancelled',
        async () => (await client.order(flagged.id)).status === 'cancelled',
      );
      expect((await client.order(kept.id)).status).to.equal('open');
      await client.cancelAll();
    });

    it('heartbeats keep a quiet socket open past the service heartbeat timeout', async () => {
      await suite.service.admin.ok('PATCH', '/settings', { ws_heartbeat_timeout_ms: 1_000 });
      try {
        const feed = client.feed({ heartbeatIntervalMs: 200 });
        let closes = 0;
        feed.socket.onClose(() => {
          closes += 1;
        });
        const book = feed.orderBook(marketId);
        await book.ready();
        let beats = 0;
        feed.socket.onMessage((message: object) => {
          if ((message as { topic?: string }).topic === 'phoenix') beats += 1;
        });
        await eventually('ten heartbeat replies', () => beats >= 10);
        expect(closes).to.equal(0);
        await feed.close();
      } finally {
        await suite.service.admin.ok('PATCH', '/settings', { ws_heartbeat_timeout_ms: 60_000 });
      }
    });
  });

  describe('service restart', () => {
    let db: TestDatabase;
    let env: Record<string, string>;
    let service: Service | undefined;

    before(async () => {
      db = await testDatabase();
      env = { DATABASE_URL: db.connectionString, PORT: String(await freePort()), WS_PORT: String(await freePort()) };
    });
    after(async () => {
      await service?.svc.stop();
      await db?.drop();
    });

    it('after a restart the feed reconnects, the book rejoins (at the same seq: it is counted from the journal) and follows the new deltas', async () => {
      service = await startService(env);
      const admin = service.admin;
      const marketId = await admin.market();
      const member = await admin.member();
      const client = createClient({
        baseUrl: service.baseUrl,
        wsUrl: service.wsUrl,
        credentials: apiKey(member.keyId, member.privateKey),
      });
      const bid = (price: string, quantity: string) =>
        client.placeOrder({ market_id: marketId, action: 'buy', order_type: 'limit', price, quantity });
      await bid('0.20', '1');
      const feed = client.feed();
      const book = feed.orderBook(marketId);
      const events: BookEvent[] = [];
      const draining = drain(book, events);
      await book.ready();
      for (let i = 0; i < 3; i += 1) await bid(`0.2${i + 1}`, '1');
      await eventually(
        'three deltas',
        () => book.seq !== undefined && events.filter((event) => event.type === 'delta').length === 3,
      );
      const seqBefore = book.seq!;

      await service.svc.stop();
      service = await startService(env);
      await eventually('the book resynced after the restart', () => book.resyncs >= 1, 60_000);
      const resync = events.find((event) => event.type === 'snapshot' && event.reason !== 'join');
      expect(resync).to.include({ reason: 'reconnect' });
      expect(book.seq).to.equal(seqBefore);
      expect(sides(book).bids).to.deep.equal({ '0.20': '1', '0.21': '1', '0.22': '1', '0.23': '1' });
      await bid('0.24', '1');
      await eventually('a delta after the restart', () => sides(book).bids['0.24'] === '1');
      expect(book.seq).to.equal(seqBefore + 1);
      book.close();
      await draining;
      await feed.close();
    });
  });
});
