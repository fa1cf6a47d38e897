// Private channels `orders`, `fills`, `positions`, `settlements`, `balances` and `account` (all
// five on one topic), each suffixed with the socket's own member's user id. Another user id, an
// anonymous socket or an application token is `unauthorized`; an OAuth token without the
// channel's scopes is `insufficient_scope`. The join reply is the snapshot, read with the query
// functions the REST routes use; then every change arrives as `update` with one key naming the
// object, exactly as REST renders it (a balance update: account_id, user_id and the changed
// fields only).

import type { OrderStatus } from '../../domain/views.ts';
import { getBalance } from '../../projections/core/queries/accounts.ts';
import type { Queryable } from '../../projections/core/queries/db.ts';
import { listFills } from '../../projections/core/queries/fills.ts';
import { listLedgerEntries } from '../../projections/core/queries/ledger.ts';
import { listOrders } from '../../projections/core/queries/orders.ts';
import { listPositions } from '../../projections/core/queries/positions.ts';
import type { Feed, PrivateChannelName } from '../feed.ts';
import { memberHasScope, type MemberIdentity } from '../identity.ts';
import { refuse, type Channel, type JoinContext, type JoinOutcome } from './channel.ts';

/** The live order statuses (docs/ENGINE.md "Statuses and transitions"): what the `orders` snapshot lists. */
const LIVE_ORDER_STATUSES: readonly OrderStatus[] = ['created', 'requested', 'accepted', 'delayed', 'open'];
/** Live orders in one snapshot (the engine's default cap of live orders per account). */
const ORDERS_IN_SNAPSHOT_MAX = 10_000;
/** Rows per snapshot query page (the REST page limit). */
const SNAPSHOT_PAGE_ROWS = 200;
/** Latest fills and settlements in a snapshot. */
const FILLS_IN_SNAPSHOT = 100;
const SETTLEMENTS_IN_SNAPSHOT = 100;
/** Positions in a snapshot: the default page of GET /api/v1/positions, so the bodies are equal. */
const POSITIONS_IN_SNAPSHOT = 100;

const CHANNEL_SCOPES: Record<PrivateChannelName, readonly string[]> = {
  orders: ['orders.read'],
  fills: ['portfolio.read'],
  positions: ['portfolio.read'],
  settlements: ['portfolio.read'],
  balances: ['balance.read'],
  account: ['orders.read', 'portfolio.read', 'balance.read'],
};

/** The member a private join is for, or the refusal. */
export function memberFor(ctx: JoinContext, scopes: readonly string[]): MemberIdentity | JoinOutcome {
  const identity = ctx.identity;
  if (identity.kind !== 'member' || ctx.suffix !== identity.user_id) return refuse('unauthorized');
  const missing = scopes.filter((scope) => !memberHasScope(identity, scope));
  if (missing.length > 0) return refuse('insufficient_scope', { scope: missing.join(' ') });
  return identity;
}

/** A join that stopped being current reads no further (its answer would be dropped). */
class Abandoned extends Error {}

async function liveOrders(db: Queryable, accountId: string, current: () => boolean): Promise<unknown[]> {
  const orders: unknown[] = [];
  let cursor: string | null = null;
  do {
    if (!current()) throw new Abandoned();
    const page = await listOrders(
      db,
      accountId,
      { statuses: LIVE_ORDER_STATUSES },
      { limit: SNAPSHOT_PAGE_ROWS, cursor },
    );
    orders.push(...page.orders);
    cursor = page.cursor;
  } while (cursor !== null && orders.length < ORDERS_IN_SNAPSHOT_MAX);
  return orders.slice(0, ORDERS_IN_SNAPSHOT_MAX);
}

const readers = {
  orders: async (db: Queryable, accountId: string, current: () => boolean) => ({
    orders: await liveOrders(db, accountId, current),
  }),
  fills: async (db: Queryable, accountId: string) => ({
    fills: (await listFills(db, accountId, {}, { limit: FILLS_IN_SNAPSHOT })).fills,
  }),
  positions: async (db: Queryable, accountId: string) => ({
    ...(await listPositions(db, accountId, { limit: POSITIONS_IN_SNAPSHOT })),
  }),
  settlements: async (db: Queryable, accountId: string) => ({
    settlements: (await listLedgerEntries(db, accountId, ['settlement'], { limit: SETTLEMENTS_IN_SNAPSHOT })).entries,
  }),
  balances: async (db: Queryable, accountId: string) => ({ balance: await getBalance(db, accountId) }),
};

async function snapshotOf(
  name: PrivateChannelName,
  db: Queryable,
  accountId: string,
  current: () => boolean,
): Promise<Record<string, unknown>> {
  if (!current()) throw new Abandoned();
  if (name !== 'account') return readers[name](db, accountId, current);
  const [orders, fills, positions, settlements, balance] = await Promise.all([
    readers.orders(db, accountId, current),
    readers.fills(db, accountId),
    readers.positions(db, accountId),
    readers.settlements(db, accountId),
    readers.balances(db, accountId),
  ]);
  return { ...orders, ...fills, positions: positions.positions, ...settlements, ...balance };
}

export type ReadYourWrites = (accountId: string) => Promise<void>;

function privateChannel(name: PrivateChannelName, feed: Feed, db: Queryable, readYourWrites: ReadYourWrites): Channel {
  const carriesBalance = name === 'balances' || name === 'account';
  return {
    name,
    suffixed: true,
    async join(ctx) {
      const member = memberFor(ctx, CHANNEL_SCOPES[name]);
      if ('ok' in member) return member;
      // what the member just did through REST is in the snapshot; holding starts once the read
      // models are there (fewer updates the snapshot already shows)
      await readYourWrites(member.account_id);
      ctx.hold([ctx.topic]);
      if (carriesBalance) feed.balances.retain(member.account_id);
      let snapshot: Record<string, unknown>;
      try {
        snapshot = await snapshotOf(name, db, member.account_id, ctx.current);
      } catch (error) {
        if (carriesBalance) feed.balances.release(member.account_id);
        if (error instanceof Abandoned) return refuse('abandoned');
        throw error;
      }
      if (carriesBalance) feed.balances.seed(member.account_id, snapshot.balance as Record<string, unknown> | null);
      return {
        ok: true,
        topics: [ctx.topic],
        response: () => snapshot,
        session: carriesBalance ? { leave: () => feed.balances.release(member.account_id) } : undefined,
      };
    },
  };
}

export function privateChannels(feed: Feed, db: Queryable, readYourWrites: ReadYourWrites): Channel[] {
  return (['orders', 'fills', 'positions', 'settlements', 'balances', 'account'] as const).map((name) =>
    privateChannel(name, feed, db, readYourWrites),
  );
}
