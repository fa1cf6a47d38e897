// One `market_stats` row, kept incrementally. Every order, fill and fee entry contributes an
// additive vector of sums (counts, contracts, dollars); when a snapshot replaces an older one the
// projector adds the new contribution and subtracts the old, so a change costs the same however
// many orders the account has in the market. The row's fields are then derived from the sums,
// the latest position and the market's max_price. Every field is defined in docs/MEMBER.md.

import {
  abs,
  ceilCent,
  compare,
  decimalOf,
  decimalText,
  integerDecimal,
  isNegative,
  isPositive,
  isZero,
  minus,
  negated,
  plus,
  quotient,
  times,
  ZERO,
  type Decimal,
} from '../../../domain/money/decimal.ts';
import type { FillView, LedgerEntryView, OrderView, PositionView } from '../../../domain/views.ts';
import { LIVE_ORDER_STATUSES } from '../../../domain/views.ts';

export const SUM_KEYS = [
  // orders
  'buy_orders',
  'sell_orders',
  'open_buy_orders',
  'open_sell_orders',
  'cancelled_buy_orders',
  'cancelled_sell_orders',
  'rejected_buy_orders',
  'rejected_sell_orders',
  'contracts_in_buy_orders',
  'contracts_in_sell_orders',
  'cancelled_buy_contracts',
  'cancelled_sell_contracts',
  'buy_order_liability',
  'sell_order_liability',
  'order_fee_base',
  // fills
  'buy_trade_count',
  'sell_trade_count',
  'open_trade_count',
  'buy_settlements',
  'sell_settlements',
  'buy_contracts_traded',
  'sell_contracts_traded',
  'buy_contracts_closed',
  'sell_contracts_closed',
  'buy_contracts_expired',
  'sell_contracts_expired',
  'buy_contracts_settled',
  'sell_contracts_settled',
  'buy_original_risk',
  'sell_original_risk',
  'closed_buy_premium',
  'closed_sell_premium',
  'expired_buy_premium',
  'expired_sell_premium',
  'open_risk',
  'open_to_win',
  'open_premium',
  'open_contracts',
  'open_potential_fee',
  'closed_fees',
  'expired_fees',
  'closed_gross_pnl',
  'closed_net_pnl',
  'expired_gross_pnl',
  'expired_net_pnl',
  // fee ledger entries (signed balance effect)
  'fee_amounts',
] as const;

export type SumKey = (typeof SUM_KEYS)[number];
/** Stored form: decimal strings. */
export type StoredSums = Partial<Record<SumKey, string>>;
export type Contribution = Partial<Record<SumKey, Decimal>>;

/** Decimal fields (strings) and count fields (integers) of the row; identity and times are added by the reader. */
export interface MarketStatsValues {
  position: string;
  available_position: string;
  contracts_traded: string;
  buy_contracts_traded: string;
  sell_contracts_traded: string;
  contracts_closed: string;
  buy_contracts_closed: string;
  sell_contracts_closed: string;
  contracts_expired: string;
  buy_contracts_expired: string;
  sell_contracts_expired: string;
  contracts_settled: string;
  buy_contracts_settled: string;
  sell_contracts_settled: string;
  contracts_in_orders: string;
  contracts_in_buy_orders: string;
  contracts_in_sell_orders: string;
  cancelled_contracts: string;
  cancelled_buy_contracts: string;
  cancelled_sell_contracts: string;
  orders: number;
  buy_orders: number;
  sell_orders: number;
  open_order_count: number;
  cancelled_orders: number;
  cancelled_buy_orders: number;
  cancelled_sell_orders: number;
  rejected_orders: number;
  rejected_buy_orders: number;
  rejected_sell_orders: number;
  trade_count: number;
  buy_trade_count: number;
  sell_trade_count: number;
  open_trade_count: number;
  settlements: number;
  buy_settlements: number;
  sell_settlements: number;
  order_liability: string;
  buy_order_liability: string;
  sell_order_liability: string;
  position_premium_liability: string;
  total_liability: string;
  max_liability_loss: string;
  max_liability_win: string;
  max_risk: string;
  open_risk: string;
  original_risk: string;
  buy_original_risk: string;
  sell_original_risk: string;
  open_premium: string;
  average_open_premium: string;
  closed_premium: string;
  closed_buy_premium: string;
  closed_sell_premium: string;
  expired_premium: string;
  expired_buy_premium: string;
  expired_sell_premium: string;
  total_fees: string;
  closed_fees: string;
  expired_fees: string;
  max_potential_fee: string;
  open_potential_fee: string;
  potential_order_trade_fee: string;
  pending_close_fee: string;
  closed_gross_pnl: string;
  closed_net_pnl: string;
  expired_gross_pnl: string;
  expired_net_pnl: string;
  total_settlement_pnl: string;
  total_net_pnl: string;
  max_potential_profit: string;
  open_potential_profit: string;
  pending_close_pnl: string;
  market_max_price: string;
}

const ONE = integerDecimal(1);
const CANCELLED: ReadonlySet<string> = new Set(['cancelled', 'partially_cancelled']);
const LIVE: ReadonlySet<string> = new Set(LIVE_ORDER_STATUSES);

const big = (value: string | null | undefined) =>
  value === null || value === undefined || value === '' ? ZERO : decimalOf(value);
const maxOf = (a: Decimal, b: Decimal) => (compare(a, b) > 0 ? a : b);
const minOf = (a: Decimal, b: Decimal) => (compare(a, b) < 0 ? a : b);

/** What an order's contribution depends on (the fields of its view read here). */
export type OrderFacts = Pick<
  OrderView,
  'id' | 'account_id' | 'market_id' | 'action' | 'status' | 'price' | 'quantity' | 'filled'
>;

/** Contracts of an order still working (quantity − filled). */
const unfilled = (order: Pick<OrderFacts, 'quantity' | 'filled'>) =>
  maxOf(minus(big(order.quantity), big(order.filled)), ZERO);

export function orderContribution(order: OrderFacts, maxPriceText: string): Contribution {
  const maxPrice = big(maxPriceText);
  const side = order.action === 'buy' ? 'buy' : 'sell';
  const out: Contribution = { [`${side}_orders`]: ONE };
  if (LIVE.has(order.status)) {
    const price = big(order.price);
    const remaining = unfilled(order);
    // risk per contract of a resting order: its price on a buy, max_price − price on a sell
    const risk = side === 'buy' ? price : minus(maxPrice, price);
    out[`open_${side}_orders`] = ONE;
    out[`contracts_in_${side}_orders`] = remaining;
    out[`${side}_order_liability`] = times(remaining, risk);
    // the engine's fee base: contracts × min(price, max_price − price)
    out.order_fee_base = times(remaining, minOf(price, minus(maxPrice, price)));
  } else if (CANCELLED.has(order.status)) {
    out[`cancelled_${side}_orders`] = ONE;
    out[`cancelled_${side}_contracts`] = unfilled(order);
  } else if (order.status === 'rejected') {
    out[`rejected_${side}_orders`] = ONE;
  }
  return out;
}

export function fillContribution(fill: FillView): Contribution {
  if (fill.status === 'cancelled') return {};
  const side = fill.action === 'buy' ? 'buy' : 'sell';
  const premium = big(fill.pc_premium);
  const out: Contribution = {
    [`${side}_trade_count`]: ONE,
    [`${side}_settlements`]: integerDecimal(fill.settlements_count ?? 0),
    // a fill's `closing` contracts closed earlier positions when it executed: it opened only the rest
    [`${side}_contracts_traded`]: maxOf(minus(big(fill.filled), big(fill.closing)), ZERO),
    [`${side}_contracts_closed`]: big(fill.closed_contracts),
    [`${side}_contracts_expired`]: big(fill.expired_contracts),
    [`${side}_contracts_settled`]: big(fill.settled_contracts),
    [`${side}_original_risk`]: big(fill.original_risk),
    [`closed_${side}_premium`]: times(premium, big(fill.closed_contracts)),
    [`expired_${side}_premium`]: times(premium, big(fill.expired_contracts)),
    closed_fees: big(fill.closed_fee),
    expired_fees: big(fill.expired_fee),
    closed_gross_pnl: big(fill.closed_pnl),
    closed_net_pnl: big(fill.closed_net_pnl),
    expired_gross_pnl: big(fill.expired_pnl),
    expired_net_pnl: big(fill.expired_net_pnl),
  };
  if ((fill.status === 'created' || fill.status === 'open') && isPositive(big(fill.remaining))) {
    out.open_trade_count = ONE;
    out.open_risk = big(fill.remaining_risk);
    out.open_to_win = big(fill.remaining_to_win);
    out.open_premium = big(fill.remaining_premium);
    out.open_contracts = big(fill.remaining);
    out.open_potential_fee = big(fill.remaining_potential_fee);
  }
  return out;
}

export function feeContribution(entry: LedgerEntryView): Contribution {
  return entry.type === 'fee' || entry.type === 'fee_refund' ? { fee_amounts: big(entry.amount) } : {};
}

/** sums += sign × contribution (in place). */
export function addContribution(sums: Map<SumKey, Decimal>, contribution: Contribution, sign: 1 | -1): void {
  for (const [key, value] of Object.entries(contribution) as Array<[SumKey, Decimal]>) {
    if (isZero(value)) continue;
    sums.set(key, plus(sums.get(key) ?? ZERO, sign === 1 ? value : negated(value)));
  }
}

export function sumsFromStored(stored: StoredSums | null | undefined): Map<SumKey, Decimal> {
  const sums = new Map<SumKey, Decimal>();
  for (const [key, value] of Object.entries(stored ?? {})) if (value) sums.set(key as SumKey, decimalOf(value));
  return sums;
}

export function storedOf(sums: Map<SumKey, Decimal>): StoredSums {
  const out: StoredSums = {};
  for (const key of SUM_KEYS) {
    const value = sums.get(key);
    if (value && !isZero(value)) out[key] = decimalText(value);
  }
  return out;
}

interface DeriveInput {
  sums: Map<SumKey, Decimal>;
  position: PositionView | null;
  /** The market's max_price as the market states it. */
  maxPrice: string;
  /** The account's fee rate for orders (the engine's reserve rate: the larger of maker and taker). */
  orderFeeRate: string;
}

export function deriveMarketStats({
  sums,
  position: positionView,
  maxPrice,
  orderFeeRate,
}: DeriveInput): MarketStatsValues {
  const v = (key: SumKey) => sums.get(key) ?? ZERO;
  const n = (key: SumKey) => Number(decimalText(v(key)));
  const s = (value: Decimal) => decimalText(value);
  const both = (buy: SumKey, sell: SumKey) => plus(v(buy), v(sell));

  const position = big(positionView?.position);
  // contracts reserved by live orders on the closing side (sells against a long, buys against a short)
  const reserved = isPositive(position)
    ? v('contracts_in_sell_orders')
    : isNegative(position)
      ? v('contracts_in_buy_orders')
      : ZERO;
  const availableAbs = maxOf(minus(abs(position), reserved), ZERO);
  const orderLiability = both('buy_order_liability', 'sell_order_liability');
  const openRisk = v('open_risk');
  const openPotentialFee = v('open_potential_fee');
  // rounded up to the cent, as the engine rounds a trade fee (the rate and the base are never negative)
  const potentialOrderTradeFee = ceilCent(times(big(orderFeeRate), v('order_fee_base')));
  const totalNet = plus(v('closed_net_pnl'), v('expired_net_pnl'));
  const openPotentialProfit = minus(v('open_to_win'), openPotentialFee);
  const openContracts = v('open_contracts');

  return {
    position: s(position),
    available_position: s(isNegative(position) ? negated(availableAbs) : availableAbs),
    contracts_traded: s(both('buy_contracts_traded', 'sell_contracts_traded')),
    buy_contracts_traded: s(v('buy_contracts_traded')),
    sell_contracts_traded: s(v('sell_contracts_traded')),
    contracts_closed: s(both('buy_contracts_closed', 'sell_contracts_closed')),
    buy_contracts_closed: s(v('buy_contracts_closed')),
    sell_contracts_closed: s(v('sell_contracts_closed')),
    contracts_expired: s(both('buy_contracts_expired', 'sell_contracts_expired')),
    buy_contracts_expired: s(v('buy_contracts_expired')),
    sell_contracts_expired: s(v('sell_contracts_expired')),
    contracts_settled: s(both('buy_contracts_settled', 'sell_contracts_settled')),
    buy_contracts_settled: s(v('buy_contracts_settled')),
    sell_contracts_settled: s(v('sell_contracts_settled')),
    contracts_in_orders: s(both('contracts_in_buy_orders', 'contracts_in_sell_orders')),
    contracts_in_buy_orders: s(v('contracts_in_buy_orders')),
    contracts_in_sell_orders: s(v('contracts_in_sell_orders')),
    cancelled_contracts: s(both('cancelled_buy_contracts', 'cancelled_sell_contracts')),
    cancelled_buy_contracts: s(v('cancelled_buy_contracts')),
    cancelled_sell_contracts: s(v('cancelled_sell_contracts')),
    orders: n('buy_orders') + n('sell_orders'),
    buy_orders: n('buy_orders'),
    sell_orders: n('sell_orders'),
    open_order_count: n('open_buy_orders') + n('open_sell_orders'),
    cancelled_orders: n('cancelled_buy_orders') + n('cancelled_sell_orders'),
    cancelled_buy_orders: n('cancelled_buy_orders'),
    cancelled_sell_orders: n('cancelled_sell_orders'),
    rejected_orders: n('rejected_buy_orders') + n('rejected_sell_orders'),
    rejected_buy_orders: n('rejected_buy_orders'),
    rejected_sell_orders: n('rejected_sell_orders'),
    trade_count: n('buy_trade_count') + n('sell_trade_count'),
    buy_trade_count: n('buy_trade_count'),
    sell_trade_count: n('sell_trade_count'),
    open_trade_count: n('open_trade_count'),
    settlements: n('buy_settlements') + n('sell_settlements'),
    buy_settlements: n('buy_settlements'),
    sell_settlements: n('sell_settlements'),
    order_liability: s(orderLiability),
    buy_order_liability: s(v('buy_order_liability')),
    sell_order_liability: s(v('sell_order_liability')),
    position_premium_liability: s(openRisk),
    total_liability: s(plus(orderLiability, openRisk)),
    max_liability_loss: s(openRisk),
    max_liability_win: s(negated(v('open_to_win'))),
    max_risk: s(plus(openRisk, orderLiability)),
    open_risk: s(openRisk),
    original_risk: s(both('buy_original_risk', 'sell_original_risk')),
    buy_original_risk: s(v('buy_original_risk')),
    sell_original_risk: s(v('sell_original_risk')),
    open_premium: s(v('open_premium')),
    average_open_premium: isPositive(openContracts) ? s(quotient(v('open_premium'), openContracts, 9)) : '0',
    closed_premium: s(both('closed_buy_premium', 'closed_sell_premium')),
    closed_buy_premium: s(v('closed_buy_premium')),
    closed_sell_premium: s(v('closed_sell_premium')),
    expired_premium: s(both('expired_buy_premium', 'expired_sell_premium')),
    expired_buy_premium: s(v('expired_buy_premium')),
    expired_sell_premium: s(v('expired_sell_premium')),
    total_fees: s(negated(v('fee_amounts'))),
    closed_fees: s(v('closed_fees')),
    expired_fees: s(v('expired_fees')),
    max_potential_fee: s(plus(openPotentialFee, potentialOrderTradeFee)),
    open_potential_fee: s(openPotentialFee),
    potential_order_trade_fee: s(potentialOrderTradeFee),
    // closes execute within one engine step: nothing is ever waiting to close
    pending_close_fee: '0',
    closed_gross_pnl: s(v('closed_gross_pnl')),
    closed_net_pnl: s(v('closed_net_pnl')),
    expired_gross_pnl: s(v('expired_gross_pnl')),
    expired_net_pnl: s(v('expired_net_pnl')),
    total_settlement_pnl: s(v('expired_gross_pnl')),
    total_net_pnl: s(totalNet),
    max_potential_profit: s(plus(totalNet, openPotentialProfit)),
    open_potential_profit: s(openPotentialProfit),
    pending_close_pnl: '0',
    market_max_price: maxPrice,
  };
}

/** Latest settlement time among fills (UNIX µs), or null. */
export function fillSettledAtUs(fill: FillView): number | null {
  if (!fill.settled_at || fill.status === 'cancelled') return null;
  const ms = Date.parse(fill.settled_at);
  return Number.isNaN(ms) ? null : ms * 1000;
}

interface MarketStatsInput {
  orders: readonly OrderFacts[];
  fills: readonly FillView[];
  position: PositionView | null;
  feeEntries: readonly LedgerEntryView[];
  maxPrice: string;
  orderFeeRate: string;
}

/** The whole row from scratch (the same sums the projector keeps incrementally). */
export function computeMarketStats(input: MarketStatsInput): MarketStatsValues & { last_settled_at: number | null } {
  const sums = new Map<SumKey, Decimal>();
  for (const order of input.orders) addContribution(sums, orderContribution(order, input.maxPrice), 1);
  for (const fill of input.fills) addContribution(sums, fillContribution(fill), 1);
  for (const entry of input.feeEntries) addContribution(sums, feeContribution(entry), 1);
  let lastSettledAt: number | null = null;
  for (const fill of input.fills) {
    const at = fillSettledAtUs(fill);
    if (at !== null && (lastSettledAt === null || at > lastSettledAt)) lastSettledAt = at;
  }
  return {
    ...deriveMarketStats({
      sums,
      position: input.position,
      maxPrice: input.maxPrice,
      orderFeeRate: input.orderFeeRate,
    }),
    last_settled_at: lastSettledAt,
  };
}
