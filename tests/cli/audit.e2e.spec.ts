// `exchange audit` against the whole service: after trading (with trade and settlement fees, a
// position partly closed), markets resulted win and lose and one voided, a withdrawal and
// adjustments, the journal folded from zero agrees with the money rules and the read models
// equal the fold. A read-model row altered by hand, or a journal with a tampered fact, makes the
// audit fail naming it; the command line exits 1 and says the same.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import type { EngineEvent } from '../../domain/engine/events.ts';
import { decimalOf, isPositive } from '../../domain/money/decimal.ts';
import {
  encodeStep,
  engineStepsData,
  ENGINE_STREAM,
  ENGINE_STEPS_TYPE,
  journalStepsOf,
  newRecordContext,
} from '../../domain/engine/journal/journal.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { auditExchange, type AuditReport } from '../../projections/audit/audit.ts';
import { ServiceClient, type ApiKeyCredentials } from '../api/admin/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

const run = promisify(execFile);
const BIN = path.resolve('cli/bin.js');

describe('e2e: exchange audit', function () {
  this.timeout(240_000);
  let service: TestService;
  let client: ServiceClient;
  const ids: { alice: string; bob: string; carol: string; win: string; lose: string; voided: string; open: string } = {
    alice: '',
    bob: '',
    carol: '',
    win: '',
    lose: '',
    voided: '',
    open: '',
  };

  async function order(
    key: ApiKeyCredentials,
    marketId: string,
    action: 'buy' | 'sell',
    price: string,
    quantity: string,
  ): Promise<Record<string, unknown>> {
    const answer = await client.signed(key, 'POST', '/orders', {
      market_id: marketId,
      action,
      order_type: 'limit',
      price,
      quantity,
    });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.order as Record<string, unknown>;
  }

  async function caughtUp(): Promise<void> {
    await service.service.runner.waitFor(await service.ctx.store.headPosition());
  }

  async function audit(): Promise<AuditReport> {
    await caughtUp();
    return auditExchange(service.ctx.store, service.ctx.pool);
  }

  async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    const env = {
      ...process.env,
      DATABASE_URL: service.ctx.config.databaseUrl!,
      DATA_DIR: service.ctx.config.dataDir,
      LOG_LEVEL: 'warn',
    };
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, 'audit', ...args], { env });
      return { stdout, stderr, code: 0 };
    } catch (err) {
      const failed = err as { stdout: string; stderr: string; code: number };
      return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
    }
  }

  before(async () => {
    service = await startTestService();
    client = new ServiceClient(service.baseUrl, service.adminToken, service.adminUrl);
    const event = (
      await client.ok('POST', '/events', {
        title: 'Audit City v Ledger Town',
        start: new Date(client.nowMs() + 2 * 3_600_000).toISOString(),
        sport: 'soccer',
        participants: ['Audit City', 'Ledger Town'],
      })
    ).event;
    const market = async (title: string) =>
      (await client.ok('POST', '/markets', { event_id: event.event_id, title, status: 'open' })).market
        .market_id as string;
    ids.win = await market('Audit City to win');
    ids.lose = await market('Ledger Town to win');
    ids.voided = await market('A draw');
    ids.open = await market('Over 2.5 goals');
    await client.ok('PATCH', `/markets/${ids.win}`, { settlement_fee_percent: 10 });

    // default fee schedule: every fill pays a trade fee
    const member = async (name: string) =>
      (await client.ok('POST', '/accounts', { first_name: name })).account.account_id as string;
    ids.alice = await member('Alice');
    ids.bob = await member('Bob');
    ids.carol = await member('Carol');
    const key = async (id: string): Promise<ApiKeyCredentials> =>
      (await client.ok('POST', `/accounts/${id}/api_keys`, { scope: 'read_write' })).api_key;
    const alice = await key(ids.alice);
    const bob = await key(ids.bob);
    const carol = await key(ids.carol);
    for (const id of [ids.alice, ids.bob, ids.carol])
      await client.ok('POST', `/accounts/${id}/deposits`, { amount: '100.00' });

    for (const [marketId, price, quantity] of [
      [ids.win, '0.60', '10'],
      [ids.lose, '0.40', '5'],
      [ids.voided, '0.50', '4'],
      [ids.open, '0.50', '10'],
    ] as const) {
      await order(alice, marketId, 'buy', price, quantity);
      expect(await order(bob, marketId, 'sell', price, quantity)).to.include({ status: 'filled' });
    }
    // Alice closes part of her long to Carol at a profit: realised PnL and a fee on the closing fill
    await order(carol, ids.open, 'buy', '0.70', '4');
    expect(await order(alice, ids.open, 'sell', '0.70', '4')).to.include({ status: 'filled' });
    // a resting order, and one cancelled
    await order(carol, ids.open, 'buy', '0.30', '3');
    const cancelled = await order(bob, ids.open, 'buy', '0.20', '2');
    expect(
      (await client.signed(bob, 'DELETE', '/orders/batched', { orders: [{ order_id: cancelled.id }] })).status,
    ).to.equal(200);

    await client.ok('POST', `/events/${event.event_id}/start`);
    for (const id of [ids.win, ids.lose, ids.voided])
      await client.ok('POST', `/markets/${id}/status`, { status: 'closed' });
    await client.ok('POST', `/markets/${ids.win}/result`, { result: 'win' });
    await client.ok('POST', `/markets/${ids.lose}/result`, { result: 'lose' });
    await client.ok('POST', `/markets/${ids.voided}/result`, { result: 'void' });

    await client.ok('POST', `/accounts/${ids.alice}/withdrawals`, { amount: '10.00', method: 'bank_transfer' });
    await client.ok('POST', `/accounts/${ids.bob}/adjustments`, { amount: '-1.50', reason: 'chargeback' });
    await client.ok('POST', `/accounts/${ids.carol}/adjustments`, { amount: '2.25', reason: 'goodwill' });
  });
  after(async () => service?.stop());

  it('passes after trading, fees, settlement (win, lose, void), a withdrawal and adjustments, and sums the money', async () => {
    const report = await audit();
    expect(report.differences).to.deep.equal([]);
    expect(report.ok).to.equal(true);
    expect(report.entities).to.include({ members: 3, markets: 4, settled_markets: 3, orders: 12, fills: 10 });
    expect(report.journal.trades).to.equal(5);
    expect(report.money).to.include({ deposits: '300.00', withdrawals: '10.00', adjustments: '0.75' });
    // the open market's pool owes Alice's realised 4 x 0.20 until the positions against her settle
    expect(report.money.open_pools).to.equal('-0.80');
    // what members paid in fees is the house's fee revenue, and no money was made or lost
    expect(report.money.fee_revenue).to.equal(report.money.fees);
    expect(isPositive(decimalOf(report.money.fees))).to.equal(true);
    expect(report.read_models?.rows).to.include({ core_balances: 3, core_orders: 12, core_fills: 10 });
    expect(report.read_models?.rows.core_ledger_entries).to.be.greaterThan(10);
    // cash of the three members: what came in, less what went out (the outside world's account is its negative)
    expect(report.money.outside).to.equal('-290.75');
  });

  it('answers the same on the command line: a summary, --json, exit 0', async () => {
    await caughtUp();
    const text = await cli();
    expect(text.code, text.stderr).to.equal(0);
    expect(text.stdout).to.match(/^audit passed/m);
    expect(text.stdout).to.match(/3 members, 12 orders, 10 fills/);
    const json = await cli('--json');
    expect(json.code, json.stderr).to.equal(0);
    const report = JSON.parse(json.stdout) as AuditReport;
    expect(report).to.include({ ok: true });
    expect(report.money).to.include({ deposits: '300.00', withdrawals: '10.00' });
  });

  // each alteration names alice's row and the column changed, and says what the fold makes of it
  for (const { table, column, alter, params } of [
    {
      table: 'core_balances',
      column: 'doc.account_balance',
      alter: `UPDATE core_balances SET doc = jsonb_set(doc::jsonb, '{account_balance}', '"999.00"')::json
              WHERE account_id = $1 RETURNING 'account_id=' || account_id AS key, '"999.00"' AS found`,
      params: () => [ids.alice],
    },
    {
      table: 'core_positions',
      column: 'position',
      alter: `UPDATE core_positions SET position = position + 1 WHERE account_id = $1 AND market_id = $2
              RETURNING 'account_id=' || account_id || ' market_id=' || market_id AS key, position::text AS found`,
      params: () => [ids.alice, ids.open],
    },
    {
      table: 'core_fills',
      column: 'doc.trade_fee',
      alter: `UPDATE core_fills SET doc = jsonb_set(doc::jsonb, '{trade_fee}', '"0.00"')::json
              WHERE account_id = $1 AND market_id = $2 AND doc->>'action' = 'sell'
              RETURNING 'trade_id=' || trade_id || ' liquidity_action=' || liquidity_action AS key, '"0.00"' AS found`,
      params: () => [ids.alice, ids.open],
    },
    {
      table: 'core_orders',
      column: 'book_remaining',
      alter: `UPDATE core_orders SET book_remaining = book_remaining + 1 WHERE account_id = $1 AND status = 'open'
              RETURNING 'id=' || id AS key, book_remaining::text AS found`,
      params: () => [ids.carol],
    },
    {
      table: 'core_ledger_entries',
      column: 'row',
      alter: `DELETE FROM core_ledger_entries WHERE account_id = $1 AND type = 'withdrawal' RETURNING 'id=' || id AS key, 'absent' AS found`,
      params: () => [ids.alice],
    },
  ]) {
    it(`fails naming the row when ${table} is altered by hand (${column}), and exits 1 on the command line`, async () => {
      await caughtUp();
      const pool = service.ctx.pool;
      try {
        const altered = await pool.query<{ key: string; found: string }>(alter, params());
        expect(altered.rowCount).to.equal(1);
        const { key, found } = altered.rows[0]!;

        const report = await auditExchange(service.ctx.store, pool);
        expect(report.ok).to.equal(false);
        const first = report.differences[0]!;
        expect(first).to.include({ table, key, column, found });
        expect(first.expected).to.not.equal(found);

        const failed = await cli();
        expect(failed.code).to.equal(1);
        expect(failed.stdout).to.include('AUDIT FAILED');
        expect(failed.stdout).to.include(`${table} ${key}: ${column} expected ${first.expected}, found ${found}`);
        const json = await cli('--json');
        expect(json.code).to.equal(1);
        expect((JSON.parse(json.stdout) as AuditReport).differences[0]).to.deep.equal(first);
        expect(json.stderr).to.include(`${table} ${key}: ${column}`);
      } finally {
        // the projector writes the row again from the journal
        await service.service.runner.rebuild('core');
      }
      expect((await audit()).differences).to.deep.equal([]);
    });
  }

  /** The service's journal copied into a test event store, with one more step of `facts` appended. */
  async function journalWith(
    facts: (last: { seq: number; nowUs: number }) => EngineEvent[],
  ): Promise<MemoryEventStore> {
    await caughtUp();
    const copy = new MemoryEventStore();
    let last = { seq: 0, nowUs: 0 };
    for (let after = -1n; ;) {
      const page = await service.ctx.store.readAll({ after, maxCount: 500 });
      if (page.length === 0) break;
      for (const record of page) {
        await copy.append(
          record.stream,
          [{ id: record.id, type: record.type, data: record.data, metadata: record.metadata }],
          'any',
        );
        if (record.stream === ENGINE_STREAM)
          for (const step of journalStepsOf(record)) last = { seq: step.seq, nowUs: step.now_us };
      }
      after = page[page.length - 1]!.position;
    }
    const step = encodeStep(last.seq + 1, last.nowUs + 1, { kind: 'Tick' }, facts(last), newRecordContext());
    await copy.append(
      ENGINE_STREAM,
      [{ id: randomUUID(), type: ENGINE_STEPS_TYPE, data: engineStepsData([step]) }],
      'any',
    );
    return copy;
  }

  const transfer = (fields: Partial<Extract<EngineEvent, { type: 'Transferred' }>>): EngineEvent => ({
    type: 'Transferred',
    id: randomUUID(),
    kind: 'settlement',
    from: 'outside',
    to: 'outside',
    amount: '1.00',
    market_id: null,
    fill_id: null,
    settlement_id: null,
    method: null,
    reason: null,
    sub_method: null,
    ...fields,
  });

  it("fails naming the pool when an appended fact leaves a settled market's pool non-zero", async () => {
    const intact = await auditExchange(await journalWith(() => []), null);
    expect(intact.differences).to.deep.equal([]);
    expect(intact.read_models).to.equal(null);

    const store = await journalWith(() => [
      transfer({ kind: 'settlement', from: `pool:${ids.win}`, to: `cash:${ids.alice}`, market_id: ids.win }),
    ]);
    const report = await auditExchange(store, null);
    expect(report.ok).to.equal(false);
    const first = report.differences[0]!;
    expect(first).to.include({ table: 'ledger', column: 'balance', expected: '0.00', found: '-1.00' });
    expect(first.key).to.match(new RegExp(`^pool:${ids.win} \\(settled market, after position \\d+ seq \\d+\\)$`));
  });

  it('fails naming the fact when a transfer moves money between accounts its kind does not', async () => {
    const report = await auditExchange(
      await journalWith(() => [
        transfer({ kind: 'fee', from: `cash:${ids.bob}`, to: `pool:${ids.open}`, market_id: ids.open }),
      ]),
      null,
    );
    const first = report.differences[0]!;
    expect(first).to.include({
      table: 'journal',
      column: 'from -> to',
      expected: 'cash:<member> -> fees',
      found: `cash:${ids.bob} -> pool:${ids.open}`,
    });
    expect(first.key).to.match(/^position \d+ seq \d+ Transferred /);
  });

  it('fails naming the fact the fold cannot place, and folds nothing after it', async () => {
    const stranger = randomUUID();
    const report = await auditExchange(
      await journalWith(() => [transfer({ kind: 'deposit', from: 'outside', to: `cash:${stranger}` })]),
      null,
    );
    const first = report.differences[0]!;
    expect(first).to.include({ table: 'journal', column: 'fold' });
    expect(first.found).to.include(`account ${stranger} named before it was opened`);
    expect(report.differences).to.have.length(1);
  });
});
