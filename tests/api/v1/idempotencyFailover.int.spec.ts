// Idempotency-Key across a failover: a key claimed on a node that stopped before answering is
// answered once, by the journal's outcome (the first attempt's order was journaled) or by placing
// the order now (it was not), never twice; while the claim's holder is alive a retry waits; the
// holder's late answer changes nothing once another node took the claim over.

import { expect } from 'chai';
import { PostgresIdempotencyKeys } from '../../../cli/stores/idempotencyKeys.pg.ts';
import { useWholeService } from './harness.ts';

describe('Idempotency-Key across a failover', function () {
  this.timeout(60_000);
  const suite = useWholeService();

  const order = (clientOrderId: string) => ({
    action: 'buy',
    market_id: suite.marketId,
    order_type: 'limit',
    price: '0.11',
    quantity: '1',
    client_order_id: clientOrderId,
  });
  const ordersNamed = async (clientOrderId: string) =>
    (
      (await suite.alice.call('GET', '/api/v1/orders?limit=200')).body.orders as Array<{
        id: string;
        client_order_id: string;
      }>
    )
      .filter((o) => o.client_order_id === clientOrderId)
      .map((o) => o.id);

  /** The key's row as a node that died before answering leaves it (its hold over unless `heldForMs`). */
  async function abandon(key: string, heldForMs = -1000): Promise<void> {
    const { rowCount } = await suite.svc.ctx.pool.query(
      `UPDATE api_idempotency_keys SET status = NULL, body = NULL, holder = 'a node that stopped',
         held_until = now() + make_interval(secs => $2) WHERE account_id = $1 AND idem_key = $3`,
      [suite.alice.account_id, heldForMs / 1000, key],
    );
    expect(rowCount).to.equal(1);
  }

  it('the first attempt was journaled and its node died before answering: the retry answers that order, placing nothing', async () => {
    const headers = { 'Idempotency-Key': 'failover-journaled' };
    const first = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-journaled'), headers });
    expect(first.status).to.equal(200);
    await abandon('failover-journaled');
    const retry = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-journaled'), headers });
    expect(retry.status, retry.text).to.equal(200);
    expect(retry.body.order.id).to.equal(first.body.order.id);
    expect(await ordersNamed('failover-journaled')).to.deep.equal([first.body.order.id]);
    // and that answer is the key's from now on
    const again = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-journaled'), headers });
    expect(again.headers['idempotent-replayed']).to.equal('true');
    expect(again.body).to.deep.equal(retry.body);
  });

  it('the same for a batch: every leg the first attempt journaled is answered as that order', async () => {
    const headers = { 'Idempotency-Key': 'failover-batch' };
    const body = { orders: [order('failover-batch-a'), order('failover-batch-b')] };
    const first = await suite.alice.call('POST', '/api/v1/orders/batched', { body, headers });
    expect(first.status).to.equal(200);
    await abandon('failover-batch');
    const retry = await suite.alice.call('POST', '/api/v1/orders/batched', { body, headers });
    expect(retry.status, retry.text).to.equal(200);
    const ids = (answer: typeof retry) => answer.body.results.map((leg: { order: { id: string } }) => leg.order.id);
    expect(ids(retry)).to.deep.equal(ids(first));
    expect(await ordersNamed('failover-batch-a')).to.have.length(1);
    expect(await ordersNamed('failover-batch-b')).to.have.length(1);
  });

  it('a 5xx released the claim after the order was journaled (the writer died before answering the follower): the retry answers that order', async () => {
    const headers = { 'Idempotency-Key': 'failover-released' };
    const first = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-released'), headers });
    expect(first.status).to.equal(200);
    // as the follower leaves it when its answer was a 503: released, unanswered, its seed kept
    await suite.svc.ctx.pool.query(
      `UPDATE api_idempotency_keys SET status = NULL, body = NULL, holder = NULL, held_until = NULL
       WHERE account_id = $1 AND idem_key = 'failover-released'`,
      [suite.alice.account_id],
    );
    const retry = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-released'), headers });
    expect(retry.status, retry.text).to.equal(200);
    expect(retry.body.order.id).to.equal(first.body.order.id);
    expect(await ordersNamed('failover-released')).to.deep.equal([first.body.order.id]);
  });

  it('the first attempt was never journaled: the retry places the order, once', async () => {
    // the claim as a node leaves it when it stopped before its order reached the engine: the
    // request's fingerprint (the same body) and a seed, no answer
    const seen = await suite.alice.call('POST', '/api/v1/orders', {
      body: order('failover-lost'),
      headers: { 'Idempotency-Key': 'failover-template' },
    });
    expect(seen.status).to.equal(200);
    await suite.svc.ctx.pool.query(
      `INSERT INTO api_idempotency_keys (account_id, idem_key, created_at_us, fingerprint, holder, held_until, seed)
       SELECT account_id, 'failover-lost', created_at_us, fingerprint, 'a node that stopped', now() - interval '1 second', 'a seed never used'
       FROM api_idempotency_keys WHERE account_id = $1 AND idem_key = 'failover-template'`,
      [suite.alice.account_id],
    );
    const headers = { 'Idempotency-Key': 'failover-lost' };
    const retry = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-lost'), headers });
    expect(retry.status, retry.text).to.equal(200);
    expect(retry.body.order.id).to.not.equal(seen.body.order.id);
    // the template's order and this one: the retry placed exactly one
    expect((await ordersNamed('failover-lost')).sort()).to.deep.equal([seen.body.order.id, retry.body.order.id].sort());
    const again = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-lost'), headers });
    expect(again.body).to.deep.equal(retry.body);
    expect(await ordersNamed('failover-lost')).to.have.length(2);
  });

  it('while the holder keeps its claim a retry waits for it, then takes it over when the hold runs out', async () => {
    const headers = { 'Idempotency-Key': 'failover-held' };
    const first = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-held'), headers });
    await abandon('failover-held', 1_500);
    const retry = await suite.alice.call('POST', '/api/v1/orders', { body: order('failover-held'), headers });
    expect(retry.status, retry.text).to.equal(200);
    expect(retry.body.order.id).to.equal(first.body.order.id);
    expect(await ordersNamed('failover-held')).to.have.length(1);
  });

  it("a holder that wakes after its claim was taken over cannot answer the key: the new holder's answer stays", async () => {
    const frozen = new PostgresIdempotencyKeys(suite.svc.ctx.pool, suite.svc.ctx.clock, { holdMs: 300 });
    const other = new PostgresIdempotencyKeys(suite.svc.ctx.pool, suite.svc.ctx.clock, { holdMs: 300 });
    const claim = await frozen.claim(suite.alice.account_id, 'failover-frozen', 'fingerprint');
    expect(claim.kind).to.equal('claimed');
    // frozen: it stops renewing its claim
    clearInterval((frozen as unknown as { renewal: NodeJS.Timeout }).renewal);
    const taken = await other.claim(suite.alice.account_id, 'failover-frozen', 'fingerprint');
    expect(taken.kind).to.equal('claimed');
    if (taken.kind !== 'claimed' || claim.kind !== 'claimed') return;
    expect(taken.takenOver).to.equal(true);
    expect(taken.seed).to.equal(claim.seed);
    await other.complete(suite.alice.account_id, 'failover-frozen', taken.createdAtUs, {
      status: 200,
      body: { by: 'other' },
    });
    await frozen.complete(suite.alice.account_id, 'failover-frozen', claim.createdAtUs, {
      status: 200,
      body: { by: 'frozen' },
    });
    await frozen.release(suite.alice.account_id, 'failover-frozen', claim.createdAtUs);
    const replay = await other.claim(suite.alice.account_id, 'failover-frozen', 'fingerprint');
    expect(replay).to.deep.equal({
      kind: 'replay',
      answer: { status: 200, body: { by: 'other' } },
      fingerprint: 'fingerprint',
    });
  });
});
