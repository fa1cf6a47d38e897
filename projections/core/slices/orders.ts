// Orders and the aggregated book: every order the fold changed (placed, matched, released,
// cancelled). Each order row remembers what it contributes to its market's book (side, price,
// remaining contracts while it rests), so a change moves the price levels by exactly the
// difference from what the row held. The levels serve the REST market's bids and offers; the
// feed's order book channel takes its levels from the engine's journaled batches as they land
// (Feed.useBookSource), not from here.
// Resting means a limit order in status `open` or `accepted` with contracts remaining.

import {
  decimalOf,
  decimalText,
  isPositive,
  isZero,
  minus,
  negated,
  plus,
  ZERO,
  type Decimal,
} from '../../../domain/money/decimal.ts';
import type { OrderView } from '../../../domain/views.ts';
import { orderView } from '../../../domain/readModel/render.ts';
import { renderOrder } from '../render.ts';
import { orderDocOf } from '../orderRows.ts';
import { renderedOnRead, snapshotTable, upsertSnapshots, type Batch, type Slice } from './batch.ts';
import { prepared } from '../../runtime/prepared.ts';

const RESTING_STATUSES: ReadonlySet<string> = new Set(['open', 'accepted']);

interface Contribution {
  side: 'buy' | 'sell';
  price: string;
  remaining: Decimal;
}

export function contributionOf(order: OrderView): Contribution | null {
  if (order.order_type !== 'limit' || order.price === null || !RESTING_STATUSES.has(order.status)) return null;
  const remaining = minus(decimalOf(order.quantity), decimalOf(order.filled));
  return isPositive(remaining) ? { side: order.action, price: order.price, remaining } : null;
}

interface LevelDelta {
  market_id: string;
  side: string;
  price: string;
  quantity: Decimal;
  orders: number;
}

/** core_orders: one row per order, with what it contributes to its market's book. */
export const ORDERS_TABLE = snapshotTable({
  table: 'core_orders',
  key: ['id'],
  columns: [
    ['id', 'text'],
    ['account_id', 'text'],
    ['market_id', 'text'],
    ['client_order_id', 'text'],
    ['status', 'text'],
    ['book_side', 'text'],
    ['book_price', 'numeric'],
    ['book_remaining', 'numeric'],
  ],
  placed: true,
});

export const ordersSlice: Slice = {
  name: 'orders',
  async apply(batch: Batch): Promise<void> {
    if (batch.fold.orders.size === 0) return;
    const deltas = new Map<string, LevelDelta>();
    const addDelta = (marketId: string, side: string, price: string, quantity: Decimal, orders: number): void => {
      const key = `${marketId}|${side}|${decimalText(decimalOf(price))}`;
      const delta = deltas.get(key) ?? { market_id: marketId, side, price, quantity: ZERO, orders: 0 };
      delta.quantity = plus(delta.quantity, quantity);
      delta.orders += orders;
      deltas.set(key, delta);
    };

    const changed = [...batch.fold.orders.values()].map(({ record, created }) => ({
      item: orderView(record),
      created,
    }));
    for (const { item } of changed) batch.views.orders.set(item.id, item);
    const rows = changed.map(({ item, created }) => {
      const before = batch.store.books.get(item.id);
      if (before?.book_side && before.book_price !== null && before.book_remaining !== null) {
        addDelta(before.market_id, before.book_side, before.book_price, negated(decimalOf(before.book_remaining)), -1);
      }
      const after = contributionOf(item);
      if (after) addDelta(item.market_id, after.side, after.price, after.remaining, 1);
      return {
        id: item.id,
        account_id: item.account_id,
        market_id: item.market_id,
        client_order_id: item.client_order_id,
        status: item.status,
        book_side: after?.side ?? null,
        book_price: after?.price ?? null,
        book_remaining: after ? decimalText(after.remaining) : null,
        seq: item.seq,
        // where the order first appeared (only a new row takes these)
        ins_pos: created?.pos ?? '0',
        ins_idx: created?.idx ?? 0,
        doc: orderDocOf(item),
      };
    });

    await upsertSnapshots(batch.tx, ORDERS_TABLE, rows);

    const moved = [...deltas.values()].filter((d) => !isZero(d.quantity) || d.orders !== 0);
    if (moved.length > 0) {
      await batch.tx.query(
        prepared(
          `
        INSERT INTO core_book_levels (market_id, side, price, quantity, orders)
        SELECT market_id, side, price, quantity, orders
        FROM json_to_recordset($1::json) AS x(market_id text, side text, price numeric, quantity numeric, orders integer)
        ON CONFLICT (market_id, side, price) DO UPDATE
        SET quantity = core_book_levels.quantity + excluded.quantity, orders = core_book_levels.orders + excluded.orders`,
          [JSON.stringify(moved.map((d) => ({ ...d, quantity: decimalText(d.quantity) })))],
        ),
      );
      const marketIds = [...new Set(moved.map((d) => d.market_id))];
      await batch.tx.query(
        prepared('DELETE FROM core_book_levels WHERE market_id = ANY($1::text[]) AND (quantity <= 0 OR orders <= 0)', [
          marketIds,
        ]),
      );
      for (const id of marketIds) batch.touchedMarkets.add(id);
    }

    for (const { item } of changed) {
      batch.changes.push(
        renderedOnRead({ kind: 'order', account_id: item.account_id, market_id: item.market_id, seq: item.seq }, () =>
          renderOrder(item),
        ),
      );
    }
  },
};
