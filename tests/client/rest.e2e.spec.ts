// @event-exchange/client against a real service: every route group, every credential kind,
// paging, batches split at the batch limit, typed errors, the clock offset learned from `Date`,
// and retries that never double an order (a proxy loses the service's answer after it acted).

import { expect } from 'chai';
import {
  apiKey,
  collect,
  createClient,
  ExchangeError,
  NetworkError,
  oauth,
  OAuthRefreshError,
  session,
  type ExchangeClient,
  type OAuthTokens,
} from '@event-exchange/client';
import { FaultProxy, oauthMemberTokens, useService, type Admin } from './support.ts';

describe('client: REST against a live service', function () {
  this.timeout(120_000);
  const suite = useService();
  let marketId: string;
  let alice: Awaited<ReturnType<Admin['member']>>;
  let bob: Awaited<ReturnType<Admin['member']>>;
  let aliceClient: ExchangeClient;
  let bobClient: ExchangeClient;

  before(async () => {
    marketId = await suite.service.admin.market();
    alice = await suite.service.admin.member();
    bob = await suite.service.admin.member();
    aliceClient = createClient({ baseUrl: suite.service.baseUrl, credentials: apiKey(alice.keyId, alice.privateKey) });
    bobClient = createClient({ baseUrl: suite.service.baseUrl, credentials: apiKey(bob.keyId, bob.privateKey) });
  });

  it('an API key signs every route group: me, profile, markets, orders, fills, positions, balance, stats, portfolio, leaderboard', async () => {
    const me = await aliceClient.me();
    expect(me).to.include({
      account_id: alice.accountId,
      user_id: alice.userId,
      method: 'api_key',
      key_id: alice.keyId,
      scope: 'read_write',
    });
    const profile = await aliceClient.updateProfile({
      handle: `alice_${Date.now() % 100000}`,
      leaderboard_opt_in: true,
    });
    expect(profile.handle).to.match(/^alice_/);

    const markets = await collect(aliceClient.markets({ status: ['open'] }));
    expect(markets.map((market) => market.market_id)).to.include(marketId);

    // Alice rests a bid; Bob sells into it: one trade of 10 at 0.55
    const bid = await aliceClient.placeOrder({
      market_id: marketId,
      action: 'buy',
      order_type: 'limit',
      price: '0.55',
      quantity: '10',
    });
    expect(bid).to.include({ status: 'open', price: '0.55', quantity: '10' });
    expect(await aliceClient.order(bid.id)).to.include({ id: bid.id });
    const ask = await bobClient.placeOrder({
      market_id: marketId,
      action: 'sell',
      order_type: 'limit',
      price: '0.55',
      quantity: '10',
    });
    expect(ask).to.include({ status: 'filled', avg_price: '0.55' });

    const fills = await collect(aliceClient.fills({ market_ids: [marketId] }));
    expect(fills).to.have.length(1);
    expect(fills[0]).to.include({ action: 'buy', price: '0.55', filled: '10' });
    const positions = await collect(aliceClient.positions());
    expect(positions.find((position) => position.market_id === marketId)).to.include({ position: '10' });
    const balance = await aliceClient.balance();
    expect(balance).to.include({ account_balance: '1000.00' });
    expect(typeof balance.available_balance).to.equal('string');

    const stats = await collect(aliceClient.marketStats());
    expect(stats.map((row) => row.market_id)).to.include(marketId);

    await suite.service.admin.ok('POST', `/accounts/${alice.accountId}/withdrawals`, { amount: '5.00' });
    await suite.service.admin.ok('POST', `/accounts/${alice.accountId}/adjustments`, {
      amount: '1.25',
      reason: 'goodwill',
    });
    expect(await collect(aliceClient.withdrawals())).to.have.length(1);
    expect((await collect(aliceClient.adjustments()))[0]).to.include({ amount: '1.25' });
    expect(await collect(aliceClient.fees())).to.be.an('array');
    expect(await collect(aliceClient.loyalty())).to.be.an('array');

    // the raw typed client answers without throwing
    const raw = await aliceClient.api.GET('/api/v1/orders/{order_id}', {
      params: { path: { order_id: '00000000-0000-4000-8000-000000000000' } },
    });
    expect(raw.response.status).to.equal(404);
    expect(raw.error).to.have.property('error').that.is.a('string');

    await suite.service.admin.ok('PATCH', '/settings', { leaderboard_enabled: true });
    const board = await aliceClient.leaderboard({ period: 'all' });
    expect(board).to.include({ period: 'all' });
  });

  it('pages: an async iterator reads every page until the cursor is null, each row once', async () => {
    const member = await suite.service.admin.member();
    let requests = 0;
    const counting: typeof fetch = (input, init) => {
      requests += 1;
      return fetch(input, init);
    };
    const client = createClient({
      baseUrl: suite.service.baseUrl,
      credentials: apiKey(member.keyId, member.privateKey),
      fetch: counting,
    });
    const placed = [];
    for (let i = 0; i < 5; i += 1)
      placed.push(
        await client.placeOrder({
          market_id: marketId,
          action: 'buy',
          order_type: 'limit',
          price: '0.10',
          quantity: '1',
        }),
      );
    requests = 0;
    const listed = await collect(client.orders({ limit: 2 }));
    expect(listed.map((order) => order.id).sort()).to.deep.equal(placed.map((order) => order.id).sort());
    expect(requests).to.equal(3); // 2 + 2 + 1
  });

  it('placeOrders splits at the batch limit; cancelOrders and cancelAll cancel every live order', async () => {
    const member = await suite.service.admin.member();
    await suite.service.admin.ok('PATCH', '/settings', { batch_limit: 3 });
    try {
      let batches = 0;
      const counting: typeof fetch = (input, init) => {
        if (new URL(String(input)).pathname.endsWith('/orders/batched')) batches += 1;
        return fetch(input, init);
      };
      const client = createClient({
        baseUrl: suite.service.baseUrl,
        credentials: apiKey(member.keyId, member.privateKey),
        batchLimit: 3,
        fetch: counting,
      });
      const legs = Array.from({ length: 7 }, (_, i) => ({
        market_id: marketId,
        action: 'buy' as const,
        order_type: 'limit' as const,
        price: '0.05',
        quantity: String(i + 1),
      }));
      const results = await client.placeOrders(legs);
      expect(batches).to.equal(3);
      expect(results.map((leg) => ('order' in leg ? leg.order.quantity : 'refused'))).to.deep.equal([
        '1',
        '2',
        '3',
        '4',
        '5',
        '6',
        '7',
      ]);
      const ids = results.map((leg) => ('order' in leg ? leg.order.id : ''));

      const one = await client.cancelOrder(ids[0]!);
      expect(one).to.include({ order_id: ids[0], status: 'cancelled' });
      const two = await client.cancelOrders(ids.slice(1, 3));
      expect(two.map((entry) => entry.status)).to.deep.equal(['cancelled', 'cancelled']);
      const rest = await client.cancelAll({ marketIds: [marketId] });
      expect(rest.map((entry) => entry.order_id).sort()).to.deep.equal(ids.slice(3).sort());
      expect(await collect(client.orders({ status: ['open'] }))).to.have.length(0);

      // a client that believes the limit is larger gets the service's 400, typed
      const tooMany = createClient({
        baseUrl: suite.service.baseUrl,
        credentials: apiKey(member.keyId, member.privateKey),
        batchLimit: 10,
      });
      const error = await tooMany.placeOrders(legs).catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(ExchangeError);
      expect((error as ExchangeError).status).to.equal(400);
    } finally {
      await suite.service.admin.ok('PATCH', '/settings', { batch_limit: 100 });
    }
  });

  it('decimals are strings in and out; a JS number is refused before sending; an adapter takes library values', async () => {
    const refused = await aliceClient
      .placeOrder({
        market_id: marketId,
        action: 'buy',
        order_type: 'limit',
        price: 0.5 as unknown as string,
        quantity: '1',
      })
      .catch((caught: unknown) => caught);
    expect(refused).to.be.instanceOf(TypeError);
    expect((refused as Error).message).to.equal('price must be a decimal string (e.g. "0.55"), never a JS number');

    class Cents {
      constructor(readonly cents: bigint) {}
    }
    const adapter = {
      parse: (text: string) => new Cents(BigInt(text.replace('.', ''))),
      format: (value: Cents) => `${value.cents / 100n}.${String(value.cents % 100n).padStart(2, '0')}`,
    };
    const client = createClient({
      baseUrl: suite.service.baseUrl,
      credentials: apiKey(alice.keyId, alice.privateKey),
      decimal: adapter,
    });
    const order = await client.placeOrder({
      market_id: marketId,
      action: 'buy',
      order_type: 'limit',
      price: new Cents(7n),
      quantity: '2',
    });
    expect(order.price).to.equal('0.07');
    expect(client.decimal(order.price!).cents).to.equal(7n);
    await client.cancelOrder(order.id);
  });

  it('typed errors carry status and the documented error text; 422 for a refused order, 404 for an unknown order, 401 for a revoked key', async () => {
    const unknownMarket = await aliceClient
      .placeOrder({
        market_id: '00000000-0000-4000-8000-000000000000',
        action: 'buy',
        order_type: 'limit',
        price: '0.50',
        quantity: '1',
      })
      .catch((caught: unknown) => caught);
    expect(unknownMarket).to.be.instanceOf(ExchangeError);
    expect((unknownMarket as ExchangeError).status).to.equal(422);
    const missing = await aliceClient.order('00000000-0000-4000-8000-000000000000').catch((caught: unknown) => caught);
    expect((missing as ExchangeError).status).to.equal(404);

    const member = await suite.service.admin.member();
    const client = createClient({
      baseUrl: suite.service.baseUrl,
      credentials: apiKey(member.keyId, member.privateKey),
    });
    await suite.service.admin.ok('DELETE', `/api_keys/${member.keyId}`);
    const revoked = await client.balance().catch((caught: unknown) => caught);
    expect(revoked).to.be.instanceOf(ExchangeError);
    expect(revoked).to.include({ status: 401, error: 'Missing or invalid API key credentials' });
  });

  it('a clock two minutes slow: the first signature is refused as stale, the offset is learned from Date, the request succeeds', async () => {
    const slow = () => Date.now() - 120_000;
    const client = createClient({
      baseUrl: suite.service.baseUrl,
      credentials: apiKey(alice.keyId, alice.privateKey),
      now: slow,
    });
    expect(client.clockOffsetMs).to.equal(0);
    expect((await client.me()).account_id).to.equal(alice.accountId);
    expect(client.clockOffsetMs).to.be.within(118_000, 122_000);
    expect((await client.balance()).account_id).to.equal(alice.accountId); // signed right the first time now
  });

  it('a key given as a PKCS#8 PEM signs the same', async () => {
    const { createPrivateKey } = await import('node:crypto');
    const der = Buffer.concat([
      Buffer.from('302e020100300506032b657004220420', 'hex'),
      Buffer.from(alice.privateKey, 'base64'),
    ]);
    const pem = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
      .export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const client = createClient({ baseUrl: suite.service.baseUrl, credentials: apiKey(alice.keyId, pem) });
    expect((await client.me()).key_id).to.equal(alice.keyId);
  });

  it('a session token is a bearer credential on every route, writes included', async () => {
    const member = await suite.service.admin.member();
    const { session: issued } = await suite.service.admin.ok('POST', `/accounts/${member.accountId}/sessions`, {});
    const client = createClient({ baseUrl: suite.service.baseUrl, credentials: session(issued.token) });
    expect(await client.me()).to.include({ account_id: member.accountId, method: 'bearer' });
    const order = await client.placeOrder({
      market_id: marketId,
      action: 'buy',
      order_type: 'limit',
      price: '0.11',
      quantity: '1',
    });
    expect((await client.cancelOrder(order.id)).status).to.equal('cancelled');
  });

  describe('OAuth access tokens', () => {
    const memberTokens = () => oauthMemberTokens(suite.service, suite.service.admin, ['profile.read', 'balance.read']);

    it('an expired access token is refreshed once, the rotated refresh token is kept and handed to onTokens', async () => {
      const { clientId, tokens, accountId } = await memberTokens();
      const rotated: OAuthTokens[] = [];
      const client = createClient({
        baseUrl: suite.service.baseUrl,
        credentials: oauth({ clientId, ...tokens, onTokens: (next) => void rotated.push(next) }),
      });
      expect((await client.me()).account_id).to.equal(accountId);
      await suite.service.admin.ok('POST', '/clock', { advance_ms: 3_601_000 }); // past the access token's hour
      try {
        expect((await client.balance()).account_id).to.equal(accountId);
      } finally {
        await suite.service.admin.ok('POST', '/clock', { advance_ms: -3_601_000 });
      }
      expect(rotated).to.have.length(1);
      expect(rotated[0]!.accessToken)
        .to.match(/^svc_at_/)
        .and.not.equal(tokens.accessToken);
      expect(rotated[0]!.refreshToken)
        .to.match(/^svc_rt_/)
        .and.not.equal(tokens.refreshToken);
      expect(client.transport.oauth!.refreshToken).to.equal(rotated[0]!.refreshToken);
    });

    it('a refused refresh is an OAuthRefreshError naming the OAuth error; a scope the token lacks is a 403 with `scope`', async () => {
      const { clientId, tokens } = await memberTokens();
      const stale = createClient({
        baseUrl: suite.service.baseUrl,
        credentials: oauth({ clientId, accessToken: 'svc_at_expired', refreshToken: 'svc_rt_not-a-token' }),
      });
      const error = await stale.me().catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(OAuthRefreshError);
      expect(error).to.include({ status: 400, error: 'invalid_grant' });

      const client = createClient({ baseUrl: suite.service.baseUrl, credentials: oauth({ clientId, ...tokens }) });
      const outside = await collect(client.fills()).catch((caught: unknown) => caught);
      expect(outside).to.be.instanceOf(ExchangeError);
      expect(outside).to.include({ status: 403, error: 'insufficient scope for this operation' });
      expect((outside as ExchangeError).scope).to.equal('portfolio.read');
    });
  });

  describe('retries with an Idempotency-Key', () => {
    let proxy: FaultProxy;
    before(async () => {
      proxy = await new FaultProxy(suite.service.baseUrl).start();
    });
    after(async () => proxy?.stop());

    const isOrderPost = (req: { method?: string; url?: string }) =>
      req.method === 'POST' && (req.url ?? '').startsWith('/api/v1/orders');

    it('a 503 after the service placed the order: the retry replays the first answer and the order exists once', async () => {
      const member = await suite.service.admin.member();
      const client = createClient({ baseUrl: proxy.url, credentials: apiKey(member.keyId, member.privateKey) });
      proxy.inject('lose-answer-503', isOrderPost);
      const before = proxy.seen.length;
      const order = await client.placeOrder({
        market_id: marketId,
        action: 'buy',
        order_type: 'limit',
        price: '0.21',
        quantity: '3',
        client_order_id: 'once',
      });
      const attempts = proxy.seen.slice(before);
      expect(attempts).to.have.length(2);
      expect(attempts[0]!.idempotencyKey).to.be.a('string').and.equal(attempts[1]!.idempotencyKey);
      const orders = await collect(client.orders({ market_ids: [marketId] }));
      expect(orders.map((listed) => listed.id)).to.deep.equal([order.id]);
    });

    it('a connection dropped after the service placed a batch: the retry does not place it twice', async () => {
      const member = await suite.service.admin.member();
      const client = createClient({ baseUrl: proxy.url, credentials: apiKey(member.keyId, member.privateKey) });
      proxy.inject('reset-after-forward', isOrderPost);
      const legs = [1, 2].map((n) => ({
        market_id: marketId,
        action: 'buy' as const,
        order_type: 'limit' as const,
        price: '0.22',
        quantity: String(n),
      }));
      const results = await client.placeOrders(legs);
      expect(results).to.have.length(2);
      expect(await collect(client.orders({ market_ids: [marketId] }))).to.have.length(2);
    });

    it('429 and 503 with Retry-After are waited out and sent again; without idempotency keys a write is never retried', async () => {
      const member = await suite.service.admin.member();
      const client = createClient({ baseUrl: proxy.url, credentials: apiKey(member.keyId, member.privateKey) });
      proxy.inject('refuse-429');
      proxy.inject('refuse-503');
      expect((await client.balance()).account_id).to.equal(member.accountId);

      const unsafe = createClient({
        baseUrl: proxy.url,
        credentials: apiKey(member.keyId, member.privateKey),
        idempotencyKeys: false,
      });
      proxy.inject('lose-answer-503', isOrderPost);
      const error = await unsafe
        .placeOrder({ market_id: marketId, action: 'buy', order_type: 'limit', price: '0.23', quantity: '1' })
        .catch((caught: unknown) => caught);
      expect(error).to.be.instanceOf(ExchangeError);
      expect(error).to.include({ status: 503, retryAfterS: 0 });
      expect(await collect(client.orders({ market_ids: [marketId] }))).to.have.length(1); // placed once, answer lost, not retried

      proxy.inject('reset-after-forward', isOrderPost);
      const dropped = await unsafe
        .placeOrder({ market_id: marketId, action: 'buy', order_type: 'limit', price: '0.23', quantity: '1' })
        .catch((caught: unknown) => caught);
      expect(dropped).to.be.instanceOf(NetworkError);
    });
  });
});
