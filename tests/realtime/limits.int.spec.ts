// Limits and protections of the feed (docs/REALTIME.md): sockets per address and per identity
// (operator setting `websocket_limits`, counted from the start of a handshake so a burst cannot
// pass them), joins per socket per second, a burst of superseded joins reading nothing, public
// topics taking no suffix, and one join's leave never unsubscribing another join of the socket.

import { expect } from 'chai';
import { startWholeService, type Member, type WholeService } from '../api/v1/harness.ts';
import { connect, join, refusedJoin, type Connected } from './phoenix.ts';
import { RawSocket } from './raw.ts';

describe('realtime: limits and protections', function () {
  this.timeout(60_000);
  let svc: WholeService;
  let alice: Member;
  let marketId: string;
  const sockets: Array<{ close(): void }> = [];
  let defaults: { connections_per_address: number; connections_per_identity: number; joins_per_second: number };

  before(async () => {
    svc = await startWholeService();
    alice = await svc.member();
    marketId = (await svc.market()).market_id;
    defaults = (await svc.admin('GET', '/settings')).settings.websocket_limits;
  });
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.close();
    await svc.admin('PATCH', '/settings', { websocket_limits: defaults });
  });
  after(async () => {
    await svc?.stop();
  });

  /** Opens a socket and keeps it open; resolves with 101 or the refusal's HTTP status. */
  const attempt = async (credentials: Parameters<typeof RawSocket.open>[1] = {}): Promise<number> => {
    try {
      sockets.push(await RawSocket.open(svc.socketUrl, credentials));
      return 101;
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === undefined) throw error;
      return status;
    }
  };

  it('websocket_limits: documented defaults, validated like every setting', async () => {
    expect(defaults).to.deep.equal({
      connections_per_address: 200,
      connections_per_identity: 50,
      joins_per_second: 10,
    });
    const patched = (await svc.admin('PATCH', '/settings', { websocket_limits: { joins_per_second: 20 } })).settings
      .websocket_limits;
    expect(patched).to.deep.equal({ ...defaults, joins_per_second: 20 });
    for (const bad of [{ joins_per_second: 0 }, { connections_per_address: 1.5 }, { sockets: 3 }, 'many']) {
      const answer = await svc.adminRaw('PATCH', '/settings', { websocket_limits: bad });
      expect(answer.status, JSON.stringify(bad)).to.equal(400);
      expect(answer.body.error)
        .to.be.a('string')
        .and.match(/websocket_limits/);
    }
  });

  it('sockets per address: over connections_per_address a handshake is 429, also for a burst of concurrent handshakes', async () => {
    await svc.admin('PATCH', '/settings', { websocket_limits: { connections_per_address: 3 } });
    const statuses = await Promise.all(Array.from({ length: 10 }, () => attempt()));
    expect(statuses.filter((status) => status === 101)).to.have.length(3);
    expect(statuses.filter((status) => status === 429)).to.have.length(7);
    // closing one frees its place
    sockets.shift()!.close();
    for (;;) {
      const status = await attempt();
      if (status === 101) break;
      expect(status).to.equal(429); // the close may not have reached the server yet
    }
  });

  it('sockets per identity: every credential of one account counts together; another member is not affected', async () => {
    await svc.admin('PATCH', '/settings', { websocket_limits: { connections_per_identity: 2 } });
    expect(await attempt({ key: alice.key })).to.equal(101);
    expect(await attempt({ key: alice.readOnlyKey })).to.equal(101);
    expect(await attempt({ key: alice.key })).to.equal(429);
    const bob = await svc.member();
    expect(await attempt({ key: bob.key })).to.equal(101);
    expect(await attempt()).to.equal(101); // anonymous sockets count per address only
  });

  it('joins per socket per second: a burst past joins_per_second is refused `too many joins`', async () => {
    const socket = await RawSocket.open(svc.socketUrl);
    sockets.push(socket);
    // joins of topics nobody serves are answered at once, and spend a join all the same
    for (let i = 1; i <= 30; i += 1) socket.send(String(i), String(i), `nothing_${i}`, 'phx_join', {});
    const replies = await Promise.all(Array.from({ length: 30 }, (_, i) => socket.reply(String(i + 1))));
    const reasons = replies.map((frame) => frame[4].response.reason as string);
    expect(reasons.slice(0, 10)).to.deep.equal(Array(10).fill('unmatched topic')); // a fresh socket has a second's worth
    const limited = replies.filter((frame) => frame[4].response.reason === 'too many joins');
    expect(limited.length).to.be.greaterThan(0);
    for (const frame of limited)
      expect(frame[4].response).to.deep.equal({ reason: 'too many joins', joins_per_second: 10 });
  });

  it('a burst of joins of one private topic reads the snapshot for at most two of them, and the last join is answered', async () => {
    await svc.admin('PATCH', '/settings', { websocket_limits: { joins_per_second: 1_000 } });
    const socket = await RawSocket.open(svc.socketUrl, { key: alice.key });
    sockets.push(socket);
    const pool = svc.service.ctx.pool;
    const query = pool.query;
    let queries = 0;
    pool.query = ((...args: unknown[]) => {
      queries += 1;
      return (query as (...a: unknown[]) => unknown).apply(pool, args);
    }) as typeof pool.query;
    try {
      const topic = `account:${alice.user_id}`;
      for (let i = 1; i <= 100; i += 1) socket.send(String(i), String(i), topic, 'phx_join', {});
      const last = await socket.reply('100');
      expect(last[4].status).to.equal('ok');
      expect(last[4].response).to.have.keys('orders', 'fills', 'positions', 'settlements', 'balance');
    } finally {
      pool.query = query;
    }
    // one `account` snapshot is five reads; every superseded join would add five more
    expect(queries).to.be.at.most(20);
  });

  it('public topics take no suffix: `events:abc` and `orderbook:x` are unmatched topics', async () => {
    const anonymous = await connect(svc.socketUrl);
    const member = await connect(svc.socketUrl, { key: alice.key });
    sockets.push(anonymous, member);
    expect(await refusedJoin(anonymous, 'events:abc')).to.deep.equal({ reason: 'unmatched topic' });
    expect(await refusedJoin(anonymous, 'events:')).to.deep.equal({ reason: 'unmatched topic' });
    expect(await refusedJoin(member, `orderbook:${marketId}`, { market_ids: [marketId] })).to.deep.equal({
      reason: 'unmatched topic',
    });
    expect((await join(anonymous, 'events')).response).to.have.property('events');
  });

  it('two joins naming one market: leaving one does not unsubscribe the other', async () => {
    const socket: Connected = await connect(svc.socketUrl, { key: alice.key });
    sockets.push(socket);
    const book = await join(socket, 'orderbook', { market_ids: [marketId] });
    try {
      const second = await join(socket, 'orderbook:second', { market_ids: [marketId] });
      await second.leave();
    } catch {
      // refused (a public topic takes no suffix): nothing to leave
    }
    const seq = book.response.orderbooks[0].seq;
    const placed = await alice.call('POST', '/api/v1/orders', {
      body: { market_id: marketId, action: 'buy', order_type: 'limit', price: '0.11', quantity: '1' },
    });
    expect(placed.status).to.equal(200);
    const delta = await book.next('delta', (payload) => payload.market_id === marketId && payload.seq > seq);
    expect(delta.bids).to.deep.include(['0.11', '1']);
  });
});
