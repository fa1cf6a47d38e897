// Three nodes as real processes on one standalone PostgreSQL, driven from outside through issue
// 28's contract only (`/readyz` role and position, the admin API and the trading API of every node,
// the WebSocket feed): they all come up when started at the same moment, exactly one is the
// writer, a member's writes and reads go through any node, a follower answers a write exactly as
// the writer would, the order book feed carries the same `seq` everywhere, a kill -9 of the writer
// under load and a writer frozen past its lease are survived within the contract's bounds, and
// cash is conserved to the cent. The tests run in order on one cluster: each builds on the last.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { startCluster, type Cluster, type ClusterNode } from '../support/cluster.ts';
import {
  admin,
  adminCall,
  auditCash,
  auditOrders,
  FAILOVER_BOUND_MS,
  liftAccountLimits,
  memberClient,
  openMarket,
  openTrader,
  OrderLoad,
  ReadinessWatch,
  settleMarket,
  sleep,
  untilCaughtUp,
  type LogicalOrder,
  type Trader,
} from '../support/clusterLoad.ts';
import { connect, join } from '../realtime/phoenix.ts';
import { limitBuyOfOne } from '../api/v1/harness.ts';

const NODES = 3;
/** Load while the writer is killed or frozen: new orders started per second, whatever the ones in flight do. */
const LOAD_ORDERS_PER_S = 40;
/** Load before the kill, and after the first acknowledgement that followed it. */
const LOAD_BEFORE_MS = 1_500;
const LOAD_AFTER_MS = 1_500;
/** The longest the tests wait for a new writer after a kill or freeze before giving up (not the bound). */
const REPLACEMENT_WAIT_MS = 30_000;
const DEPOSIT = '100000';

/** An order answer without what differs between two equal orders of two members (ids and times). */
function sameOrderShape(order: Record<string, unknown>): Record<string, unknown> {
  const {
    id: _id,
    account_id: _account,
    user_id: _user,
    inserted_at: _inserted,
    time: _time,
    accepted_at: _accepted,
    ...rest
  } = order;
  return rest;
}

/** A balance answer without whose it is. */
function sameBalanceShape(balance: Record<string, unknown>): Record<string, unknown> {
  const { account_id: _account, user_id: _user, ...rest } = balance;
  return rest;
}

/** POST /api/v1/orders through `node` as `trader`: status and body as sent, never thrown. */
async function placeRaw(
  node: ClusterNode,
  trader: Trader,
  body: Record<string, unknown>,
  options: { idempotencyKey?: string; timeoutMs?: number } = {},
): Promise<{ status: number; body: any; retryAfter: string | null }> {
  const headers = options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {};
  const { data, error, response } = await memberClient(node, trader, options.timeoutMs).api.POST('/api/v1/orders', {
    body: body as never,
    headers,
  });
  return { status: response.status, body: data ?? error, retryAfter: response.headers.get('retry-after') };
}

/** Waits until a node other than `old` says it is the writer (the bound is measured by the load, not here). */
async function replacedWithin(cluster: Cluster, old: ClusterNode): Promise<ClusterNode> {
  return cluster.writer({ among: cluster.nodes.filter((node) => node !== old), timeoutMs: REPLACEMENT_WAIT_MS });
}

describe('three nodes on one PostgreSQL (issue 28: the contract from outside)', function () {
  this.timeout(300_000);
  let cluster: Cluster;
  let watch: ReadinessWatch | undefined;
  /** Set once /readyz reports roles; the tests after it need a writer. */
  let rolesReported = false;
  const traders: Trader[] = [];
  const sent: LogicalOrder[] = [];
  const markets: string[] = [];

  const needRoles = () => {
    if (!rolesReported) throw new Error('no node reported a role on /readyz (see "exactly one node is the writer")');
  };

  before(async () => {
    // every node started at the same moment: the harness spawns them together
    cluster = await startCluster({ nodes: NODES, waitReady: false });
  });

  after(async () => {
    await watch?.stop();
    await cluster?.stop();
  });

  it('all three nodes started at the same moment come up', async () => {
    const ready = await Promise.all(cluster.nodes.map((node) => node.untilReady()));
    expect(ready.map((answer) => answer.status)).to.deep.equal([200, 200, 200]);
  });

  it('exactly one node is the writer; /readyz gives each its role and position', async () => {
    const answers = await cluster.readiness();
    for (const answer of answers) {
      expect(answer.status).to.equal(200);
      expect(answer.body, JSON.stringify(answer.body)).to.have.property('role').that.is.oneOf(['writer', 'follower']);
      // an integer as a string (before the first event a journal may say -1)
      expect(answer.position, JSON.stringify(answer.body)).to.match(/^-?\d+$/);
    }
    expect(answers.filter((answer) => answer.role === 'writer')).to.have.length(1);
    expect(answers.filter((answer) => answer.role === 'follower')).to.have.length(NODES - 1);
    rolesReported = true;
    watch = new ReadinessWatch(cluster);
  });

  it("an operator sets up through one node's admin API; a member's orders and reads go through every node", async () => {
    needRoles();
    const [follower] = await cluster.followers();
    // the operator's writes, through a follower's admin API
    await liftAccountLimits(cluster, follower!);
    markets.push(await openMarket(cluster, follower!, 'Cluster market'));
    for (let i = 0; i < 4; i++) traders.push(await openTrader(cluster, follower!, DEPOSIT, `Trader${i}`));
    // the operator's writes reach every node before the members use them there (read-your-writes
    // is the member's own: an operator's write through one node and a member's request through
    // another are two principals)
    await untilCaughtUp(cluster);
    const [trader] = traders;
    // an order placed through node A is read by id through node B at once, for every pair
    let n = 0;
    for (const from of cluster.nodes) {
      for (const to of cluster.nodes) {
        if (from === to) continue;
        const placed = await memberClient(from, trader!).placeOrder(
          {
            market_id: markets[0]!,
            action: 'buy',
            order_type: 'limit',
            price: '0.10',
            quantity: '1',
            client_order_id: `ryw-${n++}`,
          },
          { idempotencyKey: randomUUID() },
        );
        const read = await memberClient(to, trader!).order(placed.id);
        expect(read, `placed through ${from.name}, read through ${to.name}`).to.deep.equal(placed);
        const listed = [];
        for await (const order of memberClient(to, trader!).orders({ order_ids: [placed.id] })) listed.push(order.id);
        expect(listed, `listed through ${to.name}`).to.deep.equal([placed.id]);
      }
    }
    // the balance reads the same on every node once the member has written
    const balances = await Promise.all(cluster.nodes.map((node) => memberClient(node, trader!).balance()));
    expect(balances[1]).to.deep.equal(balances[0]);
    expect(balances[2]).to.deep.equal(balances[0]);
  });

  it('a write through a follower answers exactly as the writer would', async () => {
    needRoles();
    const writer = await cluster.writer();
    const [follower] = await cluster.followers();
    // twins: two members with the same history, one writing through the writer, one through a follower
    const twins = [
      await openTrader(cluster, writer, '100', 'TwinW'),
      await openTrader(cluster, writer, '100', 'TwinF'),
    ];
    traders.push(...twins);
    await untilCaughtUp(cluster);
    const [viaWriter, viaFollower] = [
      { node: writer, trader: twins[0]! },
      { node: follower!, trader: twins[1]! },
    ];
    const order = {
      market_id: markets[0]!,
      action: 'sell',
      order_type: 'limit',
      price: '0.90',
      quantity: '3',
      client_order_id: 'twin',
    };
    const placed = await Promise.all([viaWriter, viaFollower].map((via) => placeRaw(via.node, via.trader, order)));
    expect(placed.map((answer) => answer.status)).to.deep.equal([200, 200]);
    expect(sameOrderShape(placed[1]!.body.order)).to.deep.equal(sameOrderShape(placed[0]!.body.order));

    // refusals carry the writer's status and SPEC's text, word for word
    const refusedOrders = [
      { ...order, action: 'buy', price: '0.50', quantity: '10000', client_order_id: 'too-big' }, // insufficient funds
      { ...order, market_id: randomUUID(), client_order_id: 'no-market' }, // unknown market
      { ...order, price: '0.001', client_order_id: 'sub-cent' }, // malformed price
    ];
    for (const refused of refusedOrders) {
      const [throughWriter, throughFollower] = await Promise.all(
        [viaWriter, viaFollower].map((via) => placeRaw(via.node, via.trader, refused)),
      );
      expect(throughWriter!.status, JSON.stringify(throughWriter!.body)).to.be.oneOf([400, 422]);
      expect(throughFollower, refused.client_order_id).to.deep.equal(throughWriter);
    }

    // the operator's writes: a deposit, a refused withdrawal, an unknown market
    const deposits = await Promise.all(
      [viaWriter, viaFollower].map((via) =>
        adminCall(cluster, via.node, 'POST', `/accounts/${via.trader.accountId}/deposits`, { amount: '25' }),
      ),
    );
    expect(deposits.map((answer) => answer.status)).to.deep.equal([200, 200]);
    expect(sameBalanceShape(deposits[1]!.body.balance)).to.deep.equal(sameBalanceShape(deposits[0]!.body.balance));
    twins[0]!.deposited = twins[1]!.deposited = '125';
    const withdrawals = await Promise.all(
      [viaWriter, viaFollower].map((via) =>
        adminCall(cluster, via.node, 'POST', `/accounts/${via.trader.accountId}/withdrawals`, { amount: '1000' }),
      ),
    );
    expect(withdrawals[0]!.status).to.equal(422);
    expect({ status: withdrawals[1]!.status, body: withdrawals[1]!.body }).to.deep.equal({
      status: withdrawals[0]!.status,
      body: withdrawals[0]!.body,
    });
    const unknownMarket = `/markets/${randomUUID()}/status`;
    const statuses = await Promise.all(
      [writer, follower!].map((node) => adminCall(cluster, node, 'POST', unknownMarket, { status: 'closed' })),
    );
    expect(statuses[0]!.status).to.equal(404);
    expect({ status: statuses[1]!.status, body: statuses[1]!.body }).to.deep.equal({
      status: statuses[0]!.status,
      body: statuses[0]!.body,
    });
  });

  it('the order book feed carries the same seq for a market on every node (snapshot of orderbook)', async () => {
    needRoles();
    const [trader] = traders;
    // a few more levels moved, through every node
    for (const [i, node] of cluster.nodes.entries())
      await memberClient(node, trader!).placeOrder(
        {
          market_id: markets[0]!,
          action: 'buy',
          order_type: 'limit',
          price: `0.2${i}`,
          quantity: '2',
          client_order_id: `book-${i}`,
        },
        { idempotencyKey: randomUUID() },
      );
    await untilCaughtUp(cluster);
    const books = [];
    for (const node of cluster.nodes) {
      const connected = await connect(node.wsUrl, { key: { key_id: trader!.keyId, private_key: trader!.privateKey } });
      try {
        const joined = await join(connected, 'orderbook', { market_ids: [markets[0]] });
        books.push(
          (joined.response.orderbooks as Array<{ market_id: string }>).find((book) => book.market_id === markets[0]),
        );
      } finally {
        connected.close();
      }
    }
    expect(books[0], 'the snapshot names the market').to.have.property('seq').that.is.a('number');
    expect(books[1], cluster.nodes[1]!.name).to.deep.equal(books[0]);
    expect(books[2], cluster.nodes[2]!.name).to.deep.equal(books[0]);
  });

  it("a member's private channel on every node carries its order's updates, whichever node took the order", async () => {
    needRoles();
    const [trader] = traders;
    const key = { key_id: trader!.keyId, private_key: trader!.privateKey };
    const sockets = await Promise.all(cluster.nodes.map((node) => connect(node.wsUrl, { key })));
    try {
      const joins = await Promise.all(sockets.map((socket) => join(socket, `orders:${trader!.userId}`)));
      const placed = await memberClient(cluster.nodes[0]!, trader!).placeOrder(
        { market_id: markets[0]!, action: 'buy', order_type: 'limit', price: '0.11', quantity: '1' },
        { idempotencyKey: randomUUID() },
      );
      const orderId = placed.id;
      for (const [i, joined] of joins.entries()) {
        const update = await joined.next('update', (payload) => payload.order?.id === orderId);
        expect(update.order, cluster.nodes[i]!.name).to.include({ id: orderId, price: '0.11' });
      }
    } finally {
      for (const socket of sockets) socket.close();
    }
  });

  it('kill -9 of the writer under load: another node accepts orders within 2 s, the gap answers only 503 with Retry-After', async () => {
    needRoles();
    const writer = await cluster.writer();
    const load = new OrderLoad({
      cluster,
      traders: traders.slice(0, 4),
      marketId: markets[0]!,
      ratePerS: LOAD_ORDERS_PER_S,
      label: 'kill',
    });
    load.start();
    let gapMs: number | undefined;
    try {
      await sleep(LOAD_BEFORE_MS);
      const killedAt = performance.now();
      await writer.kill();
      await replacedWithin(cluster, writer);
      const deadline = performance.now() + REPLACEMENT_WAIT_MS;
      while ((gapMs = load.gapAfter(killedAt)) === undefined && performance.now() < deadline) await sleep(50);
      await sleep(LOAD_AFTER_MS);
    } finally {
      await load.stop();
      sent.push(...load.orders);
    }
    // the killed node comes back (before anything is asserted: the tests after this one use it)
    const back = await writer.restart();
    const gapText = gapMs === undefined ? 'none' : `${Math.round(gapMs)} ms`;
    expect(load.problems(), `answers the contract forbids (failover gap ${gapText})`).to.deep.equal([]);
    expect(gapMs, 'an order sent after the kill was acknowledged').to.be.a('number');
    expect(gapMs!, `failover gap ${Math.round(gapMs!)} ms`).to.be.at.most(FAILOVER_BOUND_MS);
    expect(back.role, 'the killed node, started again').to.equal('follower');
  });

  it('no acknowledged order is lost or doubled across the failover (retries with the same Idempotency-Key)', async () => {
    needRoles();
    await untilCaughtUp(cluster);
    const acked = sent.filter((order) => order.acked);
    expect(acked.length, 'orders acknowledged').to.be.greaterThan(0);
    for (const node of cluster.nodes) {
      const audit = await auditOrders(node, traders.slice(0, 4), sent);
      expect(audit.lost, `lost, read through ${node.name}`).to.deep.equal([]);
      expect(audit.duplicates, `doubled, read through ${node.name}`).to.deep.equal([]);
      expect(audit.listedTwice, `listed twice, read through ${node.name}`).to.deep.equal([]);
    }
  });

  it('a writer frozen past its lease is replaced; thawed, it answers nothing it did not journal and rejoins as a follower', async () => {
    needRoles();
    const writer = await cluster.writer();
    const others = cluster.nodes.filter((node) => node !== writer);
    const load = new OrderLoad({
      cluster: { ...cluster, nodes: others },
      traders: traders.slice(0, 4),
      marketId: markets[0]!,
      ratePerS: LOAD_ORDERS_PER_S,
      label: 'freeze',
    });
    // orders sent to the writer while it is frozen: answered (or not) only once it resumes
    const sentToFrozen: Array<{
      clientOrderId: string;
      answer: Promise<{ status: number; body: any; retryAfter: string | null }>;
    }> = [];
    const forwardedToFrozen: Array<{
      clientOrderId: string;
      idempotencyKey: string;
      body: Record<string, unknown>;
      answer: Promise<{ status: number; body: any; retryAfter: string | null; afterMs: number }>;
    }> = [];
    const trader = traders[0]!;
    let gapMs: number | undefined;
    load.start();
    try {
      await sleep(LOAD_BEFORE_MS);
      const frozenAt = performance.now();
      writer.freeze();
      for (let i = 0; i < 3; i++) {
        const clientOrderId = `frozen-${i}`;
        const body = limitBuyOfOne(markets[0]!, '0.05', { client_order_id: clientOrderId });
        // no answer at all (the connection closed) is allowed: status 0
        const answer = placeRaw(writer, trader, body, {
          idempotencyKey: randomUUID(),
          timeoutMs: REPLACEMENT_WAIT_MS * 2,
        }).catch(() => ({ status: 0, body: undefined, retryAfter: null }));
        sentToFrozen.push({ clientOrderId, answer });
      }
      // orders sent through a follower, which forwards them to the frozen writer: once that
      // writer's lease has ended the follower answers them (503 with Retry-After) without waiting
      // for the writer, whose answer may never come
      for (let i = 0; i < 3; i++) {
        const clientOrderId = `forwarded-frozen-${i}`;
        const idempotencyKey = randomUUID();
        const body = limitBuyOfOne(markets[0]!, '0.05', { client_order_id: clientOrderId });
        const answer = placeRaw(others[0]!, trader, body, { idempotencyKey, timeoutMs: REPLACEMENT_WAIT_MS * 2 }).then(
          (got) => ({ ...got, afterMs: performance.now() - frozenAt }),
        );
        forwardedToFrozen.push({ clientOrderId, idempotencyKey, body, answer });
      }
      await replacedWithin(cluster, writer);
      const deadline = performance.now() + REPLACEMENT_WAIT_MS;
      while ((gapMs = load.gapAfter(frozenAt)) === undefined && performance.now() < deadline) await sleep(50);
      await sleep(LOAD_AFTER_MS);
      writer.thaw();
      await sleep(LOAD_AFTER_MS);
    } finally {
      if (writer.isFrozen) writer.thaw();
      await load.stop();
      sent.push(...load.orders);
    }
    const gapText = gapMs === undefined ? 'none' : `${Math.round(gapMs)} ms`;
    expect(load.problems(), `answers the contract forbids (failover gap ${gapText})`).to.deep.equal([]);
    expect(gapMs, 'an order sent after the freeze was acknowledged').to.be.a('number');
    expect(gapMs!, `failover gap ${Math.round(gapMs!)} ms`).to.be.at.most(FAILOVER_BOUND_MS);

    // what the thawed node answered: a 200 only for an order in the journal, else 503 with Retry-After
    const newWriter = await cluster.writer({ among: others });
    for (const { clientOrderId, answer } of sentToFrozen) {
      const got = await answer;
      const found = [];
      for await (const order of memberClient(newWriter, trader).orders({ client_order_ids: [clientOrderId] }))
        found.push(order.id);
      if (got.status === 200) expect(found, clientOrderId).to.deep.equal([got.body.order.id]);
      else if (got.status === 0) expect(found.length, `${clientOrderId} placed more than once`).to.be.at.most(1);
      else {
        expect(got.status, `${clientOrderId}: ${JSON.stringify(got.body)}`).to.equal(503);
        expect(got.retryAfter, clientOrderId).to.be.a('string');
        expect(found, `${clientOrderId} answered 503 yet placed`).to.deep.equal([]);
      }
    }
    // what the follower answered while the writer was frozen: 503 with Retry-After (or the
    // writer's 200), within the failover bound; a retry with the same Idempotency-Key places the
    // order exactly once
    for (const { clientOrderId, idempotencyKey, body, answer } of forwardedToFrozen) {
      const got = await answer;
      expect(got.afterMs, `${clientOrderId} answered ${Math.round(got.afterMs)} ms after the freeze`).to.be.at.most(
        FAILOVER_BOUND_MS,
      );
      if (got.status !== 200) {
        expect(got.status, `${clientOrderId}: ${JSON.stringify(got.body)}`).to.equal(503);
        expect(got.retryAfter, clientOrderId).to.be.a('string');
        const retried = await placeRaw(newWriter, trader, body, { idempotencyKey });
        expect(retried.status, `${clientOrderId} retried: ${JSON.stringify(retried.body)}`).to.equal(200);
      }
      const found = [];
      for await (const order of memberClient(newWriter, trader).orders({ client_order_ids: [clientOrderId] }))
        found.push(order.id);
      expect(found.length, `${clientOrderId} placed once`).to.equal(1);
    }
    // it rejoins as a follower and follows the journal again
    const rejoined = await writer.untilReady();
    expect(rejoined.role).to.equal('follower');
    await untilCaughtUp(cluster);
    const audit = await auditOrders(newWriter, traders.slice(0, 4), sent);
    expect(audit.lost, 'lost').to.deep.equal([]);
    expect(audit.duplicates, 'doubled').to.deep.equal([]);
  });

  it('/readyz position never decreases on a node, and never two writers at once', async () => {
    needRoles();
    const problems = await watch!.stop();
    expect(watch!.samples, 'rounds of /readyz sampled').to.be.greaterThan(10);
    watch = undefined;
    expect(problems).to.deep.equal([]);
  });

  it('cash is conserved to the cent: balances plus fees equal deposits, on every node', async () => {
    needRoles();
    const writer = await cluster.writer();
    for (const market of markets) await settleMarket(cluster, writer, market);
    await untilCaughtUp(cluster);
    for (const node of cluster.nodes) {
      const cash = await auditCash(node, traders);
      expect(cash, node.name).to.deep.include({ conserved: true });
    }
    // the operator's view agrees: the accounts as the admin API reads them
    const { account } = await admin(cluster, cluster.nodes[0]!, 'GET', `/accounts/${traders[0]!.accountId}`);
    expect(account.account_id).to.equal(traders[0]!.accountId);
  });
});
