// The order commands with no HTTP at all: a member and plain input in, typed results out, over
// the real engine process journaling to the memory event store.

import { expect } from 'chai';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { MemberPrincipal } from '../../../commands/auth/principal.ts';
import { startEngine, type RunningEngine } from '../../../engine/process.ts';
import {
  cancelAllOrders,
  cancelOrders,
  placeOrder,
  placeOrders,
  type OrderCommandDeps,
} from '../../../commands/orders/orders.ts';
import { DEFAULT_SETTINGS, type Settings } from '../../../commands/settings/settings.ts';
import { MemoryEventStore } from '../../../eventstore/memory.ts';
import { T0, twoFundedAccountsAndAMarket } from '../../domain/engine/support.ts';

const member = (accountId: string): MemberPrincipal => ({
  kind: 'member',
  account_id: accountId,
  user_id: `user-${accountId}`,
  method: 'api_key',
  source: 'api_key',
  scopes: new Set(['read_only', 'read_write']),
  key_scope: 'read_write',
  key_id: 'k',
  client_id: null,
  token_id: null,
});
const origin = { ip_address: '10.1.2.3' };
const limit = (action: 'buy' | 'sell', price: string, quantity = '10', extra = {}) => ({
  market_id: 'm',
  action,
  order_type: 'limit' as const,
  price,
  quantity,
  ...extra,
});

describe('order commands (no transport)', () => {
  let dataDir: string;
  let engine: RunningEngine;
  let settings: Settings;
  let deps: OrderCommandDeps;
  const written = new Map<string, bigint>();

  beforeEach(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'order-commands-'));
    let now = T0;
    engine = await startEngine({
      store: new MemoryEventStore(),
      dataDir,
      clock: { nowUs: () => (now += 1000) },
      logger: pino({ level: 'silent' }),
      writes: { note: (id, position) => written.set(id, position), lastFor: (id) => written.get(id) },
    });
    for (const input of twoFundedAccountsAndAMarket()) {
      expect((await engine.submit(input)).ok, input.kind).to.equal(true);
    }
    settings = structuredClone(DEFAULT_SETTINGS);
    written.clear();
    deps = {
      engine,
      settings: { get: () => settings, update: async () => ({ ok: true, value: settings }) },
    };
  });
  afterEach(async () => {
    await engine.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('places an order and answers it as the engine left it, noting the write for read-your-writes', async () => {
    const result = await placeOrder(
      deps,
      member('a'),
      limit('buy', '0.4200', '1.1234567895', { client_order_id: 'c-1' }),
      origin,
    );
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value).to.include({
      account_id: 'a',
      status: 'open',
      price: '0.42',
      quantity: '1.12345679',
      client_order_id: 'c-1',
      ip_address: '10.1.2.3',
    });
    expect(written.get('a')).to.be.a('bigint');
  });

  it('refuses bad values, the max_price rule and unfunded orders with typed refusals', async () => {
    expect(await placeOrder(deps, member('a'), limit('buy', '0.001'), origin)).to.deep.equal({
      ok: false,
      refusal: {
        code: 'invalid_order_field',
        field: 'price',
        message: 'price must be a whole number of cents (at most two decimal places)',
      },
    });
    expect(await placeOrder(deps, member('a'), limit('buy', '1.00'), origin)).to.deep.equal({
      ok: false,
      refusal: { code: 'price_at_or_above_max', max_price: '1.00' },
    });
    expect(await placeOrder(deps, member('a'), { ...limit('buy', '0.40'), market_id: 'nope' }, origin)).to.deep.equal({
      ok: false,
      refusal: { code: 'order_market_unknown' },
    });
    const unfunded = await placeOrder(deps, member('a'), limit('buy', '0.50', '1000'), origin);
    expect(unfunded.ok === false && unfunded.refusal).to.deep.equal({
      code: 'order_rejected',
      reason: 'Insufficient funds',
    });
    expect(written.has('a')).to.equal(true); // the rejected order is journaled like any other
  });

  it('applies the location rules before anything reaches the engine', async () => {
    settings.geofencing = {
      enforced: true,
      allowed_codes: ['US-NJ'],
      accept_network_location: false,
      blocked_networks: [],
    };
    expect(await placeOrder(deps, member('a'), limit('buy', '0.40'), origin)).to.deep.equal({
      ok: false,
      refusal: { code: 'location_missing' },
    });
    expect(
      (await placeOrder(deps, member('a'), { ...limit('buy', '0.40'), geo_location: 'US-NJ' }, origin)).ok,
    ).to.equal(true);
    expect(written.size).to.equal(1);
  });

  it('places a batch leg by leg, and refuses the whole batch for one malformed leg or over the limit', async () => {
    const batch = await placeOrders(
      deps,
      member('a'),
      { orders: [limit('buy', '0.40'), limit('buy', '0.50', '100000')] },
      origin,
    );
    expect(batch.ok).to.equal(true);
    if (!batch.ok) return;
    expect(batch.value[0]).to.deep.include({ ok: true });
    expect(batch.value[1]).to.deep.include({
      ok: false,
      refusal: { code: 'order_rejected', reason: 'Insufficient funds' },
    });
    const malformed = await placeOrders(
      deps,
      member('a'),
      { orders: [limit('buy', '0.40'), limit('buy', '0')] },
      origin,
    );
    expect(malformed).to.deep.equal({
      ok: false,
      refusal: {
        code: 'invalid_order_field',
        field: 'orders[1].price',
        message: 'orders[1].price must be greater than 0',
      },
    });
    settings.batch_limit = 1;
    expect(
      await placeOrders(deps, member('a'), { orders: [limit('buy', '0.40'), limit('buy', '0.41')] }, origin),
    ).to.deep.equal({ ok: false, refusal: { code: 'batch_too_large', limit: 1 } });
  });

  it("cancels own orders; another member's order and an unknown id are not found", async () => {
    const mine = await placeOrder(deps, member('a'), limit('buy', '0.40'), origin);
    const theirs = await placeOrder(deps, member('b'), limit('sell', '0.60'), origin);
    if (!mine.ok || !theirs.ok) throw new Error('setup');
    const unknown = '00000000-0000-4000-8000-000000000000';
    const result = await cancelOrders(
      deps,
      member('a'),
      { order_ids: [mine.value.id, theirs.value.id, unknown] },
      origin,
    );
    expect(result).to.deep.equal({
      ok: true,
      value: [
        { order_id: mine.value.id, outcome: 'cancelled', status: 'cancelled' },
        { order_id: theirs.value.id, outcome: 'refused', refusal: { code: 'order_not_found' } },
        { order_id: unknown, outcome: 'refused', refusal: { code: 'order_not_found' } },
      ],
    });
  });

  it('cancels every live cancel_on_disconnect order of a member in one engine step, leaving the others', async () => {
    const guarded = await placeOrder(
      deps,
      member('a'),
      limit('buy', '0.40', '1', { cancel_on_disconnect: true }),
      origin,
    );
    const plain = await placeOrder(deps, member('a'), limit('buy', '0.41', '1'), origin);
    const other = await placeOrder(
      deps,
      member('b'),
      limit('sell', '0.70', '1', { cancel_on_disconnect: true }),
      origin,
    );
    if (!guarded.ok || !plain.ok || !other.ok) throw new Error('setup');
    const result = await cancelAllOrders(deps, member('a'), { market_id: null, cancel_on_disconnect_only: true });
    expect(result.ok && result.value.map((o) => [o.id, o.status])).to.deep.equal([[guarded.value.id, 'cancelled']]);
    const everything = await cancelAllOrders(deps, member('a'), { market_id: 'm', cancel_on_disconnect_only: false });
    expect(everything.ok && everything.value.map((o) => o.id)).to.deep.equal([plain.value.id]);
    const again = await cancelAllOrders(deps, member('a'), { market_id: null, cancel_on_disconnect_only: false });
    expect(again.ok && again.value).to.deep.equal([]);
    expect(
      await cancelAllOrders(deps, member('nobody'), { market_id: null, cancel_on_disconnect_only: false }),
    ).to.deep.equal({ ok: false, refusal: { code: 'account_not_found' } });
  });
});
