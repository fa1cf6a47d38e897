// Account-scoped read models: accounts and balances, fills (GET /fills filters), positions
// (GET /positions, open only, largest first), ledger entries (/portfolio/* subsets), and a
// whole-journal replay that leaves every core table exactly as one pass did. The history is
// run through the engine; the read models are folded from its facts.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { getAccount, getBalance } from '../../../projections/core/queries/accounts.ts';
import { accountsByEmailQuery } from '../../../projections/core/queries/accountsByEmail.ts';
import { listFills } from '../../../projections/core/queries/fills.ts';
import { listAdjustments, listFees, listLoyalty, listWithdrawals } from '../../../projections/core/queries/ledger.ts';
import { listMarketTrades } from '../../../projections/core/queries/trades.ts';
import { listPositions } from '../../../projections/core/queries/positions.ts';
import { cancel, deposit, expectReplayedAlike, listMarket, openAccount, place, useTwoMemberDesk } from './fixtures.ts';

describe('core read models: accounts, balances, fills, positions, ledger', () => {
  const core = useTwoMemberDesk({ markets: [{}, {}, {}], alice: { first_name: 'Alice' } });
  const { desk, records, alice, bob, event, run } = core;
  const [m1, m2, m3] = core.markets;

  it('reads accounts by id, with status changes applied', async () => {
    expect((await getAccount(core.p.db.pool, alice.account_id))?.first_name).to.equal('Alice');
    await run({ kind: 'UpdateAccount', account_id: alice.account_id, fields: { status: 'suspended' } });
    expect((await getAccount(core.p.db.pool, alice.account_id))?.status).to.equal('suspended');
    expect(await getAccount(core.p.db.pool, 'nobody')).to.equal(null);
    await run({ kind: 'UpdateAccount', account_id: alice.account_id, fields: { status: 'active' } });
    expect((await getAccount(core.p.db.pool, alice.account_id))?.status).to.equal('active');
  });

  it('finds accounts by email whatever its case (login and sign-up), through an index', async () => {
    const carol = openAccount({ first_name: 'Carol', email: 'Carol.Q@Example.com' });
    await run(carol.input);
    const byEmail = accountsByEmailQuery(core.p.db.pool);
    expect(await byEmail('carol.q@example.COM')).to.deep.equal([carol.account_id]);
    expect(await byEmail('nobody@example.com')).to.deep.equal([]);
    // the planner may scan a table this small: forbid that, and the lookup must still use an index
    const client = await core.p.db.pool.connect();
    try {
      await client.query('BEGIN; SET LOCAL enable_seqscan TO off');
      const plan = await client.query(
        `EXPLAIN SELECT account_id FROM core_accounts WHERE lower(doc->>'email') = lower($1)`,
        ['carol.q@example.com'],
      );
      expect(plan.rows.map((row) => row['QUERY PLAN']).join('\n')).to.include('core_accounts_email');
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  });

  it('renders the balance object without internal fields: cash, reservations and what is left', async () => {
    const bid = place(alice.account_id, m1.market_id, 'buy', '0.40', '10');
    await run(bid.input);
    const wire = (await getBalance(core.p.db.pool, alice.account_id)) as unknown as Record<string, unknown>;
    expect(wire).to.include({
      account_id: alice.account_id,
      user_id: alice.user_id,
      account_balance: '1000.00',
      available_balance: '995.96',
      buy_order_liability: '4.04',
      total_deposits: '1000.00',
      loyalty_tier: 'rookie',
    });
    expect(wire).to.not.have.property('seq');
    expect(await getBalance(core.p.db.pool, 'nobody')).to.equal(null);
    await run(cancel(alice.account_id, bid.id));
    expect(await getBalance(core.p.db.pool, alice.account_id)).to.include({
      available_balance: '1000.00',
      buy_order_liability: '0.00',
    });
  });

  it("lists fills most recent first, filtered by market ids, order ids (another account's match nothing) and one status", async () => {
    const bobSell = place(bob.account_id, m1.market_id, 'sell', '0.40', '3');
    const aliceBuy = place(alice.account_id, m1.market_id, 'buy', '0.40', '3');
    await run([bobSell.input, aliceBuy.input]);
    const [t1] = desk.trades;
    const aliceBuy2 = place(alice.account_id, m2.market_id, 'buy', '0.45', '2');
    await run([place(bob.account_id, m2.market_id, 'sell', '0.45', '2').input, aliceBuy2.input]);
    const [t2] = desk.trades;
    // alice sells the three back: that fill only closes, and closes the first one whole
    await run([
      place(bob.account_id, m1.market_id, 'buy', '0.40', '3').input,
      place(alice.account_id, m1.market_id, 'sell', '0.40', '3').input,
    ]);
    const [t3] = desk.trades;

    const all = await listFills(core.p.db.pool, alice.account_id, {});
    expect(all.fills.map((f) => f.trade_id)).to.deep.equal([t3!.taker_fill_id, t2!.taker_fill_id, t1!.taker_fill_id]);
    expect(all.fills.every((f) => f.account_id === alice.account_id && f.liquidity_action === 'taker')).to.equal(true);
    expect(all.fills[2]).to.include({ status: 'settled', price: '0.40', filled: '3', closed_contracts: '3' });
    expect(all.fills[0]).to.include({ status: 'settled', closing: '3' });
    expect(all.fills[0]).to.not.have.property('seq');

    expect(
      (await listFills(core.p.db.pool, alice.account_id, { marketIds: [m2.market_id] })).fills.map((f) => f.trade_id),
    ).to.deep.equal([t2!.taker_fill_id]);
    expect(
      (await listFills(core.p.db.pool, alice.account_id, { orderIds: [aliceBuy.id] })).fills.map((f) => f.trade_id),
    ).to.deep.equal([t1!.taker_fill_id]);
    expect((await listFills(core.p.db.pool, alice.account_id, { orderIds: [bobSell.id] })).fills).to.deep.equal([]);
    expect(
      (await listFills(core.p.db.pool, alice.account_id, { status: 'settled' })).fills.map((f) => f.trade_id),
    ).to.deep.equal([t3!.taker_fill_id, t1!.taker_fill_id]);
    expect(
      (await listFills(core.p.db.pool, alice.account_id, { status: 'open', orderIds: [aliceBuy.id] })).fills,
    ).to.deep.equal([]);
    expect((await listFills(core.p.db.pool, bob.account_id, {})).fills.map((f) => f.liquidity_action)).to.deep.equal([
      'provider',
      'provider',
      'provider',
    ]);

    // paging
    const first = await listFills(core.p.db.pool, alice.account_id, {}, { limit: 2 });
    const second = await listFills(core.p.db.pool, alice.account_id, {}, { limit: 2, cursor: first.cursor });
    expect([...first.fills, ...second.fills].map((f) => f.trade_id)).to.deep.equal([
      t3!.taker_fill_id,
      t2!.taker_fill_id,
      t1!.taker_fill_id,
    ]);
    expect(second.cursor).to.equal(null);
  });

  it("keeps an amended fill's original fields and corrects the tape", async () => {
    const buy = place(alice.account_id, m3.market_id, 'buy', '0.50', '4');
    await run([place(bob.account_id, m3.market_id, 'sell', '0.50', '4').input, buy.input]);
    const [t] = desk.trades;
    await run({ kind: 'AmendFill', trade_id: t!.taker_fill_id, price: '0.48' });
    const [amended] = (await listFills(core.p.db.pool, alice.account_id, { orderIds: [buy.id] })).fills;
    expect(amended).to.include({ price: '0.48', original_price: '0.50', amended: true });
    const tape = await listMarketTrades(core.p.db.pool, m3.market_id);
    expect(tape.trades.map((x) => [x.trade_id, x.price, x.quantity])).to.deep.equal([[t!.trade_id, '0.48', '4']]);
  });

  it('lists open positions only, largest first by contracts held', async () => {
    // alice: flat in m1 (bought and sold three), long 2 in m2, long 4 in m3; now short 7 in m1
    await run([
      place(bob.account_id, m1.market_id, 'buy', '0.30', '7').input,
      place(alice.account_id, m1.market_id, 'sell', '0.30', '7').input,
    ]);
    const { positions, cursor } = await listPositions(core.p.db.pool, alice.account_id);
    expect(positions.map((x) => [x.market_id, x.position])).to.deep.equal([
      [m1.market_id, '-7'],
      [m3.market_id, '4'],
      [m2.market_id, '2'],
    ]);
    expect(cursor).to.equal(null);
    expect(positions[0]).to.not.have.property('seq');
    expect(positions[0]).to.include({ side: 'short', contracts: '7', premium: '2.10', risk: '4.90', to_win: '2.10' });
    const page1 = await listPositions(core.p.db.pool, alice.account_id, { limit: 2 });
    const page2 = await listPositions(core.p.db.pool, alice.account_id, { limit: 2, cursor: page1.cursor });
    expect([...page1.positions, ...page2.positions].map((x) => x.market_id)).to.deep.equal([
      m1.market_id,
      m3.market_id,
      m2.market_id,
    ]);
  });

  it('splits ledger entries into the portfolio lists, each most recent first with its own fields', async () => {
    const carol = openAccount({ base_fee_percent: 2 });
    const dave = openAccount({ base_fee_percent: 0 });
    const m4 = listMarket(event.event_id, { points_cost: 1 });
    const withdrawalId = randomUUID();
    await run([carol.input, dave.input, m4.input, deposit(carol.account_id, '100'), deposit(dave.account_id, '100')]);
    await run({
      kind: 'Withdraw',
      account_id: carol.account_id,
      entry_id: withdrawalId,
      amount: '10',
      method: 'interac',
      reason: 'payout',
      sub_method: 'Send',
    });
    await run({
      kind: 'Adjust',
      account_id: carol.account_id,
      entry_id: randomUUID(),
      amount: '5',
      reason: 'goodwill',
    });
    await run([
      place(dave.account_id, m4.market_id, 'sell', '0.40', '10').input,
      place(carol.account_id, m4.market_id, 'buy', '0.40', '10').input,
    ]);
    const [trade] = desk.trades;
    await run({ kind: 'AmendFill', trade_id: trade!.taker_fill_id, price: '0.30' });
    await run({ kind: 'ResultMarket', market_id: m4.market_id, result: 'lose' });

    const fees = await listFees(core.p.db.pool, carol.account_id);
    expect(fees.fees.map((e) => [e.type, e.amount])).to.deep.equal([
      ['fee_refund', '0.02'],
      ['fee', '-0.08'],
    ]);
    expect(fees.fees[1]).to.include({ market_id: m4.market_id, event_id: event.event_id, fee_id: fees.fees[1]!.id });
    // fee entries add no field to the common ones
    for (const entry of fees.fees) expect(entry).to.not.have.any.keys('method', 'fee_source', 'trade_id', 'seq');
    // a fill without a fee still has its fee entry
    expect((await listFees(core.p.db.pool, dave.account_id)).fees.map((e) => e.amount)).to.deep.equal(['0.00']);

    const withdrawals = await listWithdrawals(core.p.db.pool, carol.account_id);
    expect(withdrawals.withdrawals).to.have.length(1);
    expect(withdrawals.withdrawals[0]).to.include({
      id: withdrawalId,
      method: 'interac',
      reason: 'payout',
      sub_method: 'Send',
      payment_id: withdrawalId,
      amount: '10.00',
    });

    const adjustments = await listAdjustments(core.p.db.pool, carol.account_id);
    expect(adjustments.adjustments.map((e) => [e.type, e.reason, e.amount])).to.deep.equal([
      ['adjustment', 'goodwill', '5.00'],
    ]);

    const loyalty = await listLoyalty(core.p.db.pool, carol.account_id, { limit: 1 });
    expect(loyalty.loyalty).to.have.length(1);
    expect(loyalty.loyalty[0]).to.include({
      type: 'rollup',
      points: 3,
      amount: '3.00',
      market_id: m4.market_id,
      referee_account_id: null,
    });
    expect(loyalty.loyalty[0]).to.not.have.property('seq');
    expect(loyalty.cursor).to.equal(null);
  });

  it('replaying the whole journal into fresh tables gives the same rows; replaying it again changes nothing', async () => {
    await expectReplayedAlike(records, core.p.db.pool);
  });
});
