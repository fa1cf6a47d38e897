// Private channels `orders`, `fills`, `positions`, `settlements`, `balances` and `account` (all
// five on one topic), each suffixed with the socket's own member's user id. Another user id, an
// anonymous socket or an application token is `unauthorized`; an OAuth token without the
// channel's scopes is `insufficient_scope`. The join reply is the snapshot: live orders,
// positions and the balance from the engine's live view (as REST reads them, with the same
// renderers and order), fills and settlements with the query functions the REST routes use
// (and the live parts too when the view cannot answer for the account); then every change
// arrives as `update` with one key naming the object, exactly as REST renders it (a balance
// update: account_id, user_id and the changed fields only), skipping the changes the snapshot
// already showed (privateTopics.ts).

import type { OrderStatus } from '../../domain/views.ts';
import type { LiveAccount, LiveView } from '../../engine/gateway.ts';
import { pageOf } from '../../projections/pagination.ts';
import { renderBalance, renderOrder, renderPosition } from '../../projections/core/render.ts';
import type { PrivateKind, PrivateSubscriber } from '../privateTopics.ts';
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
/** The engine's live view when it has passed the account's last write (else undefined: read the read models). */
export type LiveViewFor = (accountId: string) => LiveView | undefined;

/** The snapshot parts the live view holds, and the update kinds they stand for. */
const LIVE_PARTS: Record<PrivateChannelName, readonly PrivateKind[]> = {
  orders: ['order'],
  fills: [],
  positions: ['position'],
  settlements: [],
  balances: ['balance'],
  account: ['order', 'position', 'balance'],
};

/** The live parts of a snapshot from the view's account, as the read-model queries would answer them. */
function liveSnapshot(name: PrivateChannelName, account: LiveAccount): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (name === 'orders' || name === 'account') {
    const orders: unknown[] = [];
    account.orders.newestFirst(null, (order) => {
      orders.push(renderOrder(order.view));
      return orders.length < ORDERS_IN_SNAPSHOT_MAX;
    });
    out.orders = orders;
  }
  if (name === 'positions' || name === 'account') {
    // GET /positions' default page: its rows and cursor
    const { page, cursor } = pageOf(
      account.positions.slice(0, POSITIONS_IN_SNAPSHOT + 1),
      POSITIONS_IN_SNAPSHOT,
      (p) => [p.contracts, p.view.market_id],
    );
    const positions = page.map((position) => renderPosition(position.view));
    if (name === 'positions') {
      out.cursor = cursor;
      out.positions = positions;
    } else out.positions = positions;
  }
  if (name === 'balances' || name === 'account') out.balance = renderBalance(account.balance);
  return out;
}

/** The live view and its account, when the view can answer this channel's live parts for it. */
function liveAccountOf(
  liveView: LiveViewFor | undefined,
  name: PrivateChannelName,
  accountId: string,
): { view: LiveView; account: LiveAccount } | undefined {
  if (LIVE_PARTS[name].length === 0) return undefined;
  const view = liveView?.(accountId);
  const account = view?.account(accountId);
  // an order whose journal place is unknown cannot be ordered as the read model orders it
  if (!view || !account || (account.unkeyedOrders > 0 && LIVE_PARTS[name].includes('order'))) return undefined;
  return { view, account };
}

function privateChannel(
  name: PrivateChannelName,
  feed: Feed,
  db: Queryable,
  readYourWrites: ReadYourWrites,
  liveView?: LiveViewFor,
): Channel {
  return {
    name,
    suffixed: true,
    async join(ctx) {
      const member = memberFor(ctx, CHANNEL_SCOPES[name]);
      if ('ok' in member) return member;
      const accountId = member.account_id;
      const live = liveAccountOf(liveView, name, accountId);
      const needsReadModels = !live || name === 'account';
      // what the member just did through REST is in the snapshot: the live view has passed it,
      // the read models are waited for (holding starts once they are there: fewer updates the
      // snapshot already shows)
      if (needsReadModels) await readYourWrites(accountId);
      // the account's order and fill changes come to the feed from here on (before the subscription)
      const unwatch = await feed.watchAccount(name, accountId);
      if (!ctx.current()) {
        unwatch();
        return refuse('abandoned');
      }
      const subscriber: PrivateSubscriber = feed.privateTopics.subscribe(ctx.topic, (payload) =>
        ctx.push('update', payload),
      );
      const close = (): void => {
        subscriber.close();
        unwatch();
      };
      let read: Record<string, unknown> = {};
      try {
        if (!live) read = await snapshotOf(name, db, accountId, ctx.current);
        else if (name === 'account') {
          const [fills, settlements] = await Promise.all([
            readers.fills(db, accountId),
            readers.settlements(db, accountId),
          ]);
          read = { ...fills, ...settlements };
        }
      } catch (error) {
        close();
        if (error instanceof Abandoned) return refuse('abandoned');
        throw error;
      }
      return {
        ok: true,
        topics: [],
        response: () => {
          if (!live) {
            subscriber.showed([], null, (read.balance as Record<string, unknown> | undefined) ?? null);
            return read;
          }
          // the live parts as the view stands at this moment: their changes up to its seq are skipped
          const { view } = live;
          const parts = liveSnapshot(name, view.account(accountId) ?? live.account);
          subscriber.showed(LIVE_PARTS[name], view.seq, (parts.balance as Record<string, unknown> | undefined) ?? null);
          return name === 'account'
            ? {
                orders: parts.orders,
                fills: read.fills,
                positions: parts.positions,
                settlements: read.settlements,
                balance: parts.balance,
              }
            : parts;
        },
        afterReply: () => subscriber.start(),
        overflowed: () => subscriber.overflowed,
        session: { leave: close },
      };
    },
  };
}

export function privateChannels(
  feed: Feed,
  db: Queryable,
  readYourWrites: ReadYourWrites,
  liveView?: LiveViewFor,
): Channel[] {
  return (['orders', 'fills', 'positions', 'settlements', 'balances', 'account'] as const).map((name) =>
    privateChannel(name, feed, db, readYourWrites, liveView),
  );
}
