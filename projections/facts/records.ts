// A read model keeps each entity's REST view (its `doc`); these read a stored view back into the
// record the fold works on (domain/readModel/records.ts). Views are exact (money keeps every
// digit, quantities nine places), so a record read back renders to the same view.

import { centsOf, decimalOf, minus, nanosOf, plus } from '../../domain/money/decimal.ts';
import {
  emptyMarketCatalogue,
  type AccountRecord,
  type FillRecord,
  type FundsFigures,
  type MarketCatalogueRecord,
  type MarketRecord,
  type OrderRecord,
  type PositionRecord,
  type SportEventRecord,
} from '../../domain/readModel/records.ts';
import type {
  AccountView,
  BalanceView,
  FillView,
  MarketCatalogueView,
  MarketStateView,
  OrderView,
  PositionView,
  SportEventView,
} from '../../domain/views.ts';

/** An account with its balance: what the fold keeps for both views. */
export interface AccountBalance extends AccountRecord {
  funds: FundsFigures;
}

/** The fields of an order's view its record is read from (the others are derived or constant). */
export type OrderViewFields = Pick<
  OrderView,
  | 'id'
  | 'account_id'
  | 'market_id'
  | 'action'
  | 'order_type'
  | 'status'
  | 'quantity'
  | 'filled'
  | 'price'
  | 'total_value'
  | 'client_order_id'
  | 'device_id'
  | 'ip_address'
  | 'expiration'
  | 'expiration_time'
  | 'expires_at'
  | 'accepted_at'
  | 'delayed_until'
  | 'inserted_at'
  | 'placed_pre_start'
  | 'cancellation_reason'
  | 'rejection_reason'
  | 'cancel_on_disconnect'
  | 'seq'
>;

export function orderRecordOf(view: OrderViewFields): OrderRecord {
  return {
    id: view.id,
    accountId: view.account_id,
    marketId: view.market_id,
    action: view.action,
    orderType: view.order_type,
    status: view.status,
    quantityNanos: nanosOf(view.quantity),
    filledNanos: nanosOf(view.filled),
    priceCents: view.price === null ? null : centsOf(view.price),
    totalValue: decimalOf(view.total_value),
    clientOrderId: view.client_order_id,
    deviceId: view.device_id,
    ipAddress: view.ip_address,
    expiration: view.expiration,
    expirationTime: view.expiration_time,
    expiresAt: view.expires_at,
    acceptedAt: view.accepted_at,
    delayedUntil: view.delayed_until,
    insertedAt: view.inserted_at,
    placedPreStart: view.placed_pre_start,
    cancellationReason: view.cancellation_reason,
    rejectionReason: view.rejection_reason,
    cancelOnDisconnect: view.cancel_on_disconnect,
    seq: view.seq,
  };
}

export function fillRecordOf(view: FillView): FillRecord {
  const tradeFee = decimalOf(view.trade_fee);
  const settlementFee = decimalOf(view.settlement_fee ?? '0');
  return {
    id: view.trade_id,
    orderId: view.order_id,
    accountId: view.account_id,
    marketId: view.market_id,
    eventId: view.event_id ?? '',
    clientOrderId: view.client_order_id,
    action: view.action,
    liquidity: view.liquidity_action,
    status: view.status,
    priceCents: centsOf(view.price),
    nanos: nanosOf(view.filled),
    originalNanos: nanosOf(view.original_filled),
    originalPriceCents: centsOf(view.original_price),
    amended: view.amended,
    lastModifiedAt: view.last_modified_at,
    closingNanos: nanosOf(view.closing),
    closedNanos: nanosOf(view.closed_contracts),
    expiredNanos: nanosOf(view.expired_contracts),
    closedPnl: decimalOf(view.closed_pnl),
    expiredPnl: decimalOf(view.expired_pnl),
    tradeFee,
    unroundedFee: decimalOf(view.unrounded_trade_fee),
    feeRefunded: minus(plus(tradeFee, settlementFee), decimalOf(view.total_fee)),
    points: view.points,
    settlementsCount: view.settlements_count,
    placedPreStart: view.placed_pre_start,
    preStart: view.pre_start,
    deviceId: view.device_id,
    ipAddress: view.ip_address,
    // the risk and the gain per contract add up to max_price on either side
    maxPriceCents: centsOf(view.pc_risk) + centsOf(view.pc_to_win),
    openedAt: view.opened_at,
    expiresAt: view.expires_at,
    settledAt: view.settled_at === null ? null : Date.parse(view.settled_at) * 1000,
    insertedAt: view.inserted_at,
    updatedAt: view.updated_at,
    seq: view.seq,
    feeEntryId: view.fee_entry_id ?? null,
    settlementFee,
  };
}

export function accountRecordOf(account: AccountView, balance: BalanceView | null): AccountBalance {
  return {
    id: account.account_id,
    userId: account.user_id,
    status: account.status,
    firstName: account.first_name,
    lastName: account.last_name,
    email: account.email,
    jurisdiction: account.jurisdiction,
    feeSchedule: account.fee_schedule,
    baseFeePercent: account.base_fee_percent,
    makerFactor: account.maker_factor,
    takerFactor: account.taker_factor,
    loyaltyTier: account.loyalty_tier,
    points: balance?.points ?? 0,
    createdAt: account.created_at,
    updatedAt: account.updated_at,
    cash: decimalOf(balance?.account_balance ?? '0'),
    totals: {
      deposits: decimalOf(balance?.total_deposits ?? '0'),
      withdrawals: decimalOf(balance?.total_withdrawals ?? '0'),
      adjustments: decimalOf(balance?.total_adjustments ?? '0'),
      fees: decimalOf(balance?.total_fees ?? '0'),
      settlementPnl: decimalOf(balance?.total_settlement_pnl ?? '0'),
      traded: decimalOf(balance?.total_traded ?? '0'),
    },
    tradeCount: balance?.total_trade_count ?? 0,
    funds: balance
      ? {
          buyOrders: balance.buy_order_liability,
          sellOrders: balance.sell_order_liability,
          positions: balance.position_premium_liability,
          available: balance.available_balance,
        }
      : { buyOrders: '0.00', sellOrders: '0.00', positions: '0.00', available: '0.00' },
  };
}

export function positionRecordOf(view: PositionView): PositionRecord {
  return {
    accountId: view.account_id,
    marketId: view.market_id,
    positionNanos: nanosOf(view.position),
    openPremium: decimalOf(view.premium),
    realizedPnl: decimalOf(view.realized_pnl),
    fees: decimalOf(view.fees),
    updatedAt: view.updated_at,
  };
}

export function marketRecordOf(view: MarketStateView): MarketRecord {
  return {
    id: view.market_id,
    eventId: view.event_id,
    title: view.title,
    shortTitle: view.short_title,
    question: view.question,
    rules: view.rules,
    symbol: view.symbol,
    groupingId: view.grouping_id,
    groupingName: view.grouping_name,
    featured: view.featured,
    status: view.status,
    trading: view.trading,
    maxPriceCents: centsOf(view.max_price),
    maxPrice: decimalOf(view.max_price),
    inPlayDelaySec: view.in_play_delay_sec,
    pointsCost: view.points_cost,
    result: view.result,
    settledAt: view.settled_at,
    lastTradedCents: view.last_traded_price === null ? null : centsOf(view.last_traded_price),
    createdAt: view.created_at,
    updatedAt: view.updated_at,
    seq: view.seq,
    ...marketCatalogueRecordOf(view),
    settlementFeePercent: view.settlement_fee_percent ?? null,
    eventFeePercent: view.event_fee_percent ?? null,
    groupFeePercent: view.group_fee_percent ?? null,
  };
}

/** The catalogue fields of a stored market view (views stored before they existed have none: the defaults). */
export function marketCatalogueRecordOf(view: Partial<MarketCatalogueView>): MarketCatalogueRecord {
  const empty = emptyMarketCatalogue();
  return {
    description: view.description ?? empty.description,
    groupTitle: view.group_title ?? empty.groupTitle,
    specifier: view.specifier ?? empty.specifier,
    positionLabel: view.position ?? empty.positionLabel,
    poweredBy: view.powered_by ?? empty.poweredBy,
    filters: view.filters ? [...view.filters] : empty.filters,
    tradingFilters: view.trading_filters ? [...view.trading_filters] : empty.tradingFilters,
    keywords: view.keywords ? [...view.keywords] : empty.keywords,
    participants: view.participants ? [...view.participants] : empty.participants,
    statDetail: view.stat_detail ?? empty.statDetail,
    featuredHome: view.featured_home ?? empty.featuredHome,
    manualProbability: view.manual_probability ?? empty.manualProbability,
    archivedAt: view.archived_at ?? empty.archivedAt,
  };
}

export function sportEventRecordOf(view: SportEventView): SportEventRecord {
  return {
    id: view.event_id,
    title: view.title,
    shortTitle: view.short_title,
    eventType: view.event_type,
    sport: view.sport,
    competition: view.competition,
    participants: [...view.participants],
    start: view.start,
    startedAt: view.started_at,
    eventFeePercent: view.event_fee_percent ?? null,
  };
}
