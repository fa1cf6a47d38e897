// Account-scoped read models: accounts and balances, fills (GET /fills filters), positions
// (GET /positions, open only, largest first), ledger entries (/portfolio/* subsets), and a
// whole-journal replay that leaves every core table exactly as one pass did.

import { expect } from 'chai';
import { getAccount, getAccountByUserId, getBalance } from '../../../projections/core/queries/accounts.ts';
import { listFills } from '../../../projections/core/queries/fills.ts';
import { listAdjustments, listFees, listLoyalty, listWithdrawals } from '../../../projections/core/queries/ledger.ts';
import { listMarketTrades } from '../../../projections/core/queries/trades.ts';
import { listPositions } from '../../../projections/core/queries/positions.ts';
import { CORE_TABLES } from '../../../projections/core/schema.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import {
  account, balance, dumpTables, fill, Journal, ledgerEntry, market, order, position, projectedDatabase, sportEvent, trade, type ProjectedDb,
} from './fixtures.ts';

describe('core read models: accounts, balances, fills, positions, ledger', () => {
  let p: ProjectedDb;
  const journal = new Journal();
  const records: RecordedEvent[] = [];
  const alice = account({ first_name: 'Alice' });
  const bob = account();
  const event = sportEvent();
  const m1 = market(event);
  const m2 = market(event);
  const m3 = market(event);
  const feed = async (...steps: RecordedEvent[]) => { records.push(...steps); return p.project(...steps); };

  before(async () => {
    p = await projectedDatabase();
    await feed(
      journal.step([{ type: 'AccountOpened', account: alice, balance: balance(alice) }, { type: 'AccountOpened', account: bob, balance: balance(bob) }]),
      journal.step([{ type: 'SportEventScheduled', event }, ...[m1, m2, m3].map((m) => ({ type: 'MarketListed' as const, market: m }))]),
    );
  });
  after(async () => p.db.drop());

  it('reads accounts by id and by user id, with status changes applied', async () => {
    expect((await getAccount(p.db.pool, alice.account_id))?.first_name).to.equal('Alice');
    await feed(journal.step([{ type: 'AccountUpdated', account: { ...alice, status: 'suspended' }, balance: balance(alice) }]));
    expect((await getAccountByUserId(p.db.pool, alice.user_id))?.status).to.equal('suspended');
    expect(await getAccount(p.db.pool, 'nobody')).to.equal(null);
    await feed(journal.step([{ type: 'AccountUpdated', account: alice, balance: balance(alice) }]));
  });

  it('renders the balance object without internal fields, latest snapshot winning', async () => {
    await feed(
      journal.step([{ type: 'BalanceChanged', balance: balance(alice, { account_balance: '100', available_balance: '100', total_deposits: '100' }) }]),
      journal.step([{ type: 'BalanceChanged', balance: balance(alice, { account_balance: '100', available_balance: '96', buy_order_liability: '4', total_deposits: '100' }) }]),
    );
    const wire = await getBalance(p.db.pool, alice.account_id) as unknown as Record<string, unknown>;
    expect(wire).to.include({ account_id: alice.account_id, user_id: alice.user_id, account_balance: '100', available_balance: '96', buy_order_liability: '4', loyalty_tier: 'rookie' });
    expect(wire).to.not.have.property('seq');
    expect(await getBalance(p.db.pool, 'nobody')).to.equal(null);
  });

  it('lists fills most recent first, filtered by market ids, order ids (another account\'s match nothing) and one status', async () => {
    const aliceBuy = order(alice, m1, { status: 'filled' });
    const bobSell = order(bob, m1, { action: 'sell' });
    const aliceBuy2 = order(alice, m2, { status: 'filled' });
    const bobSell2 = order(bob, m2, { action: 'sell' });
    const t1 = trade(bobSell, aliceBuy, '0.40', '3', journal.nowUs);
    const t2 = trade(bobSell2, aliceBuy2, '0.45', '2', journal.nowUs);
    await feed(journal.step([t1]), journal.step([t2]));
    await feed(journal.step([{ type: 'FillChanged', fill: { ...t1.taker, status: 'settled', settled_at: '2026-01-02T00:00:00.000Z' } }]));

    const all = await listFills(p.db.pool, alice.account_id, {});
    expect(all.fills.map((f) => f.trade_id)).to.deep.equal([t2.taker.trade_id, t1.taker.trade_id]);
    expect(all.fills.every((f) => f.account_id === alice.account_id && f.liquidity_action === 'taker')).to.equal(true);
    expect(all.fills[1]).to.include({ status: 'settled', price: '0.40', filled: '3' });
    expect(all.fills[0]).to.not.have.property('seq');

    expect((await listFills(p.db.pool, alice.account_id, { marketIds: [m2.market_id] })).fills.map((f) => f.trade_id)).to.deep.equal([t2.taker.trade_id]);
    expect((await listFills(p.db.pool, alice.account_id, { orderIds: [aliceBuy.id] })).fills.map((f) => f.trade_id)).to.deep.equal([t1.taker.trade_id]);
    expect((await listFills(p.db.pool, alice.account_id, { orderIds: [bobSell.id] })).fills).to.deep.equal([]);
    expect((await listFills(p.db.pool, alice.account_id, { status: 'settled' })).fills.map((f) => f.trade_id)).to.deep.equal([t1.taker.trade_id]);
    expect((await listFills(p.db.pool, alice.account_id, { status: 'open', orderIds: [aliceBuy.id] })).fills).to.deep.equal([]);
    expect((await listFills(p.db.pool, bob.account_id, {})).fills.map((f) => f.liquidity_action)).to.deep.equal(['provider', 'provider']);

    // paging
    const first = await listFills(p.db.pool, alice.account_id, {}, { limit: 1 });
    const second = await listFills(p.db.pool, alice.account_id, {}, { limit: 1, cursor: first.cursor });
    expect([...first.fills, ...second.fills].map((f) => f.trade_id)).to.deep.equal([t2.taker.trade_id, t1.taker.trade_id]);
    expect(second.cursor).to.equal(null);
  });

  it('keeps an amended fill\'s original fields and corrects the tape', async () => {
    const buy = order(alice, m3, { status: 'filled' });
    const sell = order(bob, m3, { action: 'sell' });
    const t = trade(sell, buy, '0.50', '4', journal.nowUs);
    await feed(journal.step([t]));
    await feed(journal.step([{ type: 'FillChanged', fill: { ...t.taker, price: '0.48', amended: true, last_modified_at: journal.nowUs } }]));
    const [amended] = (await listFills(p.db.pool, alice.account_id, { orderIds: [buy.id] })).fills;
    expect(amended).to.include({ price: '0.48', original_price: '0.50', amended: true });
    const tape = await listMarketTrades(p.db.pool, m3.market_id);
    expect(tape.trades.map((x) => [x.trade_id, x.price, x.quantity])).to.deep.equal([[t.trade_id, '0.48', '4']]);
  });

  it('lists open positions only, largest first by contracts held', async () => {
    await feed(journal.step([
      { type: 'PositionChanged', position: position(alice, m1, '3') },
      { type: 'PositionChanged', position: position(alice, m2, '-7') },
      { type: 'PositionChanged', position: position(alice, m3, '5') },
    ]));
    await feed(journal.step([{ type: 'PositionChanged', position: position(alice, m3, '0') }]));
    const { positions, cursor } = await listPositions(p.db.pool, alice.account_id);
    expect(positions.map((x) => [x.market_id, x.position])).to.deep.equal([[m2.market_id, '-7'], [m1.market_id, '3']]);
    expect(cursor).to.equal(null);
    expect(positions[0]).to.not.have.property('seq');
    const page1 = await listPositions(p.db.pool, alice.account_id, { limit: 1 });
    const page2 = await listPositions(p.db.pool, alice.account_id, { limit: 1, cursor: page1.cursor });
    expect([...page1.positions, ...page2.positions].map((x) => x.market_id)).to.deep.equal([m2.market_id, m1.market_id]);
  });

  it('splits ledger entries into the portfolio lists, each most recent first with its own fields', async () => {
    const deposit = ledgerEntry(alice, 'deposit', '100');
    const fee = ledgerEntry(alice, 'fee', '-0.02', { fee_source: 'trade', market_id: m1.market_id, fee_id: 'f1' });
    const zeroFee = ledgerEntry(alice, 'fee', '0', { fee_source: 'settlement' });
    const refund = ledgerEntry(alice, 'fee_refund', '0.02', { fee_source: 'trade' });
    const withdrawal = ledgerEntry(alice, 'withdrawal', '-10', { method: 'interac', reason: 'payout', sub_method: 'Send', payment_id: 'p1' });
    const adjustment = ledgerEntry(alice, 'adjustment', '5', { reason: 'goodwill' });
    const rollup = ledgerEntry(alice, 'rollup', '0', { points: 40 });
    const referral = ledgerEntry(alice, 'referral', '0', { points: 100, referee_account_id: bob.account_id, referrer_account_id: alice.account_id });
    const bobsFee = ledgerEntry(bob, 'fee', '-0.01');
    await feed(journal.step([deposit, fee, zeroFee, bobsFee].map((entry) => ({ type: 'LedgerEntryRecorded' as const, entry }))));
    await feed(journal.step([refund, withdrawal, adjustment, rollup, referral].map((entry) => ({ type: 'LedgerEntryRecorded' as const, entry }))));

    const fees = await listFees(p.db.pool, alice.account_id);
    expect(fees.fees.map((e) => e.id)).to.deep.equal([refund.id, zeroFee.id, fee.id]);
    expect(fees.fees.map((e) => e.amount)).to.deep.equal(['0.02', '0', '-0.02']);
    expect(fees.fees[2]).to.include({ type: 'fee', fee_id: 'f1', market_id: m1.market_id });
    // SPEC: fee entries add no field to the common ones
    for (const entry of fees.fees) expect(entry).to.not.have.any.keys('method', 'fee_source', 'trade_id', 'seq');

    const withdrawals = await listWithdrawals(p.db.pool, alice.account_id);
    expect(withdrawals.withdrawals).to.have.length(1);
    expect(withdrawals.withdrawals[0]).to.include({ method: 'interac', reason: 'payout', sub_method: 'Send', payment_id: 'p1', amount: '10' });

    const adjustments = await listAdjustments(p.db.pool, alice.account_id);
    expect(adjustments.adjustments.map((e) => [e.type, e.reason])).to.deep.equal([['adjustment', 'goodwill']]);

    const loyalty = await listLoyalty(p.db.pool, alice.account_id, { limit: 1 });
    expect(loyalty.loyalty.map((e) => e.id)).to.deep.equal([referral.id]);
    expect(loyalty.loyalty[0]).to.include({ referee_account_id: bob.account_id, referrer_account_id: alice.account_id, points: 100 });
    const loyalty2 = await listLoyalty(p.db.pool, alice.account_id, { limit: 1, cursor: loyalty.cursor });
    expect(loyalty2.loyalty.map((e) => e.id)).to.deep.equal([rollup.id]);
    expect(loyalty2.loyalty[0]).to.not.have.property('seq');
  });

  it('replaying the whole journal into fresh tables gives the same rows; replaying it again changes nothing', async () => {
    const live = await dumpTables(p.db.pool, CORE_TABLES);
    const fresh = await projectedDatabase();
    try {
      await fresh.project(...records);
      expect(await dumpTables(fresh.db.pool, CORE_TABLES)).to.deep.equal(live);
      await fresh.project(...records);
      expect(await dumpTables(fresh.db.pool, CORE_TABLES)).to.deep.equal(live);
    } finally {
      await fresh.db.drop();
    }
  });
});
