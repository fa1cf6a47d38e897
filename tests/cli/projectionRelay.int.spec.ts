// Projections with two nodes on one database: the runner runs on one node at a time (the holder
// of the projection lease), every node's host still receives every change in journal order and
// every position (read-your-writes waits resolve on both), and when the leaseholder dies the
// other node takes the lease over and goes on.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Worker } from 'node:worker_threads';
import { ProjectionWorkerHost } from '../../cli/projectionHost.ts';
import { PostgresEventStore } from '../../eventstore/postgres.ts';
import type { ProjectionChange } from '../../projections/projector.ts';
import { apiKeyStream } from '../../domain/credentials/events.ts';
import { testDatabase, type TestDatabase } from '../support/pg.ts';

const silent = { info() {}, warn() {}, error() {} };

interface Node {
  host: ProjectionWorkerHost;
  revoked: string[];
}

describe('projections on one node at a time, changes on every node', function () {
  this.timeout(90_000);
  let db: TestDatabase;
  let store: PostgresEventStore;
  const nodes: Node[] = [];

  async function startNode(): Promise<Node> {
    const host = new ProjectionWorkerHost({
      connectionString: db.connectionString,
      eventstoreUrl: undefined,
      store,
      logger: silent,
    });
    const node: Node = { host, revoked: [] };
    host.onChange((changes: ProjectionChange[]) => {
      for (const change of changes)
        if (change.kind === 'api_key_revoked' && change.keys.key_id) node.revoked.push(change.keys.key_id);
    });
    await host.start();
    nodes.push(node);
    return node;
  }

  const nodeIdOf = (node: Node) => (node.host as unknown as { nodeId: string }).nodeId;
  const leaseHolder = async () =>
    (await db.pool.query<{ holder: string }>('SELECT holder FROM projection_lease')).rows.map((row) => row.holder);

  /** Issues and revokes a key: the credentials projector announces `api_key_revoked` for it. */
  async function revokedKey(): Promise<{ keyId: string; position: bigint }> {
    const keyId = randomUUID();
    const stream = apiKeyStream(keyId);
    await store.append(
      stream,
      [
        {
          id: randomUUID(),
          type: 'ApiKeyIssued',
          data: { key_id: keyId, account_id: randomUUID(), scope: 'read_only', public_key: 'AAAA', issued_at_us: 1 },
        },
      ],
      'no_stream',
    );
    const { position } = await store.append(
      stream,
      [{ id: randomUUID(), type: 'ApiKeyRevoked', data: { key_id: keyId, revoked_at_us: 2 } }],
      0n,
    );
    return { keyId, position };
  }

  before(async () => {
    db = await testDatabase();
    store = new PostgresEventStore({ pool: db.pool, connectionString: db.connectionString });
  });
  after(async () => {
    for (const node of nodes) await node.host.stop().catch(() => undefined);
    await store.close();
    await db.drop();
  });

  it('one node holds the lease; both receive every change in journal order and settle waits', async () => {
    const a = await startNode();
    const b = await startNode();
    expect(await leaseHolder()).to.deep.equal([nodeIdOf(a)]);
    const keys: string[] = [];
    let last = -1n;
    for (let i = 0; i < 5; i += 1) {
      const { keyId, position } = await revokedKey();
      keys.push(keyId);
      last = position;
    }
    await Promise.all([a.host.waitFor(last, 10_000), b.host.waitFor(last, 10_000)]);
    expect(a.revoked).to.deep.equal(keys);
    expect(b.revoked).to.deep.equal(keys);
    // the follower's reads see what the leaseholder projected
    for (const reached of Object.values(b.host.positions())) expect(reached >= last).to.equal(true);
  });

  it('when the leaseholder dies, the other node takes the lease within seconds and its changes keep coming', async () => {
    const [a, b] = nodes as [Node, Node];
    // the leaseholder's worker dies without a word (no restart, no release): its lease runs out
    (a.host as unknown as { stopping: boolean }).stopping = true;
    await (a.host as unknown as { worker: Worker }).worker.terminate();
    const { keyId, position } = await revokedKey();
    await b.host.waitFor(position, 15_000);
    expect(b.revoked.at(-1)).to.equal(keyId);
    expect(await leaseHolder()).to.deep.equal([nodeIdOf(b)]);
  });

  it('a node that stops cleanly hands the lease over at once to the next one', async () => {
    const c = await startNode();
    const b = nodes[1]!;
    await b.host.stop();
    const { keyId, position } = await revokedKey();
    await c.host.waitFor(position, 10_000);
    expect(c.revoked).to.deep.equal([keyId]);
    expect(await leaseHolder()).to.deep.equal([nodeIdOf(c)]);
  });
});
