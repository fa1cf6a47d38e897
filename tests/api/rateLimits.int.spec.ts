// Request rate limits on /api/v1 through real HTTP, concurrent requests: a token bucket per
// account over all its credentials, reads and writes apart, a batch one write per leg, 429 with
// Retry-After and the RateLimit-* headers; the operator's `rate_limits` setting (0 turns one off);
// failed authentications limited per address. Bounds follow from the measured elapsed time (the
// buckets refill while requests are in flight), never from a fixed duration.

import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { limitBuyOfOne, startWholeService, type Answer, type Member, type WholeService } from './v1/harness.ts';

const BURST_SECONDS = 2;

/** Requests a bucket of `perSecond` can have taken in `elapsedMs`: its burst plus what it refilled (and one for rounding). */
const takenAtMost = (perSecond: number, elapsedMs: number) =>
  perSecond * BURST_SECONDS + Math.ceil((perSecond * elapsedMs) / 1000) + 1;

async function timed(requests: Array<() => Promise<Answer>>): Promise<{ answers: Answer[]; elapsedMs: number }> {
  const started = performance.now();
  const answers = await Promise.all(requests.map((request) => request()));
  return { answers, elapsedMs: performance.now() - started };
}

function expectTooMany(answer: Answer, limit: number): void {
  expect(answer.status, answer.text).to.equal(429);
  expect(answer.body).to.deep.equal({ error: 'Too many requests' });
  expect(Number(answer.headers['retry-after'])).to.be.a('number').and.at.least(1);
  expect(answer.headers['ratelimit-limit']).to.equal(String(limit));
  expect(answer.headers['ratelimit-remaining']).to.equal('0');
  expect(Number(answer.headers['ratelimit-reset'])).to.be.at.least(1);
}

describe('request rate limits (/api/v1)', function () {
  this.timeout(120_000);
  let svc: WholeService;
  let marketId: string;

  before(async () => {
    svc = await startWholeService();
    marketId = (await svc.market()).market_id;
  });
  after(async () => svc?.stop());

  const setLimits = (limits: Record<string, number>) => svc.admin('PATCH', '/settings', { rate_limits: limits });
  const order = (i: number) => limitBuyOfOne(marketId, (0.01 + (i % 40) / 100).toFixed(2));

  it('defaults to 200 reads and 100 writes per second per account', async () => {
    const { settings } = await svc.admin('GET', '/settings');
    expect(settings.rate_limits).to.deep.equal({ read_per_second: 200, write_per_second: 100 });
  });

  it('writes: one bucket per account over its API keys and its session; past it 429 with the headers, other accounts untouched', async () => {
    const perSecond = 3;
    await setLimits({ read_per_second: 200, write_per_second: perSecond });
    const alice: Member = await svc.member();
    const bob: Member = await svc.member();
    const { answers, elapsedMs } = await timed(
      Array.from(
        { length: 30 },
        (_, i) => () =>
          i % 2 === 0
            ? alice.call('POST', '/api/v1/orders', { body: order(i) })
            : alice.call('POST', '/api/v1/orders', { key: null, bearer: alice.session, body: order(i) }),
      ),
    );
    const placed = answers.filter((answer) => answer.status === 200).length;
    const refused = answers.filter((answer) => answer.status === 429);
    expect(placed + refused.length, answers.map((a) => a.status).join(',')).to.equal(30);
    expect(placed).to.be.at.least(1).and.at.most(takenAtMost(perSecond, elapsedMs));
    for (const answer of refused) expectTooMany(answer, perSecond * BURST_SECONDS);
    // the account's reads have their own bucket; another account its own writes
    expect((await alice.call('GET', '/api/v1/account/balance')).status).to.equal(200);
    expect((await bob.call('POST', '/api/v1/orders', { body: order(1) })).status).to.equal(200);
  });

  it('a batch takes one write per leg', async () => {
    const perSecond = 5; // a bucket of 10
    await setLimits({ read_per_second: 200, write_per_second: perSecond });
    const carol = await svc.member();
    const legs = Array.from({ length: 8 }, (_, i) => order(i));
    const first = await carol.call('POST', '/api/v1/orders/batched', { body: { orders: legs } });
    expect(first.status, first.text).to.equal(200);
    const started = performance.now();
    const second = await carol.call('POST', '/api/v1/orders/batched', { body: { orders: legs } });
    // 8 of 10 taken: a second batch of 8 finds 2 (plus what refilled since, well under 6)
    if (performance.now() - started < 1000) expectTooMany(second, perSecond * BURST_SECONDS);
    const cancel = await carol.call('DELETE', '/api/v1/orders/batched', {
      body: { orders: first.body.results.map((r: { order: { id: string } }) => ({ order_id: r.order.id })) },
    });
    expect([200, 429]).to.include(cancel.status);
  });

  it('reads: their own bucket', async () => {
    const perSecond = 4;
    await setLimits({ read_per_second: perSecond, write_per_second: 100 });
    const dave = await svc.member();
    const { answers, elapsedMs } = await timed(
      Array.from({ length: 30 }, () => () => dave.call('GET', '/api/v1/account/balance')),
    );
    const answered = answers.filter((answer) => answer.status === 200).length;
    expect(answered).to.be.at.least(1).and.at.most(takenAtMost(perSecond, elapsedMs));
    for (const answer of answers.filter((a) => a.status !== 200)) expectTooMany(answer, perSecond * BURST_SECONDS);
    expect((await dave.call('POST', '/api/v1/orders', { body: order(3) })).status).to.equal(200);
  });

  it('0 turns a limit off; a bad value is 400 and changes nothing', async () => {
    await setLimits({ write_per_second: 0 });
    const { settings } = await svc.admin('GET', '/settings');
    expect(settings.rate_limits).to.deep.equal({ read_per_second: 4, write_per_second: 0 });
    const erin = await svc.member();
    const { answers } = await timed(
      Array.from({ length: 40 }, (_, i) => () => erin.call('POST', '/api/v1/orders', { body: order(i) })),
    );
    expect(answers.map((answer) => answer.status)).to.deep.equal(Array(40).fill(200));
    for (const bad of [
      { read_per_second: -1 },
      { read_per_second: 1.5 },
      { write_per_second: 'many' },
      { burst: 3 },
      'fast',
    ]) {
      const answer = await svc.adminRaw('PATCH', '/settings', { rate_limits: bad });
      expect(answer.status, JSON.stringify(bad)).to.equal(400);
    }
    expect((await svc.admin('GET', '/settings')).settings.rate_limits).to.deep.equal({
      read_per_second: 4,
      write_per_second: 0,
    });
    await setLimits({ read_per_second: 200, write_per_second: 100 });
  });
});

describe('failed authentications per address (/api/v1)', function () {
  this.timeout(120_000);
  let svc: WholeService;

  // the requests come through a trusted proxy that names the client: loopback itself is not counted
  before(async () => {
    svc = await startWholeService({ TRUSTED_PROXIES: '127.0.0.1,::1' });
  });
  after(async () => svc?.stop());
  const from = (address: string) => ({ 'x-forwarded-for': `198.51.100.200, ${address}` });

  it('an unknown OAuth access token or API key id presented again is not looked up again (short negative cache)', async () => {
    const pool = svc.ctx.pool as unknown as { query: (...args: unknown[]) => unknown };
    const original = pool.query;
    const lookups = { tokens: 0, keys: 0 };
    pool.query = function (this: unknown, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : ((args[0] as { text?: string } | undefined)?.text ?? '');
      if (/FROM oauth_tokens\b[\s\S]*WHERE t?\.?token_hash/.test(text)) lookups.tokens += 1;
      if (/FROM api_keys WHERE key_id/.test(text)) lookups.keys += 1;
      return original.apply(this, args);
    };
    try {
      const key = {
        key_id: '5f0c9a52-0000-4000-8000-00000000abcd',
        private_key: Buffer.alloc(32, 7).toString('base64'),
        scope: 'read_only' as const,
        public_key: '',
      };
      for (let i = 0; i < 8; i += 1) {
        expect((await svc.call('GET', '/api/v1/me', { bearer: 'svc_at_never-issued' })).status).to.equal(401);
        expect((await svc.call('GET', '/api/v1/me', { key })).status).to.equal(401);
      }
    } finally {
      pool.query = original;
    }
    expect(lookups).to.deep.equal({ tokens: 1, keys: 1 });
  });

  it('past 20 a second (40 at once) from one address: 429 before the credentials are looked at', async () => {
    const perSecond = 20;
    const attacker = from('203.0.113.7');
    const { answers, elapsedMs } = await timed(
      Array.from(
        { length: 200 },
        (_, i) => () => svc.call('GET', '/api/v1/account/balance', { bearer: `svc_at_guess${i}`, headers: attacker }),
      ),
    );
    const judged = answers.filter((answer) => answer.status === 401).length;
    const limited = answers.filter((answer) => answer.status === 429);
    expect(judged + limited.length).to.equal(200);
    expect(judged).to.be.at.least(1).and.at.most(takenAtMost(perSecond, elapsedMs));
    expect(limited.length).to.be.at.least(1);
    for (const answer of limited) expectTooMany(answer, perSecond * BURST_SECONDS);
    // the same /64 is the same client; another address, and this machine itself, are not affected
    const member = await svc.member();
    expect((await member.call('GET', '/api/v1/account/balance', { headers: from('2001:db8:1:2::1') })).status).to.equal(
      200,
    );
    const sameBlock = await timed(
      Array.from(
        { length: 200 },
        (_, i) => () =>
          svc.call('GET', '/api/v1/me', {
            bearer: `svc_at_v6guess${i}`,
            headers: from(`2001:db8:1:2::${(i + 2).toString(16)}`),
          }),
      ),
    );
    expect(sameBlock.answers.filter((answer) => answer.status === 401).length).to.be.at.most(
      takenAtMost(perSecond, sameBlock.elapsedMs),
    );
    expect((await member.call('GET', '/api/v1/account/balance', { headers: from('203.0.113.8') })).status).to.equal(
      200,
    );
    const local = await Promise.all(
      Array.from({ length: 60 }, (_, i) => svc.call('GET', '/api/v1/me', { bearer: `svc_at_local${i}` })),
    );
    expect(local.map((answer) => answer.status)).to.deep.equal(Array(60).fill(401));
  });
});
