// What the member activity projector folds a batch's facts onto: its own stored rows of every
// entity the facts name, read back into records, with the stored docs kept beside them (a
// changed row's old contribution to its market stats is subtracted). Its rows are narrower than
// the core's: an order keeps the facts market stats read (OrderFacts), so fills it opens carry
// no copy of the order's client id, device, address, expiry or pre-start flag.

import type pg from 'pg';
import { decimalOf, ZERO } from '../../../domain/money/decimal.ts';
import type { BalanceView, FillView, LedgerEntryView, MarketStateView, PositionView, SportEventView } from '../../../domain/views.ts';
import { emptyStore, positionKey, type FoldStore, type Named } from '../../facts/fold.ts';
import {
  fillRecordOf, marketRecordOf, positionRecordOf, sportEventRecordOf, type AccountBalance,
} from '../../facts/records.ts';
import type { OrderRecord } from '../../../domain/readModel/records.ts';
import { centsOf, nanosOf } from '../../../domain/money/decimal.ts';
import type { OrderFacts } from '../marketStats/compute.ts';
import { prepared } from '../../runtime/prepared.ts';

interface MemberStore extends FoldStore {
  /** The stored docs of the orders and fills loaded (their contributions before the batch). */
  orderDocs: Map<string, OrderFacts>;
  fillDocs: Map<string, FillView>;
}

/** An order as member_orders keeps it: the facts market stats read; the rest is never stored here. */
function orderRecordOfFacts(doc: OrderFacts, seq: number): OrderRecord {
  return {
    id: doc.id, accountId: doc.account_id, marketId: doc.market_id, action: doc.action, status: doc.status,
    quantityNanos: nanosOf(doc.quantity), filledNanos: nanosOf(doc.filled), priceCents: doc.price === null ? null : centsOf(doc.price),
    seq, totalValue: ZERO,
  } as OrderRecord;
}

/** An account as its balance view shows it (the only view of it member_balances keeps). */
function accountOfBalance(balance: BalanceView): AccountBalance {
  return {
    id: balance.account_id, userId: balance.user_id, feeSchedule: balance.fee_schedule, baseFeePercent: balance.base_fee_percent,
    makerFactor: balance.maker_factor, takerFactor: balance.taker_factor, loyaltyTier: balance.loyalty_tier, points: balance.points,
    cash: decimalOf(balance.account_balance),
    totals: {
      deposits: decimalOf(balance.total_deposits), withdrawals: decimalOf(balance.total_withdrawals), adjustments: decimalOf(balance.total_adjustments),
      fees: decimalOf(balance.total_fees), settlementPnl: decimalOf(balance.total_settlement_pnl), traded: decimalOf(balance.total_traded),
    },
    tradeCount: balance.total_trade_count,
    funds: { buyOrders: balance.buy_order_liability, sellOrders: balance.sell_order_liability, positions: balance.position_premium_liability, available: balance.available_balance },
  } as AccountBalance;
}

export async function loadMember(tx: pg.PoolClient, named: Named, feeEntryIds: readonly string[]): Promise<MemberStore> {
  const store: MemberStore = { ...emptyStore(), orderDocs: new Map(), fillDocs: new Map() };
  if (named.orders.size > 0) {
    const rows = await tx.query<{ doc: OrderFacts; seq: string }>(prepared('SELECT doc, seq::text FROM member_orders WHERE order_id = ANY($1::text[])', [[...named.orders]]));
    for (const row of rows.rows) {
      store.orders.set(row.doc.id, { record: orderRecordOfFacts(row.doc, Number(row.seq)), seq: Number(row.seq) });
      store.orderDocs.set(row.doc.id, row.doc);
    }
  }
  if (named.fills.size > 0) {
    const rows = await tx.query<{ doc: FillView; seq: string }>(prepared('SELECT doc, seq::text FROM member_fills WHERE trade_id = ANY($1::text[])', [[...named.fills]]));
    for (const row of rows.rows) {
      store.fills.set(row.doc.trade_id, { record: fillRecordOf(row.doc), seq: Number(row.seq) });
      store.fillDocs.set(row.doc.trade_id, row.doc);
    }
  }
  if (named.openFillsOf.size > 0) {
    // a settlement-side fee percent changed: the open fills of its markets show a new potential fee
    const rows = await tx.query<{ doc: FillView; seq: string }>(prepared(
      "SELECT doc, seq::text FROM member_fills WHERE market_id = ANY($1::text[]) AND status = 'open'", [[...named.openFillsOf]]));
    for (const row of rows.rows) {
      if (store.fills.has(row.doc.trade_id)) continue;
      store.fills.set(row.doc.trade_id, { record: fillRecordOf(row.doc), seq: Number(row.seq) });
      store.fillDocs.set(row.doc.trade_id, row.doc);
    }
  }
  // a fill renders with its market's settlement-side percents
  for (const { record } of store.fills.values()) named.markets.add(record.marketId);
  if (named.accounts.size > 0) {
    const rows = await tx.query<{ doc: BalanceView; seq: string }>(prepared('SELECT doc, seq::text FROM member_balances WHERE account_id = ANY($1::text[])', [[...named.accounts]]));
    for (const row of rows.rows) store.accounts.set(row.doc.account_id, { record: accountOfBalance(row.doc), seq: Number(row.seq), balanceSeq: Number(row.seq) });
  }
  if (named.positions.size > 0) {
    const pairs = [...named.positions.values()];
    const rows = await tx.query<{ doc: PositionView; seq: string }>(prepared(`
      SELECT x.doc, x.seq::text FROM member_positions x JOIN unnest($1::text[], $2::text[]) AS p(account_id, market_id) USING (account_id, market_id)`,
    [pairs.map((p) => p.accountId), pairs.map((p) => p.marketId)]));
    for (const row of rows.rows) store.positions.set(positionKey(row.doc.account_id, row.doc.market_id), { record: positionRecordOf(row.doc), seq: Number(row.seq) });
  }
  if (named.markets.size > 0) {
    const rows = await tx.query<{ doc: MarketStateView; seq: string }>(prepared('SELECT doc, seq::text FROM member_markets WHERE market_id = ANY($1::text[])', [[...named.markets]]));
    for (const row of rows.rows) store.markets.set(row.doc.market_id, { record: marketRecordOf(row.doc), seq: Number(row.seq) });
  }
  if (named.sportEvents.size > 0) {
    const rows = await tx.query<{ doc: SportEventView; seq: string }>(prepared('SELECT doc, seq::text FROM member_sport_events WHERE event_id = ANY($1::text[])', [[...named.sportEvents]]));
    for (const row of rows.rows) store.sportEvents.set(row.doc.event_id, { record: sportEventRecordOf(row.doc), seq: Number(row.seq) });
  }
  if (feeEntryIds.length > 0) {
    const rows = await tx.query<Pick<LedgerEntryView, 'id'>>(prepared('SELECT id FROM member_fee_entries WHERE id = ANY($1::text[])', [feeEntryIds]));
    for (const row of rows.rows) store.entryIds.add(row.id);
  }
  return store;
}
