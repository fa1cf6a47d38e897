// Two nodes of the whole service (in-process) on one PostgreSQL: the first to start is the
// writer, the second a follower whose engine replica applies the journal. Writes through the
// follower are forwarded to the writer and answered as the writer answers them; a member reads
// their own writes through either node; the replica ends in the writer's state; /readyz tells
// each node's role and position; a stopped writer hands the role over to the follower.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { stateHash } from '../../domain/engine/snapshot.ts';
import { startWholeService, type Answer, type Member, type WholeService } from '../api/v1/harness.ts';
import { testDatabase, type TestDatabase } from '../support/pg.ts';

interface Readiness {
  status: string;
  role: string;
  position: string;
}

async function readiness(node: WholeService): Promise<Readiness> {
  const response = await fetch(`${node.base}/readyz`);
  expect(response.status).to.equal(200);
  return (await response.json()) as Readiness;
}

/** Polls until `check` holds (bounded by the test's timeout). */
async function until(check: () => Promise<boolean> | boolean): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 25));
}

/** An answer without what differs between any two orders (ids, times), for comparing shapes and values. */
function comparable(answer: Answer): unknown {
  const omit = new Set(['id', 'order_id', 'accepted_at', 'inserted_at', 'time', 'expires_at']);
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => !omit.has(key))
        .map(([key, inner]) => [key, strip(inner)]),
    );
  };
  return { status: answer.status, body: strip(answer.body), retryAfter: answer.headers['retry-after'] ?? null };
}

describe('several nodes on one database', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let writer: WholeService;
  let follower: WholeService;
  let marketId: string;
  let alice: Member;
  let bob: Member;

  before(async () => {
    database = await testDatabase();
    writer = await startWholeService({
      DATABASE_URL: database.connectionString,
      LOG_LEVEL: process.env.NODES_LOG ?? 'silent',
    });
    follower = await startWholeService({
      DATABASE_URL: database.connectionString,
      LOG_LEVEL: process.env.NODES_LOG ?? 'silent',
    });
    marketId = (await writer.market()).market_id;
    alice = await writer.member('1000');
    bob = await writer.member('1000');
  });
  after(async () => {
    await follower?.stop();
    await writer?.stop();
    await database?.drop();
  });

  const order = (price: string, quantity: string, action = 'buy') => ({
    market_id: marketId,
    action,
    order_type: 'limit',
    price,
    quantity,
  });
  /** `member`'s signed call through `node`. */
  const through = (node: WholeService, member: Member, method: string, route: string, body?: unknown) =>
    node.call(method, route, { key: member.key, ...(body === undefined ? {} : { body }) });

  it('/readyz: the first node is the writer, the second a follower, each with its journal position', async () => {
    const [first, second] = [await readiness(writer), await readiness(follower)];
    expect(first).to.include({ status: 'ok', role: 'writer' });
    expect(second).to.include({ status: 'ok', role: 'follower' });
    expect(first.position).to.match(/^\d+$/);
    await until(async () => BigInt((await readiness(follower)).position) >= BigInt(first.position));
  });

  it('lists both nodes in the registry (`exchange nodes`) and reports each role and the lag on /metrics', async () => {
    await until(async () => {
      const { stdout } = await promisify(execFile)(process.execPath, [path.resolve('cli/bin.js'), 'nodes', '--json'], {
        env: { ...process.env, DATABASE_URL: database.connectionString, LOG_LEVEL: 'silent' },
      });
      const listed = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { node_id: string; role: string; lag: string; lease: boolean });
      const byId = new Map(listed.map((node) => [node.node_id, node]));
      const first = byId.get(writer.service.node.nodeId);
      const second = byId.get(follower.service.node.nodeId);
      return (
        listed.length === 2 &&
        first?.role === 'writer' &&
        first.lease &&
        first.lag === '0' &&
        second?.role === 'follower' &&
        !second.lease &&
        /^\d+$/.test(second.lag)
      );
    });
    const metrics = async (node: WholeService) => (await fetch(`${node.adminUrl}/metrics`)).text();
    const writerMetrics = await metrics(writer);
    expect(writerMetrics).to.include('exchange_node_role{role="writer"} 1');
    expect(writerMetrics).to.include('exchange_node_role{role="follower"} 0');
    expect(writerMetrics).to.include('exchange_replication_lag_records 0');
    const followerMetrics = await metrics(follower);
    expect(followerMetrics).to.include('exchange_node_role{role="writer"} 0');
    expect(followerMetrics).to.include('exchange_node_role{role="follower"} 1');
    expect(followerMetrics).to.match(/^exchange_replication_lag_records \d+$/m);
  });

  it('forwards writes through the follower and answers them as the writer does: an order, a refusal, an admin write', async () => {
    const direct = await through(writer, alice, 'POST', '/api/v1/orders', order('0.40', '5'));
    const forwarded = await through(follower, alice, 'POST', '/api/v1/orders', order('0.40', '5'));
    expect(direct.status).to.equal(200);
    expect(comparable(forwarded)).to.deep.equal(comparable(direct));

    const tooLarge = order('0.40', '100000');
    const refusedDirect = await through(writer, bob, 'POST', '/api/v1/orders', tooLarge);
    const refusedForwarded = await through(follower, bob, 'POST', '/api/v1/orders', tooLarge);
    expect(refusedDirect.status).to.be.within(400, 499);
    expect(comparable(refusedForwarded)).to.deep.equal(comparable(refusedDirect));

    const unknownMarket = { ...order('0.40', '1'), market_id: '00000000-0000-4000-8000-000000000000' };
    expect(comparable(await through(follower, bob, 'POST', '/api/v1/orders', unknownMarket))).to.deep.equal(
      comparable(await through(writer, bob, 'POST', '/api/v1/orders', unknownMarket)),
    );

    const depositDirect = await writer.adminRaw('POST', `/accounts/${bob.account_id}/deposits`, { amount: '5' });
    const depositForwarded = await follower.adminRaw('POST', `/accounts/${bob.account_id}/deposits`, { amount: '5' });
    expect(depositDirect.status).to.equal(200);
    expect(depositForwarded.status).to.equal(200);
    expect(Object.keys(depositForwarded.body)).to.deep.equal(Object.keys(depositDirect.body));
    const balance = await through(writer, bob, 'GET', '/api/v1/account/balance');
    expect(balance.body.balance.account_balance).to.match(/^1010(\.0+)?$/);
  });

  it("reads a member's own writes through either node at once", async () => {
    for (const [writeNode, readNode] of [
      [follower, follower],
      [writer, follower],
      [follower, writer],
    ] as const) {
      const placed = await through(writeNode, alice, 'POST', '/api/v1/orders', order('0.30', '1'));
      expect(placed.status, placed.text).to.equal(200);
      const read = await through(readNode, alice, 'GET', `/api/v1/orders/${placed.body.order.id}`);
      expect(read.status).to.equal(200);
      expect(read.body.order.id).to.equal(placed.body.order.id);
      const balance = await through(readNode, alice, 'GET', '/api/v1/account/balance');
      const direct = await through(writeNode, alice, 'GET', '/api/v1/account/balance');
      expect(balance.body).to.deep.equal(direct.body);
    }
  });

  it("ends the follower's replica in the writer's state after a workload", async () => {
    const writes: Array<Promise<Answer>> = [];
    for (let i = 0; i < 40; i++) {
      const node = i % 2 === 0 ? writer : follower;
      const member = i % 3 === 0 ? alice : bob;
      const action = i % 4 < 2 ? 'buy' : 'sell';
      writes.push(
        through(node, member, 'POST', '/api/v1/orders', order(action === 'buy' ? '0.45' : '0.44', '1', action)),
      );
    }
    for (const answer of await Promise.all(writes)) expect(answer.status).to.equal(200);
    const head = writer.service.node.position();
    await until(() => follower.service.node.position() >= head);
    expect(stateHash(follower.service.node.engine().state)).to.equal(stateHash(writer.service.node.engine().state));
  });

  it('hands the writer role to the follower when the writer stops, which then takes orders', async () => {
    const before = BigInt((await readiness(follower)).position);
    await writer.stop();
    await until(() => follower.service.node.role() === 'writer');
    const after = await readiness(follower);
    expect(after.role).to.equal('writer');
    expect(BigInt(after.position) >= before, 'position never decreases').to.equal(true);
    const placed = await through(follower, alice, 'POST', '/api/v1/orders', order('0.20', '1'));
    expect(placed.status).to.equal(200);
  });
});
