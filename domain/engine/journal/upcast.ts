// The upcasters. completedV5: a fact of record versions 4 and 5 in today's shape (below).
// upcastStep: one journaled step of record versions 1 to 3, whose outcome events were REST-shaped
// views of what the step changed, turned into the facts the engine states today (events.ts). It
// reads one step alone (no state from earlier steps) and yields facts a read model folds into the
// same views: every order, fill, position, balance, ledger entry and market the old step showed.
//
// What the views do not say directly is derived from the engine's rules:
// - which contracts a trade closed: a closing trade consumed the account's open lots (fills)
//   first in, first out. The lot fills a step changed are listed in that order; all but the first
//   were untouched before the step (only the oldest lot can have been partly closed earlier), so
//   each one's closed contracts in this step are its total, and the first one's are what the
//   step's closing contracts leave. The step's trades take them in trade order; each piece
//   realises contracts x (closing price - lot price) on a long, the opposite on a short.
// - an order's first status: from its final view and the input (a rejected order, a market
//   order without liquidity, an accepted or delayed one, else open and then matched).
// - releases: in a timer tick or a market opening, an order found open, filled or cancelled with
//   an accepted_at was let into matching (for one that already rested, that changes nothing).
// - what the funds reserve: the balance view's own figures.
//
// Each fact keeps the index of the old event it comes from (`indexes`), and `width` is the old
// step's event count: read models order what a journal inserts by these, so an old journal
// projects to the very rows (and cursors) it did.

import {
  abs,
  centsOf,
  compare,
  contractsTimesCents,
  decimalOf,
  formatNanos,
  isNegative,
  isZero,
  money,
  nanosOf,
  plus,
  ZERO,
  type Decimal,
} from '../../money/decimal.ts';
import { present } from '../../assert.ts';
import type { FillView, LedgerEntryView, OrderView } from '../../views.ts';
import {
  cashAccount,
  poolAccount,
  type CancellationReason,
  type EngineEvent,
  type LedgerAccount,
  type OrderTerms,
  type TransferKind,
} from '../events.ts';
import type { EngineInput } from '../inputs.ts';
import type { LegacyEngineEvent } from './legacy.ts';
import { FACT_KEYS } from './factEncoding.ts';

export interface UpcastStep {
  events: EngineEvent[];
  /** Per fact, the index of the old event it comes from. */
  indexes: number[];
  /** How many events the old step held. */
  width: number;
}

type Legacy<T extends LegacyEngineEvent['type']> = Extract<LegacyEngineEvent, { type: T }>;

function termsOf(order: OrderView): OrderTerms {
  return {
    order_id: order.id,
    account_id: order.account_id,
    market_id: order.market_id,
    action: order.action,
    order_type: order.order_type,
    price: order.price,
    quantity: order.quantity,
    expiration: order.expiration,
    expiration_time: order.expiration_time,
    expires_at: order.expires_at,
    placed_pre_start: order.placed_pre_start,
    client_order_id: order.client_order_id,
    device_id: order.device_id,
    ip_address: order.ip_address,
    cancel_on_disconnect: order.cancel_on_disconnect,
  };
}

const ledgerAccountOf = (entry: LedgerEntryView): LedgerAccount => {
  switch (entry.type) {
    case 'fee':
    case 'fee_refund':
      return 'fees';
    case 'settlement':
      return poolAccount(entry.market_id ?? '');
    default:
      return 'outside';
  }
};

/** A ledger entry view as the transfer that made it. */
function transferOf(entry: LedgerEntryView): EngineEvent {
  const amount = decimalOf(entry.amount);
  const cash = cashAccount(entry.account_id);
  const other = ledgerAccountOf(entry);
  const out = isNegative(amount) || (isZero(amount) && entry.type === 'fee');
  return {
    type: 'Transferred',
    id: entry.id,
    kind: entry.type as TransferKind,
    from: out ? cash : other,
    to: out ? other : cash,
    amount: money(abs(amount)),
    market_id: entry.market_id,
    fill_id: entry.trade_id,
    settlement_id: entry.settlement_id,
    method: entry.method,
    reason: entry.reason,
    sub_method: entry.sub_method,
  };
}

/** The transfer of PnL a closing trade realised (no ledger entry). */
function realisedOf(accountId: string, marketId: string, pnl: Decimal): EngineEvent {
  const cash = cashAccount(accountId);
  const pool = poolAccount(marketId);
  const out = isNegative(pnl);
  return {
    type: 'Transferred',
    id: null,
    kind: 'trade_pnl',
    from: out ? cash : pool,
    to: out ? pool : cash,
    amount: money(abs(pnl)),
    market_id: marketId,
    fill_id: null,
    settlement_id: null,
    method: null,
    reason: null,
    sub_method: null,
  };
}

/**
 * A fact of a record before version 6 in today's shape. Those records did not state what a trade
 * or a cancel leaves of an order (its remaining and status): the fields are there, null, and a
 * fold completes them from the order it holds (projections/facts/fold.ts, by the domain's rules,
 * domain/evolve/orders.ts). Every other fact is today's already.
 */
export function completedV5(fact: EngineEvent): EngineEvent {
  if (fact.type === 'Traded' && (fact as { maker_status?: unknown }).maker_status === undefined) {
    return {
      type: 'Traded',
      trade_id: fact.trade_id,
      market_id: fact.market_id,
      price: fact.price,
      quantity: fact.quantity,
      taker_side: fact.taker_side,
      pre_start: fact.pre_start,
      maker_order_id: fact.maker_order_id,
      maker_account_id: fact.maker_account_id,
      maker_fill_id: fact.maker_fill_id,
      maker_closing: fact.maker_closing,
      maker_fee: fact.maker_fee,
      maker_points: fact.maker_points,
      maker_remaining: null,
      maker_status: null,
      taker_order_id: fact.taker_order_id,
      taker_account_id: fact.taker_account_id,
      taker_fill_id: fact.taker_fill_id,
      taker_closing: fact.taker_closing,
      taker_fee: fact.taker_fee,
      taker_points: fact.taker_points,
      taker_remaining: null,
      taker_status: null,
    };
  }
  if (fact.type === 'OrderCancelled' && (fact as { status?: unknown }).status === undefined) {
    return { type: 'OrderCancelled', order_id: fact.order_id, reason: fact.reason, status: null };
  }
  return fact;
}

const RELEASING_INPUTS: ReadonlySet<string> = new Set(['Tick', 'ChangeMarketStatus']);
const CANCELLED: ReadonlySet<string> = new Set(['cancelled', 'partially_cancelled']);

/** A lot a step closed: what of it the step closed (`nanos`, consumed as trades take it) and realised (`pnl`). */
interface LotShare {
  fillId: string;
  nanos: number;
  priceCents: number;
  pnlAfter: Decimal;
  whole: boolean;
  pnl: Decimal;
}

/** The facts an old step becomes, each with the index of the old event it comes from. */
class Upcast {
  readonly events: EngineEvent[] = [];
  readonly indexes: number[] = [];

  push(fact: EngineEvent, index: number): void {
    this.events.push(fact);
    this.indexes.push(index);
  }
}

/** What of an old step's events the facts after its lifecycle facts are made from. */
interface Gathered {
  trades: Array<{ event: Legacy<'TradeExecuted'>; index: number }>;
  changedFills: Array<{ fill: FillView; index: number }>;
  entries: Array<{ entry: LedgerEntryView; index: number }>;
  orders: Array<{ order: OrderView; placed: boolean; index: number }>;
  funds: Map<string, { index: number; balance: Legacy<'BalanceChanged'>['balance'] }>;
  settled: Array<{ event: Legacy<'MarketSettled'>; index: number }>;
}

export function upcastStep(input: EngineInput, legacy: readonly LegacyEngineEvent[]): UpcastStep {
  const out = new Upcast();
  const step = gather(input, legacy, out);
  pushPlacements(input, step.orders, out);
  const feeEntryOf = pushTrades(step, out);
  pushFillChanges(input, step.changedFills, out);
  pushEntries(step.entries, feeEntryOf, out);
  pushClosings(step, out);
  return { events: out.events, indexes: out.indexes, width: legacy.length };
}

type ViewFactType = 'AccountOpened' | 'AccountUpdated' | 'SportEventScheduled' | 'MarketListed';

/**
 * A lifecycle fact of today's shape whose fields an old record's view holds under the same names:
 * taken by the fact's own key list (FACT_KEYS, the journal's), in its order.
 */
function factFromView<N extends ViewFactType>(type: N, view: object): Extract<EngineEvent, { type: N }> {
  const fact: Record<string, unknown> = { type };
  for (const key of FACT_KEYS[type]) fact[key] = (view as Record<string, unknown>)[key];
  return fact as Extract<EngineEvent, { type: N }>;
}

/** The lifecycle facts of an old step (pushed), and what the rest are made from (gathered). */
function gather(input: EngineInput, legacy: readonly LegacyEngineEvent[], out: Upcast): Gathered {
  const step: Gathered = { trades: [], changedFills: [], entries: [], orders: [], funds: new Map(), settled: [] };
  legacy.forEach((event, index) => {
    switch (event.type) {
      case 'AccountOpened':
        out.push(factFromView('AccountOpened', event.account), index);
        break;
      case 'AccountUpdated': {
        const a = event.account;
        if (input.kind === 'UpdateAccount') out.push(factFromView('AccountUpdated', a), index);
        else out.push({ type: 'LoyaltyTierChanged', account_id: a.account_id, tier: a.loyalty_tier }, index); // a tier reached by points
        step.funds.set(event.balance.account_id, { index, balance: event.balance });
        break;
      }
      case 'SportEventScheduled':
        out.push(factFromView('SportEventScheduled', event.event), index);
        break;
      case 'SportEventStarted':
        out.push({ type: 'SportEventStarted', event_id: event.event.event_id }, index);
        break;
      case 'MarketListed':
        out.push(factFromView('MarketListed', event.market), index);
        break;
      case 'MarketChanged': {
        const { market_id, status, trading } = event.market;
        if (input.kind === 'ChangeMarketStatus')
          out.push({ type: 'MarketStatusChanged', market_id, status, trading }, index);
        break;
      }
      case 'OrderPlaced':
        step.orders.push({ order: event.order, placed: true, index });
        break;
      case 'OrderChanged':
        step.orders.push({ order: event.order, placed: false, index });
        break;
      case 'TradeExecuted':
        step.trades.push({ event, index });
        break;
      case 'FillChanged':
        step.changedFills.push({ fill: event.fill, index });
        break;
      case 'LedgerEntryRecorded':
        step.entries.push({ entry: event.entry, index });
        break;
      case 'BalanceChanged':
        step.funds.set(event.balance.account_id, { index, balance: event.balance });
        break;
      case 'MarketSettled':
        step.settled.push({ event, index });
        break;
      case 'PositionChanged':
        break; // positions follow from the fills and transfers
      default: {
        const unknown: never = event;
        throw new Error(`engine journal: an event of unknown type ${String((unknown as { type: unknown }).type)}`);
      }
    }
  });
  return step;
}

/** Orders as placed (rejected, refused for want of liquidity, or accepted), then those a tick or a market opening let into matching. */
function pushPlacements(input: EngineInput, orders: Gathered['orders'], out: Upcast): void {
  for (const { order, placed, index } of orders) {
    if (!placed) continue;
    if (order.status === 'rejected')
      out.push({ type: 'OrderRejected', reason: 'insufficient_funds', ...termsOf(order) }, index);
    else if (
      order.status === 'cancelled' &&
      order.cancellation_reason === 'no_liquidity' &&
      order.accepted_at === null
    ) {
      out.push({ type: 'OrderRejected', reason: 'no_liquidity', ...termsOf(order) }, index);
    } else if (order.status === 'accepted')
      out.push({ type: 'OrderAccepted', status: 'accepted', delayed_until: null, ...termsOf(order) }, index);
    else if (order.status === 'delayed')
      out.push(
        { type: 'OrderAccepted', status: 'delayed', delayed_until: order.delayed_until, ...termsOf(order) },
        index,
      );
    else out.push({ type: 'OrderAccepted', status: 'open', delayed_until: null, ...termsOf(order) }, index);
  }
  if (!RELEASING_INPUTS.has(input.kind)) return;
  for (const { order, placed, index } of orders) {
    if (!placed && order.accepted_at !== null && order.status !== 'accepted' && order.status !== 'delayed') {
      out.push({ type: 'OrderReleased', order_id: order.id }, index);
    }
  }
}

/** A trade of an old record as a Traded fact (what it left of each order is not stated: null). */
function tradedOf(event: Legacy<'TradeExecuted'>): EngineEvent {
  const { provider: maker, taker } = event;
  return {
    type: 'Traded',
    trade_id: event.trade_id,
    market_id: event.market_id,
    price: event.price,
    quantity: event.quantity,
    taker_side: taker.action,
    pre_start: taker.pre_start,
    maker_order_id: maker.order_id,
    maker_account_id: maker.account_id,
    maker_fill_id: maker.trade_id,
    maker_closing: maker.closing,
    maker_fee: maker.unrounded_trade_fee,
    maker_points: maker.points,
    maker_remaining: null,
    maker_status: null,
    taker_order_id: taker.order_id,
    taker_account_id: taker.account_id,
    taker_fill_id: taker.trade_id,
    taker_closing: taker.closing,
    taker_fee: taker.unrounded_trade_fee,
    taker_points: taker.points,
    taker_remaining: null,
    taker_status: null,
  };
}

/**
 * Trades, with the lots they closed, the PnL that realised and each side's fee. Answers the fee
 * entries stated with their trades (by fill id), which the other entries then skip.
 */
function pushTrades(step: Gathered, out: Upcast): Map<string, { entry: LedgerEntryView; index: number }> {
  const { trades, changedFills, entries } = step;
  const feeEntryOf = new Map<string, { entry: LedgerEntryView; index: number }>();
  const created = new Set<string>();
  for (const { event } of trades) for (const fill of [event.provider, event.taker]) created.add(fill.trade_id);
  for (const item of entries)
    if (item.entry.type === 'fee' && item.entry.trade_id !== null && created.has(item.entry.trade_id))
      feeEntryOf.set(item.entry.trade_id, item);
  const { queues: lots, shares } =
    trades.length > 0
      ? lotQueues(
          trades.map((t) => t.event),
          changedFills.map((c) => c.fill),
          created,
        )
      : { queues: new Map<string, LotShare[]>(), shares: [] };
  for (const { event, index } of trades) {
    out.push(tradedOf(event), index);
    for (const side of [event.provider, event.taker]) {
      const realised = pushLotsClosed(side, lots.get(`${side.account_id}\u0000${side.market_id}`) ?? [], index, out);
      if (!isZero(realised)) out.push(realisedOf(side.account_id, side.market_id, realised), index);
      const fee = feeEntryOf.get(side.trade_id);
      if (fee) out.push(transferOf(fee.entry), fee.index);
    }
  }
  for (const lot of shares) {
    if (lot.nanos !== 0)
      throw new Error(`engine journal: lot ${lot.fillId} shows contracts closed that no trade of its step closed`);
    // a lot untouched before the step shows exactly what the step realised on it
    if (lot.whole && compare(lot.pnl, lot.pnlAfter) !== 0)
      throw new Error(`engine journal: lot ${lot.fillId} shows a closed PnL its step's trades do not make`);
  }
  return feeEntryOf;
}

/** The lots one side of a trade closed, first in first out, as LotClosed facts; answers the PnL realised. */
function pushLotsClosed(side: FillView, queue: LotShare[], index: number, out: Upcast): Decimal {
  let toClose = nanosOf(side.closing);
  let realised = ZERO;
  const closePrice = centsOf(side.price);
  while (toClose > 0) {
    const lot = queue[0];
    if (!lot)
      throw new Error(
        `engine journal: fill ${side.trade_id} closes ${side.closing} contracts, more than the step's lots hold`,
      );
    const take = Math.min(lot.nanos, toClose);
    const pnl = contractsTimesCents(
      take,
      side.action === 'buy' ? lot.priceCents - closePrice : closePrice - lot.priceCents,
    );
    out.push({ type: 'LotClosed', fill_id: lot.fillId, quantity: formatNanos(take), pnl: money(pnl) }, index);
    lot.pnl = plus(lot.pnl, pnl);
    realised = plus(realised, pnl);
    lot.nanos -= take;
    toClose -= take;
    if (lot.nanos === 0) queue.shift();
  }
  return realised;
}

/** Fills changed without a trade: settled at a result, unwound by a void, amended. */
function pushFillChanges(input: EngineInput, changedFills: Gathered['changedFills'], out: Upcast): void {
  if (input.kind !== 'ResultMarket' && input.kind !== 'AmendFill') return;
  for (const { fill, index } of changedFills) {
    if (fill.status === 'cancelled') out.push({ type: 'FillVoided', fill_id: fill.trade_id }, index);
    else if (fill.amended && input.kind === 'AmendFill') {
      out.push(
        {
          type: 'FillAmended',
          fill_id: fill.trade_id,
          account_id: fill.account_id,
          market_id: fill.market_id,
          price: fill.price,
          quantity: fill.filled,
          fee: fill.unrounded_trade_fee,
          points: fill.points,
        },
        index,
      );
    } else if (nanosOf(fill.expired_contracts) > 0) {
      out.push(
        { type: 'LotSettled', fill_id: fill.trade_id, quantity: fill.expired_contracts, pnl: fill.expired_pnl },
        index,
      );
    }
  }
}

/** Every ledger entry not stated with its trade, in the order it was recorded. */
function pushEntries(
  entries: Gathered['entries'],
  feeEntryOf: ReadonlyMap<string, { entry: LedgerEntryView }>,
  out: Upcast,
): void {
  for (const { entry, index } of entries) {
    if (entry.type === 'fee' && entry.trade_id !== null && feeEntryOf.get(entry.trade_id)?.entry === entry) continue;
    if (entry.type === 'rollup') {
      out.push(
        {
          type: 'PointsCredited',
          id: entry.id,
          account_id: entry.account_id,
          market_id: entry.market_id ?? '',
          settlement_id: entry.settlement_id ?? '',
          points: entry.points,
          amount_risked: entry.amount,
        },
        index,
      );
    } else {
      out.push(transferOf(entry), index);
    }
  }
}

/** Orders that ended cancelled in the step (after their trades), markets settled, and what each account's funds then reserve. */
function pushClosings(step: Gathered, out: Upcast): void {
  for (const { order, placed, index } of step.orders) {
    if (!CANCELLED.has(order.status) || order.cancellation_reason === null) continue;
    if (placed && order.cancellation_reason === 'no_liquidity' && order.accepted_at === null) continue;
    out.push(
      {
        type: 'OrderCancelled',
        order_id: order.id,
        reason: order.cancellation_reason as CancellationReason,
        status: null,
      },
      index,
    );
  }
  for (const { event, index } of step.settled)
    out.push(
      { type: 'MarketSettled', market_id: event.market_id, result: event.result, settlement_id: event.settlement_id },
      index,
    );
  for (const [accountId, { balance, index }] of step.funds) {
    out.push(
      {
        type: 'FundsReserved',
        account_id: accountId,
        buy_orders: balance.buy_order_liability,
        sell_orders: balance.sell_order_liability,
        positions: balance.position_premium_liability,
        available: balance.available_balance,
      },
      index,
    );
  }
}

/**
 * Per account and market, the lots a step's trades closed, first in first out, each with the
 * contracts this step closed of it: all of a lot's closed contracts, except for the first lot
 * touched (which earlier steps may have closed in part), whose share is what the step's closing
 * contracts leave.
 */
function lotQueues(
  trades: ReadonlyArray<Legacy<'TradeExecuted'>>,
  changed: readonly FillView[],
  created: ReadonlySet<string>,
): { queues: Map<string, LotShare[]>; shares: LotShare[] } {
  const closingOf = new Map<string, number>();
  for (const trade of trades) {
    for (const side of [trade.provider, trade.taker]) {
      const key = `${side.account_id}\u0000${side.market_id}`;
      closingOf.set(key, (closingOf.get(key) ?? 0) + nanosOf(side.closing));
    }
  }
  const queues = new Map<string, LotShare[]>();
  const shares: LotShare[] = [];
  for (const fill of changed) {
    const key = `${fill.account_id}\u0000${fill.market_id}`;
    const queue = queues.get(key) ?? [];
    const share = {
      fillId: fill.trade_id,
      nanos: nanosOf(fill.closed_contracts),
      priceCents: centsOf(fill.price),
      pnlAfter: decimalOf(fill.closed_pnl),
      whole: queue.length > 0 || created.has(fill.trade_id),
      pnl: ZERO,
    };
    queue.push(share);
    shares.push(share);
    queues.set(key, queue);
  }
  for (const [key, queue] of queues) {
    const first = present(queue[0], 'a queue is made with its first share');
    if (!first.whole) {
      const others = queue.slice(1).reduce((sum, lot) => sum + lot.nanos, 0);
      first.nanos = (closingOf.get(key) ?? 0) - others;
      if (first.nanos <= 0)
        throw new Error(`engine journal: the closings of a step do not reach its first lot ${first.fillId}`);
    }
  }
  return { queues, shares };
}
