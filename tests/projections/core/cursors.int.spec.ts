// Forged keyset cursors on every core list query: a cursor whose parts have the right shape but
// values PostgreSQL could not take (beyond bigint, beyond the integer or smallint column, a
// fraction, an exponent, a NUL in text) is the 400 `cursor is invalid`, never a query error; a
// cursor of the right kind at the edges of the column's range is an ordinary (empty) page.

import { expect } from 'chai';
import type { PageRequest } from '../../../projections/core/queries/db.ts';
import { listFills } from '../../../projections/core/queries/fills.ts';
import {
  listAdjustments,
  listFees,
  listLedgerEntries,
  listLoyalty,
  listWithdrawals,
} from '../../../projections/core/queries/ledger.ts';
import { listMarkets } from '../../../projections/core/queries/markets.ts';
import { listOrders } from '../../../projections/core/queries/orders.ts';
import { listPositions } from '../../../projections/core/queries/positions.ts';
import { listMarketTrades } from '../../../projections/core/queries/trades.ts';
import { openAccount, projectedDatabase, T0, type ProjectedDb } from './fixtures.ts';

import { InvalidCursor } from '../../../projections/pagination.ts';

const forge = (key: unknown[]) => Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
const BIGINT_MAX = '9223372036854775807';
const BIGINT_MIN = '-9223372036854775808';

async function status(query: () => Promise<unknown>): Promise<number | string> {
  try {
    await query();
    return 200;
  } catch (err) {
    const e = err as { message?: string; code?: string };
    if (err instanceof InvalidCursor) {
      expect(e.message).to.equal('cursor is invalid');
      return 400; // what REST answers for it
    }
    return `error ${e.code ?? ''} ${e.message ?? ''}`;
  }
}

describe('core read models: forged cursors', () => {
  let p: ProjectedDb;
  const alice = openAccount();

  before(async () => {
    p = await projectedDatabase();
  });
  after(async () => p.db.drop());

  /** Lists keyed by (journal position bigint, index in the record integer). */
  const journalOrdered: Array<[string, (page: PageRequest) => Promise<unknown>]> = [
    ['orders', (page) => listOrders(p.db.pool, alice.account_id, {}, page)],
    ['fills', (page) => listFills(p.db.pool, alice.account_id, {}, page)],
    ['fees', (page) => listFees(p.db.pool, alice.account_id, page)],
    ['withdrawals', (page) => listWithdrawals(p.db.pool, alice.account_id, page)],
    ['adjustments', (page) => listAdjustments(p.db.pool, alice.account_id, page)],
    ['loyalty', (page) => listLoyalty(p.db.pool, alice.account_id, page)],
    ['ledger entries', (page) => listLedgerEntries(p.db.pool, alice.account_id, undefined, page)],
    ['market trades', (page) => listMarketTrades(p.db.pool, alice.account_id, page)],
  ];

  it('journal-ordered lists: positions beyond bigint, indexes beyond integer, fractions and exponents are 400', async () => {
    const forged = [
      forge(['9999999999999999999', 1]),
      forge([BIGINT_MIN.replace('8', '9'), 1]),
      forge(['1', 2_147_483_648]),
      forge(['1', '99999999999']),
      forge([1.5, 1]),
      forge([1e300, 1]),
      forge([2 ** 60, 1]),
      forge(['1e3', 1]),
      forge(['1', 'x']),
      forge([null, 1]),
      forge(['1']),
      'not-a-cursor',
    ];
    for (const [name, list] of journalOrdered) {
      for (const cursor of forged) expect(await status(() => list({ cursor })), `${name} ${cursor}`).to.equal(400);
    }
  });

  it('journal-ordered lists: the edges of the column ranges are ordinary pages', async () => {
    const edges = [
      forge([BIGINT_MAX, 2_147_483_647]),
      forge([BIGINT_MIN, -2_147_483_648]),
      forge([Number.MAX_SAFE_INTEGER, 0]),
    ];
    for (const [name, list] of journalOrdered) {
      for (const cursor of edges) expect(await status(() => list({ cursor })), `${name} ${cursor}`).to.equal(200);
    }
  });

  it('markets and positions refuse out-of-range and malformed parts', async () => {
    const markets = (cursor: string, sortBy?: { name: 'event_start'; direction: 'asc' | 'desc' }) =>
      listMarkets(p.db.pool, sortBy ? { sortBy } : {}, { cursor }, T0);
    expect(await status(() => markets(forge([40_000, 1, 'x'])))).to.equal(400); // tier is a smallint
    expect(await status(() => markets(forge([1, '9999999999999999999', 'x'])))).to.equal(400);
    expect(await status(() => markets(forge([1, 1, 'x\u0000'])))).to.equal(400);
    expect(await status(() => markets(forge([32_767, BIGINT_MAX, 'x'])))).to.equal(200);
    expect(
      await status(() => markets(forge(['9999999999999999999', 'x']), { name: 'event_start', direction: 'desc' })),
    ).to.equal(400);
    expect(await status(() => markets(forge([BIGINT_MAX, 'x']), { name: 'event_start', direction: 'desc' }))).to.equal(
      200,
    );

    expect(await status(() => listPositions(p.db.pool, alice.account_id, { cursor: forge(['1e999', 'x']) }))).to.equal(
      400,
    );
    expect(await status(() => listPositions(p.db.pool, alice.account_id, { cursor: forge(['12.5', 'x']) }))).to.equal(
      200,
    );
  });
});
