// Two nodes as real processes (`exchange serve`) on one PostgreSQL: kill -9 of the writer, and
// the follower takes the lease and accepts orders; meanwhile an order answers 503 with
// Retry-After and nothing else. The gap is printed, not asserted (the cluster benchmark measures it).

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { createSigner } from '@event-exchange/client';
import { testDatabase, type TestDatabase } from '../support/pg.ts';

const BIN = path.resolve('cli/bin.js');
const ADMIN_TOKEN = 'failover-test-admin-token-0123456789abcdef';
const USER_AGENT = 'failover-test/1.0';

interface Node {
  child: ChildProcess;
  port: number;
  adminPort: number;
  exited: Promise<number | null>;
}

async function startNode(databaseUrl: string, dataDir: string): Promise<Node> {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      WS_PORT: '0',
      ADMIN_PORT: '0',
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl,
      ADMIN_TOKEN,
      LOG_LEVEL: 'info',
      DEMO: '0',
      TEST_CLOCK: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  let adminPort = 0;
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (line.includes('"adminPort"')) adminPort = Number(JSON.parse(line).adminPort);
        if (line.includes('"msg":"ready"')) resolve(Number(JSON.parse(line).port));
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before ready: ${output.slice(-2000)}`)));
  });
  return { child, port, adminPort, exited };
}

async function readiness(node: Node): Promise<{ role: string; position: string }> {
  return (await (await fetch(`http://127.0.0.1:${node.port}/readyz`)).json()) as { role: string; position: string };
}

async function admin(node: Node, method: string, route: string, body?: unknown): Promise<any> {
  const response = await fetch(`http://127.0.0.1:${node.adminPort}/admin/v1${route}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'user-agent': USER_AGENT },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as unknown;
  if (response.status !== 200)
    throw new Error(`admin ${method} ${route}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

describe('nodes as processes: kill -9 of the writer', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  const dirs: string[] = [];
  const nodes: Node[] = [];

  before(async () => {
    database = await testDatabase();
    for (let i = 0; i < 2; i++) {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'exchange-node-'));
      dirs.push(dir);
      nodes.push(await startNode(database.connectionString, dir));
    }
  });
  after(async () => {
    for (const node of nodes) node.child.kill('SIGKILL');
    await Promise.all(nodes.map((node) => node.exited));
    await database?.drop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('another node accepts orders after the writer is killed; orders in the gap answer 503 with Retry-After', async () => {
    const roles = await Promise.all(nodes.map(readiness));
    expect(roles.map((r) => r.role).sort()).to.deep.equal(['follower', 'writer']);
    const writer = nodes[roles.findIndex((r) => r.role === 'writer')]!;
    const follower = nodes[roles.findIndex((r) => r.role === 'follower')]!;

    const { account } = await admin(writer, 'POST', '/accounts', { first_name: 'Kill', last_name: 'Test' });
    await admin(writer, 'POST', `/accounts/${account.account_id}/deposits`, { amount: '1000' });
    const { api_key: key } = await admin(writer, 'POST', `/accounts/${account.account_id}/api_keys`, {
      scope: 'read_write',
    });
    const start = new Date(Date.now() + 86_400_000).toISOString();
    const { event } = await admin(writer, 'POST', '/events', {
      title: 'A v B',
      start,
      sport: 'Soccer',
      competition: 'EPL',
    });
    const { market } = await admin(writer, 'POST', '/markets', {
      event_id: event.event_id,
      title: 'A to win',
      status: 'open',
    });
    const signer = createSigner(key.key_id, key.private_key, { implementation: 'noble' });
    const placeOrder = async (node: Node) => {
      const route = '/api/v1/orders';
      const response = await fetch(`http://127.0.0.1:${node.port}${route}`, {
        method: 'POST',
        headers: {
          ...signer.headers('POST', route, Date.now()),
          'content-type': 'application/json',
          'user-agent': USER_AGENT,
        },
        body: JSON.stringify({
          market_id: market.market_id,
          action: 'buy',
          order_type: 'limit',
          price: '0.10',
          quantity: '1',
        }),
      });
      return { status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.text() };
    };
    expect((await placeOrder(follower)).status).to.equal(200);

    const killedAt = performance.now();
    writer.child.kill('SIGKILL');
    const gap: Array<{ status: number; retryAfter: string | null }> = [];
    for (;;) {
      const answer = await placeOrder(follower);
      if (answer.status === 200) break;
      gap.push({ status: answer.status, retryAfter: answer.retryAfter });
      expect(answer.status, answer.body).to.equal(503);
      expect(answer.retryAfter, answer.body).to.match(/^\d+$/);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const gapMs = Math.round(performance.now() - killedAt);
    console.log(
      `      takeover after kill -9: first order accepted ${gapMs} ms after the kill (${gap.length} answered 503 meanwhile)`,
    );
    expect((await readiness(follower)).role).to.equal('writer');
  });
});
