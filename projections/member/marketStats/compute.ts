// The account-specific part of one `market_stats` row, computed from the latest snapshots of the
// account's orders, fills and position in one market plus its fee ledger entries. Pure and
// idempotent: the projector recomputes a row from scratch whenever any of its inputs changes.
// Every field is defined in docs/MEMBER.md; the short form sits beside each computation.

import Big from 'big.js';
import type { FillView, LedgerEntryView, OrderView, PositionView } from '../../../domain/views.ts';
import { LIVE_ORDER_STATUSES } from '../../../domain/views.ts';

export interface MarketStatsInput {
  orders: readonly OrderView[];
  fills: readonly FillView[];
  position: PositionView | null;
  /** Ledger entries of type fee / fee_refund for this account and market. */
  feeEntries: readonly LedgerEntryView[];
  /** The market's max_price (settlement value of one winning contract). */
  maxPrice: string;
  /** The account's fee rate for orders (the engine's reserve rate: the larger of maker and taker). */
  orderFeeRate: string;
}

/** Decimal fields (strings) and count fields (integers) of the row; identity and times are added by the reader. */
export interface MarketStatsValues {
  position: string;
  available_position: string;
  contracts_traded: string; buy_contracts_traded: string; sell_contracts_traded: string;
  contracts_closed: string; buy_contracts_closed: string; sell_contracts_closed: string;
  contracts_expired: string; buy_contracts_expired: string; sell_contracts_expired: string;
  contracts_settled: string; buy_contracts_settled: string; sell_contracts_settled: string;
  contracts_in_orders: string; contracts_in_buy_orders: string; contracts_in_sell_orders: string;
  cancelled_contracts: string; cancelled_buy_contracts: string; cancelled_sell_contracts: string;
  orders: number; buy_orders: number; sell_orders: number; open_order_count: number;
  cancelled_orders: number; cancelled_buy_orders: number; cancelled_sell_orders: number;
  rejected_orders: number; rejected_buy_orders: number; rejected_sell_orders: number;
  trade_count: number; buy_trade_count: number; sell_trade_count: number; open_trade_count: number;
  settlements: number; buy_settlements: number; sell_settlements: number;
  order_liability: string; buy_order_liability: string; sell_order_liability: string;
  position_premium_liability: string; total_liability: string;
  max_liability_loss: string; max_liability_win: string; max_risk: string; open_risk: string;
  original_risk: string; buy_original_risk: string; sell_original_risk: string;
  open_premium: string; average_open_premium: string;
  closed_premium: string; closed_buy_premium: string; closed_sell_premium: string;
  expired_premium: string; expired_buy_premium: string; expired_sell_premium: string;
  total_fees: string; closed_fees: string; expired_fees: string;
  max_potential_fee: string; open_potential_fee: string; potential_order_trade_fee: string; pending_close_fee: string;
  closed_gross_pnl: string; closed_net_pnl: string; expired_gross_pnl: string; expired_net_pnl: string;
  total_settlement_pnl: string; total_net_pnl: string;
  max_potential_profit: string; open_potential_profit: string; pending_close_pnl: string;
  market_max_price: string;
  /** Latest settlement time among the fills (UNIX µs), null when nothing settled. */
  last_settled_at: number | null;
}

const ZERO = new Big(0);
const CANCELLED: ReadonlySet<string> = new Set(['cancelled', 'partially_cancelled']);
const LIVE: ReadonlySet<string> = new Set(LIVE_ORDER_STATUSES);

const big = (value: string | null | undefined) => (value === null || value === undefined || value === '' ? ZERO : new Big(value));
const sum = <T>(items: readonly T[], of: (item: T) => Big) => items.reduce((total, item) => total.plus(of(item)), ZERO);
const s = (value: Big) => value.toString();
const maxOf = (a: Big, b: Big) => (a.gt(b) ? a : b);

/** Contracts of an order still working (quantity − filled). */
const unfilled = (order: OrderView) => maxOf(big(order.quantity).minus(big(order.filled)), ZERO);

/** Per-contract risk of a resting order: its price on a buy, max_price − price on a sell. */
function orderRiskPerContract(order: OrderView, maxPrice: Big): Big {
  const price = big(order.price);
  return order.action === 'buy' ? price : maxPrice.minus(price);
}

export function computeMarketStats(input: MarketStatsInput): MarketStatsValues {
  const maxPrice = big(input.maxPrice);
  const orders = input.orders;
  const fills = input.fills.filter((fill) => fill.status !== 'cancelled');
  const buys = <T extends { action: string }>(items: readonly T[]) => items.filter((i) => i.action === 'buy');
  const sells = <T extends { action: string }>(items: readonly T[]) => items.filter((i) => i.action === 'sell');

  const liveOrders = orders.filter((o) => LIVE.has(o.status));
  const cancelledOrders = orders.filter((o) => CANCELLED.has(o.status));
  const rejectedOrders = orders.filter((o) => o.status === 'rejected');
  const openFills = fills.filter((f) => (f.status === 'created' || f.status === 'open') && big(f.remaining).gt(0));

  const position = big(input.position?.position);
  // Contracts reserved by live orders on the closing side (sells against a long, buys against a short).
  const closingSide = position.gt(0) ? 'sell' : position.lt(0) ? 'buy' : null;
  const reserved = closingSide ? sum(liveOrders.filter((o) => o.action === closingSide), unfilled) : ZERO;
  const held = position.abs();
  const availableAbs = maxOf(held.minus(reserved), ZERO);
  const availablePosition = position.lt(0) ? availableAbs.times(-1) : availableAbs;

  const liability = (items: readonly OrderView[]) => sum(items, (o) => unfilled(o).times(orderRiskPerContract(o, maxPrice)));
  const buyOrderLiability = liability(buys(liveOrders));
  const sellOrderLiability = liability(sells(liveOrders));
  const orderLiability = buyOrderLiability.plus(sellOrderLiability);

  const openRisk = sum(openFills, (f) => big(f.remaining_risk));
  const openToWin = sum(openFills, (f) => big(f.remaining_to_win));
  const openPremium = sum(openFills, (f) => big(f.remaining_premium));
  const openContracts = sum(openFills, (f) => big(f.remaining));
  const openPotentialFee = sum(openFills, (f) => big(f.remaining_potential_fee));
  // the engine's fee formula: rate × contracts × min(price, max_price − price), rounded up to the cent
  const feeRate = big(input.orderFeeRate);
  const potentialOrderTradeFee = sum(liveOrders, (o) => {
    const price = big(o.price);
    const smallerRisk = price.lt(maxPrice.minus(price)) ? price : maxPrice.minus(price);
    return feeRate.times(unfilled(o)).times(smallerRisk).round(2, Big.roundUp);
  });

  const closedPremium = (items: readonly FillView[]) => sum(items, (f) => big(f.pc_premium).times(big(f.closed_contracts)));
  const expiredPremium = (items: readonly FillView[]) => sum(items, (f) => big(f.pc_premium).times(big(f.expired_contracts)));

  // A fill's `closing` contracts closed earlier positions when it executed: the fill opened only the rest.
  const opening = (f: FillView) => maxOf(big(f.filled).minus(big(f.closing)), ZERO);

  const totalFees = sum(input.feeEntries, (e) => big(e.amount)).times(-1);
  const closedNet = sum(fills, (f) => big(f.closed_net_pnl));
  const expiredNet = sum(fills, (f) => big(f.expired_net_pnl));
  const expiredGross = sum(fills, (f) => big(f.expired_pnl));
  const totalNet = closedNet.plus(expiredNet);
  const openPotentialProfit = openToWin.minus(openPotentialFee);

  let lastSettledAt: number | null = null;
  for (const fill of fills) {
    if (!fill.settled_at) continue;
    const at = Date.parse(fill.settled_at) * 1000;
    if (!Number.isNaN(at) && (lastSettledAt === null || at > lastSettledAt)) lastSettledAt = at;
  }

  const settlementsOf = (items: readonly FillView[]) => items.reduce((n, f) => n + (f.settlements_count ?? 0), 0);

  return {
    position: s(position),
    available_position: s(availablePosition),
    contracts_traded: s(sum(fills, opening)),
    buy_contracts_traded: s(sum(buys(fills), opening)),
    sell_contracts_traded: s(sum(sells(fills), opening)),
    contracts_closed: s(sum(fills, (f) => big(f.closed_contracts))),
    buy_contracts_closed: s(sum(buys(fills), (f) => big(f.closed_contracts))),
    sell_contracts_closed: s(sum(sells(fills), (f) => big(f.closed_contracts))),
    contracts_expired: s(sum(fills, (f) => big(f.expired_contracts))),
    buy_contracts_expired: s(sum(buys(fills), (f) => big(f.expired_contracts))),
    sell_contracts_expired: s(sum(sells(fills), (f) => big(f.expired_contracts))),
    contracts_settled: s(sum(fills, (f) => big(f.settled_contracts))),
    buy_contracts_settled: s(sum(buys(fills), (f) => big(f.settled_contracts))),
    sell_contracts_settled: s(sum(sells(fills), (f) => big(f.settled_contracts))),
    contracts_in_orders: s(sum(liveOrders, unfilled)),
    contracts_in_buy_orders: s(sum(buys(liveOrders), unfilled)),
    contracts_in_sell_orders: s(sum(sells(liveOrders), unfilled)),
    cancelled_contracts: s(sum(cancelledOrders, unfilled)),
    cancelled_buy_contracts: s(sum(buys(cancelledOrders), unfilled)),
    cancelled_sell_contracts: s(sum(sells(cancelledOrders), unfilled)),
    orders: orders.length,
    buy_orders: buys(orders).length,
    sell_orders: sells(orders).length,
    open_order_count: liveOrders.length,
    cancelled_orders: cancelledOrders.length,
    cancelled_buy_orders: buys(cancelledOrders).length,
    cancelled_sell_orders: sells(cancelledOrders).length,
    rejected_orders: rejectedOrders.length,
    rejected_buy_orders: buys(rejectedOrders).length,
    rejected_sell_orders: sells(rejectedOrders).length,
    trade_count: fills.length,
    buy_trade_count: buys(fills).length,
    sell_trade_count: sells(fills).length,
    open_trade_count: openFills.length,
    settlements: settlementsOf(fills),
    buy_settlements: settlementsOf(buys(fills)),
    sell_settlements: settlementsOf(sells(fills)),
    order_liability: s(orderLiability),
    buy_order_liability: s(buyOrderLiability),
    sell_order_liability: s(sellOrderLiability),
    position_premium_liability: s(openRisk),
    total_liability: s(orderLiability.plus(openRisk)),
    max_liability_loss: s(openRisk),
    max_liability_win: s(openToWin.times(-1)),
    max_risk: s(openRisk.plus(orderLiability)),
    open_risk: s(openRisk),
    original_risk: s(sum(fills, (f) => big(f.original_risk))),
    buy_original_risk: s(sum(buys(fills), (f) => big(f.original_risk))),
    sell_original_risk: s(sum(sells(fills), (f) => big(f.original_risk))),
    open_premium: s(openPremium),
    average_open_premium: openContracts.gt(0) ? s(openPremium.div(openContracts).round(9)) : '0',
    closed_premium: s(closedPremium(fills)),
    closed_buy_premium: s(closedPremium(buys(fills))),
    closed_sell_premium: s(closedPremium(sells(fills))),
    expired_premium: s(expiredPremium(fills)),
    expired_buy_premium: s(expiredPremium(buys(fills))),
    expired_sell_premium: s(expiredPremium(sells(fills))),
    total_fees: s(totalFees),
    closed_fees: s(sum(fills, (f) => big(f.closed_fee))),
    expired_fees: s(sum(fills, (f) => big(f.expired_fee))),
    max_potential_fee: s(openPotentialFee.plus(potentialOrderTradeFee)),
    open_potential_fee: s(openPotentialFee),
    potential_order_trade_fee: s(potentialOrderTradeFee),
    // closes execute within one engine step: nothing is ever waiting to close
    pending_close_fee: '0',
    closed_gross_pnl: s(sum(fills, (f) => big(f.closed_pnl))),
    closed_net_pnl: s(closedNet),
    expired_gross_pnl: s(expiredGross),
    expired_net_pnl: s(expiredNet),
    total_settlement_pnl: s(expiredGross),
    total_net_pnl: s(totalNet),
    max_potential_profit: s(totalNet.plus(openPotentialProfit)),
    open_potential_profit: s(openPotentialProfit),
    pending_close_pnl: '0',
    market_max_price: input.maxPrice,
    last_settled_at: lastSettledAt,
  };
}
