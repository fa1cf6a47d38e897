// What the core projector folds a batch's facts onto: the stored rows of every entity the facts
// name, read back into records (projections/facts/records.ts), each with the engine step that
// last changed it. Orders are locked (FOR UPDATE) with what they contribute to the book. The
// stored docs of orders and fills are kept beside their records: what each contributed to its
// market stats before the batch (the fold changes the records, never the docs).

import type pg from 'pg';
import type {
  AccountView,
  BalanceView,
  FillView,
  MarketStateView,
  OrderView,
  PositionView,
  SportEventView,
} from '../../domain/views.ts';
import { emptyStore, positionKey, type FoldStore, type Named } from '../facts/fold.ts';
import {
  accountRecordOf,
  fillRecordOf,
  marketRecordOf,
  orderRecordOf,
  positionRecordOf,
  sportEventRecordOf,
} from '../facts/records.ts';
import { prepared } from '../runtime/prepared.ts';
import { orderView } from '../../domain/readModel/render.ts';
import { ORDER_ROW_COLUMNS, orderFieldsOf, type OrderColumns, type OrderDoc } from './orderRows.ts';

/** What an order row contributes to its market's book (null unless it rests). */
export interface BookShare {
  market_id: string;
  book_side: 'buy' | 'sell' | null;
  book_price: string | null;
  book_remaining: string | null;
}

export interface CoreStore extends FoldStore {
  books: Map<string, BookShare>;
  /** The orders' and fills' views as stored before the batch. */
  orderDocs: Map<string, OrderView>;
  fillDocs: Map<string, FillView>;
}

export async function loadCore(tx: pg.PoolClient, named: Named, entryIds: readonly string[]): Promise<CoreStore> {
  const store: CoreStore = { ...emptyStore(), books: new Map(), orderDocs: new Map(), fillDocs: new Map() };
  const ids = (set: Set<string>) => [...set];
  if (named.orders.size > 0) {
    const rows = await tx.query<BookShare & OrderColumns & { doc: OrderDoc; seq: string }>(
      prepared(
        `SELECT ${ORDER_ROW_COLUMNS}, o.book_side, o.book_price::text, o.book_remaining::text FROM core_orders o WHERE o.id = ANY($1::text[]) FOR UPDATE`,
        [ids(named.orders)],
      ),
    );
    for (const row of rows.rows) {
      const record = orderRecordOf(orderFieldsOf(row));
      // the view as stored, rendered before the fold changes the record
      store.orderDocs.set(row.id, orderView(record));
      store.orders.set(row.id, { record, seq: Number(row.seq) });
      store.books.set(row.id, {
        market_id: row.market_id,
        book_side: row.book_side,
        book_price: row.book_price,
        book_remaining: row.book_remaining,
      });
    }
  }
  if (named.fills.size > 0) {
    const rows = await tx.query<{ doc: FillView; seq: string }>(
      prepared('SELECT doc, seq::text FROM core_fills WHERE trade_id = ANY($1::text[])', [ids(named.fills)]),
    );
    for (const row of rows.rows) {
      store.fills.set(row.doc.trade_id, { record: fillRecordOf(row.doc), seq: Number(row.seq) });
      store.fillDocs.set(row.doc.trade_id, row.doc);
    }
  }
  if (named.openFillsOf.size > 0) {
    // a settlement-side fee percent changed: the open fills of its markets show a new potential fee
    const rows = await tx.query<{ doc: FillView; seq: string }>(
      prepared("SELECT doc, seq::text FROM core_fills WHERE market_id = ANY($1::text[]) AND status = 'open'", [
        ids(named.openFillsOf),
      ]),
    );
    for (const row of rows.rows) {
      if (store.fills.has(row.doc.trade_id)) continue;
      store.fills.set(row.doc.trade_id, { record: fillRecordOf(row.doc), seq: Number(row.seq) });
      store.fillDocs.set(row.doc.trade_id, row.doc);
    }
  }
  // a fill renders with its market's settlement-side percents
  for (const { record } of store.fills.values()) named.markets.add(record.marketId);
  if (named.accounts.size > 0) {
    const rows = await tx.query<{
      account: AccountView;
      seq: string;
      balance: BalanceView | null;
      balance_seq: string | null;
    }>(
      prepared(
        `
      SELECT a.doc AS account, a.seq::text, b.doc AS balance, b.seq::text AS balance_seq
      FROM core_accounts a LEFT JOIN core_balances b ON b.account_id = a.account_id WHERE a.account_id = ANY($1::text[])`,
        [ids(named.accounts)],
      ),
    );
    for (const row of rows.rows) {
      store.accounts.set(row.account.account_id, {
        record: accountRecordOf(row.account, row.balance),
        seq: Number(row.seq),
        balanceSeq: row.balance_seq === null ? -1 : Number(row.balance_seq),
      });
    }
  }
  if (named.positions.size > 0) {
    const pairs = [...named.positions.values()];
    const rows = await tx.query<{ doc: PositionView; seq: string }>(
      prepared(
        `
      SELECT x.doc, x.seq::text FROM core_positions x
      JOIN unnest($1::text[], $2::text[]) AS p(account_id, market_id) USING (account_id, market_id)`,
        [pairs.map((p) => p.accountId), pairs.map((p) => p.marketId)],
      ),
    );
    for (const row of rows.rows)
      store.positions.set(positionKey(row.doc.account_id, row.doc.market_id), {
        record: positionRecordOf(row.doc),
        seq: Number(row.seq),
      });
  }
  if (named.markets.size > 0) {
    const rows = await tx.query<{ doc: MarketStateView; seq: string }>(
      prepared('SELECT doc, seq::text FROM core_markets WHERE market_id = ANY($1::text[])', [ids(named.markets)]),
    );
    for (const row of rows.rows)
      store.markets.set(row.doc.market_id, { record: marketRecordOf(row.doc), seq: Number(row.seq) });
  }
  if (named.sportEvents.size > 0) {
    const rows = await tx.query<{ doc: SportEventView; seq: string }>(
      prepared('SELECT doc, seq::text FROM core_sport_events WHERE event_id = ANY($1::text[])', [
        ids(named.sportEvents),
      ]),
    );
    for (const row of rows.rows)
      store.sportEvents.set(row.doc.event_id, { record: sportEventRecordOf(row.doc), seq: Number(row.seq) });
  }
  if (entryIds.length > 0) {
    const rows = await tx.query<{ id: string }>(
      prepared('SELECT id FROM core_ledger_entries WHERE id = ANY($1::text[])', [entryIds]),
    );
    for (const row of rows.rows) store.entryIds.add(row.id);
  }
  return store;
}
