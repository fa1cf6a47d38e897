// The member read models over PostgreSQL: market stats (kept by the core projector beside the
// orders, fills and positions they are computed from) and profiles from journal records (the
// ledger lists the member routes answer come from the core read model, checked here too), and a
// rebuild from zero in one pass that finds the read models identical to the live ones.

import { expect } from 'chai';
import { memberProfilesProjector } from '../../../projections/member/profiles/projector.ts';
import { marketStats, settlementFacts, volumeFacts } from '../../../projections/member/queries.ts';
import { coreProjector } from '../../../projections/core/projector.ts';
import { ORDER_ROW_COLUMNS, orderViewOfRow } from '../../../projections/core/orderRows.ts';
import { listFees, listLoyalty } from '../../../projections/core/queries/ledger.ts';
import { testDatabase, type TestDatabase } from '../../support/pg.ts';
import { ALICE, ARCHIVED_AT, BOB, EVENT, MARKET, MARKET2, T0, dump, marketLife, project } from './fixtures.ts';
import type { RecordedEvent } from '../../../eventstore/port.ts';
import { computeMarketStats } from '../../../projections/member/marketStats/compute.ts';
import { feeRates } from '../../../domain/engine/fees.ts';

describe('member projectors', () => {
  let db: TestDatabase;
  const records = marketLife().records;
  const profileRecords: RecordedEvent[] = [
    {
      id: 'p1',
      stream: `profile-${ALICE}`,
      type: 'HandleChanged',
      revision: 0n,
      position: 100n,
      data: { account_id: ALICE, handle: 'alice', previous_handle: null, generated: false, at_us: T0 + 10 },
      metadata: {},
      recordedAt: new Date(0),
    },
    {
      id: 'p2',
      stream: `profile-${ALICE}`,
      type: 'AvatarChanged',
      revision: 1n,
      position: 101n,
      data: {
        account_id: ALICE,
        avatar: { style: 'grid', palette: 'gold', seed: 'x' },
        generated: false,
        at_us: T0 + 10,
      },
      metadata: {},
      recordedAt: new Date(0),
    },
    {
      id: 'p3',
      stream: `profile-${BOB}`,
      type: 'LeaderboardOptInChanged',
      revision: 0n,
      position: 102n,
      data: { account_id: BOB, opt_in: true, at_us: T0 + 11 },
      metadata: {},
      recordedAt: new Date(0),
    },
  ];

  before(async () => {
    db = await testDatabase();
    // live: one record per batch; the public schema is what the queries read
    await project(db.pool, 'public', memberProfilesProjector, [...records, ...profileRecords], 1);
    await project(db.pool, 'public', coreProjector(), records, 1);
  });
  after(async () => db?.drop());

  it('rebuilding the core and member projectors from zero in one pass gives identical read models', async () => {
    for (const projector of [coreProjector(), memberProfilesProjector]) {
      const all = projector === memberProfilesProjector ? [...records, ...profileRecords] : records;
      await project(db.pool, `rebuild_${projector.name}`, projector, all, 1000);
      expect(await dump(db.pool, `rebuild_${projector.name}`, projector)).to.deep.equal(
        await dump(db.pool, 'public', projector),
      );
    }
  });

  it('replaying records already seen changes nothing', async () => {
    const core = coreProjector();
    const before = await dump(db.pool, 'public', core);
    await project(db.pool, 'public', core, records.slice(2), 3);
    expect(await dump(db.pool, 'public', core)).to.deep.equal(before);
  });

  it('the incrementally kept rows equal a computation from scratch over the stored orders, fills, fee entries and position', async () => {
    const stats = await db.pool.query(
      'SELECT account_id, market_id, last_settled_at::text, doc FROM core_market_stats',
    );
    expect(stats.rows).to.have.length(4);
    for (const row of stats.rows) {
      const values = [row.account_id, row.market_id];
      const orders = (
        await db.pool.query(
          `SELECT ${ORDER_ROW_COLUMNS} FROM core_orders o WHERE o.account_id = $1 AND o.market_id = $2`,
          values,
        )
      ).rows.map(orderViewOfRow);
      const fills = (
        await db.pool.query('SELECT doc FROM core_fills WHERE account_id = $1 AND market_id = $2', values)
      ).rows.map((r) => r.doc);
      const feeEntries = (
        await db.pool.query(
          "SELECT doc FROM core_ledger_entries WHERE account_id = $1 AND doc->>'market_id' = $2 AND type IN ('fee', 'fee_refund')",
          values,
        )
      ).rows.map((r) => r.doc);
      const position =
        (await db.pool.query('SELECT doc FROM core_positions WHERE account_id = $1 AND market_id = $2', values)).rows[0]
          ?.doc ?? null;
      const balance = (await db.pool.query('SELECT doc FROM core_balances WHERE account_id = $1', [row.account_id]))
        .rows[0]?.doc;
      expect(
        orders.length + fills.length + feeEntries.length,
        `${row.market_id} has what its stats sum`,
      ).to.be.greaterThan(0);
      const { last_settled_at, ...expected } = computeMarketStats({
        orders,
        fills,
        feeEntries,
        position,
        maxPrice: '1.00',
        orderFeeRate: feeRates(balance).max.toString(),
      });
      expect(row.doc).to.deep.equal(expected);
      expect(row.last_settled_at === null ? null : Number(row.last_settled_at)).to.equal(last_settled_at);
    }
  });

  it('market stats rows carry the account result per market', async () => {
    const rows = await marketStats(db.pool, ALICE, {}, 10, null);
    expect(rows.map((r) => r.market_id)).to.deep.equal([MARKET2, MARKET]);
    const settled = rows.find((r) => r.market_id === MARKET)!;
    expect(settled.doc.trade_count).to.equal(1);
    expect(settled.doc.contracts_settled).to.equal('5');
    expect(settled.doc.total_fees).to.equal('0.02');
    expect(settled.doc.total_net_pnl).to.equal('2.98');
    expect(settled.sport).to.equal('Ice Hockey');
    expect(settled.market_status).to.equal('resulted');
    expect(settled).to.include({ status: 'resulted', title: 'Market f1', archived_at: null });
    const other = rows.find((r) => r.market_id === MARKET2)!;
    // archived by the operator: out of the live index
    expect(other).to.include({ archived_at: String(ARCHIVED_AT), status: null, title: null, event_start_time: null });
    expect(other.doc.cancelled_orders).to.equal(1);
    expect(other.doc.rejected_buy_orders).to.equal(1);
    expect(other.doc.settlements).to.equal(0);
  });

  it('filters market stats by ids, settlements, settlement time, sport and competition', async () => {
    const ids = async (filter: Parameters<typeof marketStats>[2]) =>
      (await marketStats(db.pool, ALICE, filter, 10, null)).map((r) => r.market_id);
    expect(await ids({ market_ids: [MARKET2] })).to.deep.equal([MARKET2]);
    expect(await ids({ event_ids: [EVENT] })).to.have.length(2);
    expect(await ids({ exclude_zero_settlements: true })).to.deep.equal([MARKET]);
    const settledAt = T0 + 7_200_000_000;
    expect(await ids({ from_time: settledAt, to_time: settledAt })).to.deep.equal([MARKET]);
    expect(await ids({ from_time: settledAt + 1 })).to.deep.equal([]);
    expect(await ids({ sports: ['ice hockey'] })).to.have.length(2);
    expect(await ids({ sports: ['ice_hockey'] })).to.have.length(2);
    expect(await ids({ competitions: ['nhl'] })).to.have.length(2);
    expect(await ids({ competitions: ['nba'] })).to.deep.equal([]);
  });

  it('the ledger lists come from the core read model', async () => {
    const fees = await listFees(db.pool, ALICE, { limit: 10 });
    expect(fees.fees.map((e) => [e.type, e.amount])).to.deep.equal([
      ['fee_refund', '0.02'],
      ['fee', '-0.05'],
      ['fee', '-0.02'],
    ]);
    const loyalty = await listLoyalty(db.pool, ALICE, { limit: 1 });
    expect(loyalty.loyalty.map((e) => [e.type, e.points, e.amount])).to.deep.equal([['rollup', 4, '2.00']]);
    expect(loyalty.cursor).to.equal(null);
    expect((await listFees(db.pool, BOB, { limit: 10 })).fees.map((e) => e.amount)).to.deep.equal(['0.00', '0.00']);
  });

  it('feeds the leaderboard facts: notional volume and resulted markets', async () => {
    const volumes = await volumeFacts(db.pool, null, T0 + 10_000_000_000);
    expect(volumes.find((v) => v.account_id === ALICE)).to.deep.include({ sport: 'ice_hockey' });
    expect(Number(volumes.find((v) => v.account_id === ALICE)!.volume)).to.equal(15);
    const settlements = await settlementFacts(db.pool, null, T0 + 10_000_000_000);
    expect(settlements.map((s) => [s.account_id, s.net_pnl]).sort()).to.deep.equal([
      [ALICE, '2.98'],
      [BOB, '-3'],
    ]);
  });

  it('profiles: the account jurisdiction and creation time, consent defaults by jurisdiction, explicit choices win', async () => {
    const rows = await db.pool.query(
      'SELECT account_id, jurisdiction, created_at, handle, avatar, opt_in, opt_in_effective FROM member_profiles ORDER BY account_id',
    );
    const alice = rows.rows.find((r) => r.account_id === ALICE);
    const bob = rows.rows.find((r) => r.account_id === BOB);
    expect(alice).to.deep.include({
      jurisdiction: 'us',
      created_at: String(T0),
      handle: 'alice',
      opt_in: null,
      opt_in_effective: true,
    });
    expect(alice.avatar).to.deep.equal({ style: 'grid', palette: 'gold', seed: 'x' });
    expect(bob).to.deep.include({ opt_in: true, opt_in_effective: true });
  });
});
