// What a read model knows of each entity, in the engine's own units (cents, nano-contracts,
// exact decimals): enough to render the entity's REST view (render.ts). The engine's state
// extends these records (domain/engine/state.ts), so its answers render from its state; the
// projectors keep them by folding the engine's facts (projections/facts). Both change a record
// only through the domain's evolve (domain/evolve/).
//
// One order, its shapes, each for one reader:
// - OrderRecord (here): the order's own fields, what the engine and every read model keep alike;
// - OrderState (domain/engine/state.ts): an OrderRecord and what only the matching engine needs
//   (the price its reservation is held at, its arrival for uncrossing);
// - OrderView (domain/views.ts): the REST "Order object" rendered from a record, with the `seq`
//   of the step that last changed it (what read models store and the feed orders deltas by);
// - OrderWire (projections/core/render.ts): an OrderView as a REST answer shows it (no `seq`).
// Fills, positions, balances and markets follow the same pattern.

import type { Decimal } from '../money/decimal.ts';
import type {
  AccountStatus,
  FeeSchedule,
  FillStatus,
  Jurisdiction,
  LedgerEntryType,
  LedgerEntryView,
  MarketResult,
  MarketStatus,
  OrderStatus,
} from '../views.ts';

export interface OrderRecord {
  id: string;
  accountId: string;
  marketId: string;
  action: 'buy' | 'sell';
  orderType: 'limit' | 'market';
  status: OrderStatus;
  quantityNanos: number;
  filledNanos: number;
  priceCents: number | null;
  /** Sum over its fills of contracts x price (the orders' own values are the execution values). */
  totalValue: Decimal;
  clientOrderId: string | null;
  deviceId: string | null;
  ipAddress: string | null;
  expiration: 'good_till_start' | 'good_till_time' | null;
  expirationTime: number | null;
  expiresAt: number | null;
  acceptedAt: number | null;
  delayedUntil: number | null;
  insertedAt: number;
  placedPreStart: boolean;
  cancellationReason: string | null;
  rejectionReason: string | null;
  cancelOnDisconnect: boolean;
  /** Sequence of the step that last changed it. */
  seq: number;
}

export interface FillRecord {
  id: string; // the fill's own id (FillView.trade_id)
  orderId: string;
  accountId: string;
  marketId: string;
  eventId: string;
  clientOrderId: string | null;
  action: 'buy' | 'sell';
  liquidity: 'provider' | 'taker';
  status: FillStatus;
  priceCents: number;
  nanos: number;
  originalNanos: number;
  originalPriceCents: number;
  amended: boolean;
  lastModifiedAt: number | null;
  /** Part of this fill that closed earlier lots. */
  closingNanos: number;
  /** Opening part of this fill later closed by other trades / settled at expiry. */
  closedNanos: number;
  expiredNanos: number;
  closedPnl: Decimal;
  expiredPnl: Decimal;
  tradeFee: Decimal;
  unroundedFee: Decimal;
  feeRefunded: Decimal;
  points: number;
  settlementsCount: number;
  placedPreStart: boolean;
  preStart: boolean;
  deviceId: string | null;
  ipAddress: string | null;
  maxPriceCents: number;
  openedAt: number;
  expiresAt: number | null;
  settledAt: number | null;
  insertedAt: number;
  updatedAt: number;
  seq: number;
  /** Id of the fill's trade fee entry (what a refund of it names as `fee_id`); read models only. */
  feeEntryId?: string | null;
  /** Its share of settlement-side fees (market, event, market group), net of refunds; read models only. */
  settlementFee?: Decimal;
}

export interface Totals {
  deposits: Decimal;
  withdrawals: Decimal;
  adjustments: Decimal;
  fees: Decimal;
  settlementPnl: Decimal;
  traded: Decimal;
}

/** An account with the cash side of its balance (what its funds reserve comes from the engine: FundsFigures). */
export interface AccountRecord {
  id: string;
  userId: string;
  status: AccountStatus;
  firstName: string | null;
  lastName: string | null;
  email: string | null;
  jurisdiction: Jurisdiction;
  feeSchedule: FeeSchedule;
  baseFeePercent: number | null;
  makerFactor: number | null;
  takerFactor: number | null;
  loyaltyTier: string;
  points: number;
  createdAt: number;
  updatedAt: number;
  /** account_balance: cash, exact. */
  cash: Decimal;
  totals: Totals;
  tradeCount: number;
}

/** What an account's funds reserve and leave available, as its balance shows them (texts, rounded by the engine). */
export interface FundsFigures {
  buyOrders: string;
  sellOrders: string;
  positions: string;
  available: string;
}

/** One account's holding in one market. */
export interface PositionRecord {
  accountId: string;
  marketId: string;
  /** Signed net contracts: > 0 long, < 0 short. */
  positionNanos: number;
  /** Sum of the open lots' premiums (contracts x price). */
  openPremium: Decimal;
  realizedPnl: Decimal;
  fees: Decimal;
  updatedAt: number;
}

export interface SportEventRecord {
  id: string;
  title: string;
  shortTitle: string | null;
  eventType: string | null;
  sport: string | null;
  competition: string | null;
  participants: string[];
  start: number;
  startedAt: number | null;
  /** Percent of each account's net winnings across the event, charged when its last market settles (null: none). */
  eventFeePercent: number | null;
}

export interface MarketRecord extends MarketCatalogueRecord {
  id: string;
  eventId: string;
  title: string;
  shortTitle: string | null;
  question: string | null;
  rules: string | null;
  symbol: string | null;
  groupingId: string;
  groupingName: string | null;
  featured: boolean;
  status: MarketStatus;
  trading: boolean;
  maxPriceCents: number;
  maxPrice: Decimal;
  inPlayDelaySec: number;
  pointsCost: number;
  result: MarketResult | null;
  settledAt: number | null;
  lastTradedCents: number | null;
  createdAt: number;
  updatedAt: number;
  seq: number;
  /** Settlement-side fee percents in force for the market: its own, its event's, its group's (null: none). */
  settlementFeePercent: number | null;
  eventFeePercent: number | null;
  groupFeePercent: number | null;
}

/**
 * What the operator describes a market with beyond what trading needs (the Market object's catalogue fields):
 * texts, lists of strings, the stat line (any JSON), display flags, and when it was archived.
 * A market's own `participants` replace its event's when set (null: the event's).
 */
export interface MarketCatalogueRecord {
  description: string | null;
  groupTitle: string | null;
  specifier: string | null;
  positionLabel: string | null;
  poweredBy: string | null;
  filters: string[];
  tradingFilters: string[];
  keywords: string[];
  participants: string[] | null;
  statDetail: unknown;
  featuredHome: boolean;
  manualProbability: boolean;
  /** When archived (out of the default market list, and of the live index); null until then. */
  archivedAt: number | null;
}

/** A market listed without any of them. */
export function emptyMarketCatalogue(): MarketCatalogueRecord {
  return {
    description: null,
    groupTitle: null,
    specifier: null,
    positionLabel: null,
    poweredBy: null,
    filters: [],
    tradingFilters: [],
    keywords: [],
    participants: null,
    statDetail: null,
    featuredHome: false,
    manualProbability: false,
    archivedAt: null,
  };
}

/** A ledger entry as recorded; its time and sequence are its step's. */
export interface LedgerEntryRecord {
  id: string;
  accountId: string;
  type: LedgerEntryType;
  /** Signed balance effect (a withdrawal negative, fees never positive). */
  amount: Decimal;
  points?: number;
  eventId?: string | null;
  marketId?: string | null;
  feeSource?: LedgerEntryView['fee_source'];
  tradeId?: string | null;
  settlementId?: string | null;
  paymentId?: string | null;
  method?: string | null;
  reason?: string | null;
  subMethod?: string | null;
  /** For a refund: the fee it refunds. */
  feeId?: string | null;
  /** For a referral entry: who referred whom. */
  refereeAccountId?: string | null;
  referrerAccountId?: string | null;
}
