// The cluster harness itself, on one node (what any build of the service can do): a standalone
// PostgreSQL and a `serve` process on it that answers, works, is frozen and thawed, killed -9 and
// started again on its data, stopped cleanly, and leaves nothing behind.

import { existsSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import { startCluster, type Cluster } from './cluster.ts';
import { memberClient, openMarket, openTrader } from './clusterLoad.ts';

describe('cluster harness (one node on a standalone PostgreSQL)', function () {
  this.timeout(180_000);
  let cluster: Cluster;

  before(async () => {
    cluster = await startCluster({ nodes: 1 });
  });

  after(async () => {
    await cluster?.stop();
  });

  it('starts a node that answers /readyz and trades; kill -9 and a restart keep what it acknowledged', async () => {
    const [node] = cluster.nodes;
    expect((await node!.readyz()).status).to.equal(200);
    const trader = await openTrader(cluster, node!, '100');
    const marketId = await openMarket(cluster, node!, 'Harness market');
    const order = await memberClient(node!, trader).placeOrder(
      { market_id: marketId, action: 'buy', order_type: 'limit', price: '0.40', quantity: '2' },
      { idempotencyKey: randomUUID() },
    );
    const pid = node!.pid;
    await node!.kill();
    expect(node!.running).to.equal(false);
    expect((await node!.readyz()).status, 'a killed node answers nothing').to.equal(0);
    await node!.restart();
    expect(node!.pid).to.not.equal(pid);
    expect((await memberClient(node!, trader).order(order.id)).id).to.equal(order.id);
  });

  it('a frozen node answers nothing until it is thawed', async () => {
    const [node] = cluster.nodes;
    node!.freeze();
    try {
      expect((await node!.readyz(500)).status).to.equal(0);
    } finally {
      node!.thaw();
    }
    expect((await node!.readyz()).status).to.equal(200);
  });

  it('SIGTERM stops a node cleanly (exit 0), and stop() removes everything it started', async () => {
    const [node] = cluster.nodes;
    expect(await node!.terminate()).to.equal(0);
    const dirs = [node!.dataDir, cluster.postgres.dataDir];
    await cluster.stop();
    for (const dir of dirs) expect(existsSync(path.dirname(dir)), dir).to.equal(false);
  });
});
