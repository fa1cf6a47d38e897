// Fuzzing /api/v1 with random bodies, query strings, headers and signatures (a fixed seed and a
// bounded count, so a failure replays): the service never answers 5xx, every error is a JSON
// `{error}` body, and a refused request (4xx) never changes state (no journaled engine outcome,
// no credential or settings event).

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import { seededRandom } from '../../../domain/random.ts';
import { signedHeaders, useWholeService } from './harness.ts';

const ITERATIONS = 600;
const SEED = 0x5eed_1234;

/** Mulberry32: small, seeded, good enough to pick test inputs. */
function prng(seed: number) {
  const next = seededRandom(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chance = (p: number) => next() < p;
  return { next, int, pick, chance };
}

/** State that a refused request must not touch. */
function meaningful(records: RecordedEvent[]): number {
  return records.filter((r) => {
    if (r.stream !== 'engine') return true;
    const data = r.data as { input?: { kind?: string }; events?: unknown[] };
    return data.input?.kind !== 'Tick' && (data.events?.length ?? 0) > 0;
  }).length;
}

/** What a header value cannot carry: control characters and anything beyond ASCII. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this pattern finds
const HEADER_UNSAFE = /[\u0000-\u001f\u007f-\uffff]/;

describe('fuzzing /api/v1', function () {
  this.timeout(300_000);
  const suite = useWholeService();
  let knownOrderId: string;

  before(async () => {
    knownOrderId = (
      await suite.alice.call('POST', '/api/v1/orders', {
        body: { action: 'buy', market_id: suite.marketId, order_type: 'limit', price: '0.10', quantity: '1' },
      })
    ).body.order.id;
  });

  it(`${ITERATIONS} random requests: no 5xx, JSON errors, refused requests change nothing`, async () => {
    const r = prng(SEED);
    const strings = [
      '',
      ' ',
      '0',
      '-1',
      '1e3',
      '0.42',
      '0.001',
      '.5',
      '5.',
      'NaN',
      'null',
      'true',
      'OPEN',
      'open',
      'buy',
      'limit',
      '\u0000',
      '💥',
      '%',
      '%%',
      '%zz',
      "'; DROP TABLE core_orders;--",
      'a'.repeat(600),
      randomUUID(),
      suite.marketId,
      knownOrderId,
    ];
    const anyValue = (depth = 0): unknown => {
      switch (r.int(depth > 2 ? 6 : 8)) {
        case 0:
          return r.pick(strings);
        case 1:
          return r.int(2) ? r.int(1_000_000) - 500_000 : r.next() * 10;
        case 2:
          return r.chance(0.5);
        case 3:
          return null;
        case 4:
          return 2 ** 63;
        case 5:
          return -0.0000001;
        case 6:
          return Array.from({ length: r.int(4) }, () => anyValue(depth + 1));
        default:
          return Object.fromEntries(
            Array.from({ length: r.int(4) }, () => [
              r.pick(['action', 'price', 'orders', 'order_id', 'x']),
              anyValue(depth + 1),
            ]),
          );
      }
    };
    const validOrder = () => ({
      action: 'buy',
      market_id: suite.marketId,
      order_type: 'limit',
      price: '0.05',
      quantity: '1',
    });
    const mutatedOrder = () => {
      const order: Record<string, unknown> = validOrder();
      const fields = [
        'action',
        'market_id',
        'order_type',
        'price',
        'quantity',
        'expiration',
        'expiration_time',
        'client_order_id',
        'device_id',
        'geo_location',
        'cancel_on_disconnect',
      ];
      for (let i = 0; i < 1 + r.int(3); i++) {
        const field = r.pick(fields);
        if (r.chance(0.2)) delete order[field];
        else order[field] = anyValue();
      }
      return order;
    };
    const bodies = [
      () => mutatedOrder(),
      // a valid order whose free-form fields carry any of the strings (NUL included)
      () => ({ ...validOrder(), client_order_id: r.pick(strings), device_id: r.chance(0.5) ? r.pick(strings) : null }),
      () => ({
        orders: Array.from({ length: r.int(4) }, () => (r.chance(0.5) ? mutatedOrder() : validOrder())),
        geo_location: r.chance(0.3) ? anyValue() : undefined,
      }),
      () => ({
        orders: Array.from({ length: r.int(3) }, () =>
          r.chance(0.5) ? { order_id: r.pick([knownOrderId, 'x', randomUUID()]) } : anyValue(),
        ),
      }),
      () => ({ order_ids: [knownOrderId] }),
      () => anyValue(),
      () => r.pick(['{', '[]', '"str"', '{"a":1}{', 'null', '{"orders":[{"order_id":']),
    ];
    const routes: Array<[string, string]> = [
      ['POST', '/api/v1/orders'],
      ['POST', '/api/v1/orders/batched'],
      ['DELETE', '/api/v1/orders/batched'],
      ['GET', '/api/v1/orders'],
      ['GET', `/api/v1/orders/${knownOrderId}`],
      ['GET', '/api/v1/orders/batched'],
      ['GET', '/api/v1/markets'],
      ['GET', '/api/v1/fills'],
      ['GET', '/api/v1/positions'],
      ['GET', '/api/v1/account/balance'],
      ['GET', '/api/v1/trades'],
      ['PUT', '/api/v1/orders'],
      ['DELETE', `/api/v1/orders/${knownOrderId}`],
      ['GET', '/api/v1/openapi.json'],
      ['GET', '/api/v1/orders/%E0%A4%A'],
      ['POST', '/api/v1/orders/batched/extra'],
    ];
    const params = [
      'limit',
      'cursor',
      'status',
      'order_ids',
      'client_order_ids',
      'market_ids',
      'event_ids',
      'trading',
      'sports',
      'competitions',
      'sort_by[name]',
      'sort_by[direction]',
      'status[]',
      'access_token',
    ];
    const queryOf = () => {
      if (r.chance(0.4)) return '';
      const parts = Array.from({ length: 1 + r.int(4) }, () => {
        const value = r.chance(0.7)
          ? String(anyValue(3))
          : r.pick([
              'open,closed',
              'OPEN',
              'true',
              'eyJ4IjoxfQ',
              'WyIxIiwyXQ',
              'WyI5OTk5OTk5OTk5OTk5OTk5OTk5IiwxXQ',
              'WzEsOTk5OTk5OTk5OTld',
              'WzksIjk5OTk5OTk5OTk5OTk5OTk5OTkiLCJ4Il0',
              '%ZZ',
              '',
            ]);
        return `${encodeURIComponent(r.pick(params))}=${r.chance(0.8) ? encodeURIComponent(value) : value.replace(/[^\x21-\x7e]|#/g, '')}`;
      });
      return `?${parts.join('&')}`;
    };

    // counts meaningful records incrementally (reads only what is new since the last look)
    let lastPosition: bigint | undefined;
    let count = 0;
    const stateCount = async () => {
      for (;;) {
        const records = await suite.svc.ctx.store.readAll(
          lastPosition === undefined ? { maxCount: 1000 } : { after: lastPosition, maxCount: 1000 },
        );
        if (records.length === 0) return count;
        count += meaningful(records);
        lastPosition = (records[records.length - 1] as RecordedEvent).position;
      }
    };
    let before = await stateCount();
    const seen = new Map<number, number>();
    for (let i = 0; i < ITERATIONS; i++) {
      const [method, basePath] = r.pick(routes);
      const path = basePath + queryOf();
      const headers: Record<string, string> = {};
      // 0-3 signed read_write, 4 signed read_only, 5 tampered signing headers, 6 bearer variants,
      // 7 unprefixed headers, 8 no credential
      const credential = r.int(9);
      const nowMs = suite.svc.ctx.clock.nowUs() / 1000;
      if (credential <= 5)
        Object.assign(
          headers,
          signedHeaders(credential === 4 ? suite.alice.readOnlyKey : suite.alice.key, method, path, nowMs),
        );
      if (credential === 5) {
        const name = r.pick(['X-SVC-ACCESS-KEY', 'X-SVC-ACCESS-TIMESTAMP', 'X-SVC-ACCESS-SIGNATURE']);
        if (r.chance(0.3)) delete headers[name];
        else
          headers[name] = String(
            r.pick([...strings.filter((s) => !HEADER_UNSAFE.test(s)), 'AAAA', String(nowMs - 40_000)]),
          );
      }
      if (credential === 6)
        headers.authorization = r.pick([
          `Bearer ${suite.alice.session}`,
          'Bearer',
          'Bearer svc_st_x',
          'Basic abc',
          `bearer   ${suite.alice.session}`,
          'Bearer a b',
        ]);
      if (credential === 7)
        Object.assign(headers, {
          'SVC-ACCESS-KEY': suite.alice.key.key_id,
          'SVC-ACCESS-TIMESTAMP': String(nowMs),
          'SVC-ACCESS-SIGNATURE': 'AAAA',
        });
      if (r.chance(0.15)) headers['Idempotency-Key'] = r.pick(['k1', 'k2', 'x'.repeat(256)]);
      let body: unknown;
      if (method !== 'GET' || r.chance(0.1)) {
        const made = r.pick(bodies)();
        body = typeof made === 'string' ? made : JSON.stringify(made);
      }
      const answer = await suite.svc.call(method, path, {
        headers,
        body,
        userAgent: r.chance(0.05) ? null : undefined,
      });
      seen.set(answer.status, (seen.get(answer.status) ?? 0) + 1);
      const context = `#${i} ${method} ${path} ${JSON.stringify(headers).slice(0, 200)} ${String(body).slice(0, 200)} → ${answer.status} ${answer.text.slice(0, 200)}`;
      expect(answer.status, context).to.be.below(500);
      const after = await stateCount();
      if (answer.status >= 400) {
        expect(answer.body, context).to.be.an('object');
        expect(answer.body.error, context).to.be.a('string');
        expect(after, `state changed on a refused request: ${context}`).to.equal(before);
      }
      before = after;
    }
    console.log(`      statuses: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
    // the run reached every outcome class
    for (const status of [200, 400, 401, 403, 404])
      expect(seen.get(status) ?? 0, `no ${status} in ${JSON.stringify([...seen])}`).to.be.above(0);
    // and whatever was accepted, the read models still work: every projector has reached the
    // journal's head, and an order placed now is readable at once
    const head = await suite.svc.ctx.store.headPosition();
    await suite.svc.ctx.projections.waitFor(head, 10_000);
    const placed = await suite.alice.call('POST', '/api/v1/orders', {
      body: { action: 'buy', market_id: suite.marketId, order_type: 'limit', price: '0.11', quantity: '1' },
    });
    expect(placed.status, placed.text).to.equal(200);
    const read = await suite.alice.call('GET', `/api/v1/orders/${placed.body.order.id}`);
    expect(read.status, read.text).to.equal(200);
  });
});
