// The engine's in-memory state: accounts with balances and per-market exposure, sport events,
// markets with their books, live orders and unsettled fills, and the internal double-entry
// ledger. Only the engine's step functions change it; snapshot.ts serializes it.

import type { OrderBook } from '../book/book.ts';
import type { Decimal } from '../money/decimal.ts';
import type {
  AccountStatus, FeeSchedule, FillStatus, Jurisdiction, MarketResult, MarketStatus, OrderStatus,
} from '../views.ts';
import type { FeeRates } from './fees.ts';

export interface Totals {
  deposits: Decimal;
  withdrawals: Decimal;
  adjustments: Decimal;
  fees: Decimal;
  settlementPnl: Decimal;
  traded: Decimal;
}

export interface AccountState {
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
  /** Sum of the per-market liabilities (exact), and its order parts. */
  liability: Decimal;
  buyOrderLiability: Decimal;
  sellOrderLiability: Decimal;
  exposures: Map<string, Exposure>; // by market id
  rates: FeeRates;
}

/** One lot of an open position: the opening part of one fill, closed first-in first-out. */
export interface Lot {
  fillId: string;
  nanos: number;
  priceCents: number;
}

/** One account in one market: its live orders' reservations and its position. */
export interface Exposure {
  accountId: string;
  marketId: string;
  /** Sum over live buy orders of remaining x reserve price. */
  buyExposure: Decimal;
  /** Sum over live sell orders of remaining x (max_price - reserve price). */
  sellExposure: Decimal;
  buyFeeReserve: Decimal;
  sellFeeReserve: Decimal;
  /** Signed net contracts: > 0 long, < 0 short. */
  positionNanos: number;
  lots: Lot[];
  /** Sum of lot premiums (contracts x price). */
  openPremium: Decimal;
  /** Cached worst-case loss over both outcomes, with fee reserves. */
  liability: Decimal;
  realizedPnl: Decimal;
  fees: Decimal;
  amountRisked: Decimal;
  pointsPending: number;
  updatedAt: number;
}

export interface OrderState {
  id: string;
  accountId: string;
  marketId: string;
  action: 'buy' | 'sell';
  orderType: 'limit' | 'market';
  status: OrderStatus;
  quantityNanos: number;
  filledNanos: number;
  priceCents: number | null;
  /** Price the reservation is held at: the limit, or for a market order the worst price it may reach. */
  reserveCents: number;
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
  /** Sequence of the input that placed it: time priority when a pre-open market opens. */
  arrivalSeq: number;
  seq: number;
}

export interface FillState {
  id: string; // the fill's own id (FillView.trade_id)
  tradeId: string; // the trade both fills belong to
  counterpartFillId: string;
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
}

export interface SportEventState {
  id: string;
  title: string;
  shortTitle: string | null;
  eventType: string | null;
  sport: string | null;
  competition: string | null;
  participants: string[];
  start: number;
  startedAt: number | null;
  marketIds: string[];
}

export interface MarketState {
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
  book: OrderBook;
  /** Live orders of this market, in arrival order (accepted, delayed and resting ones). */
  liveOrderIds: Set<string>;
  /** Accounts with an exposure here. */
  accountIds: Set<string>;
  /** Every fill of this market until it is resulted or voided. */
  fillIds: Set<string>;
}

/** Internal ledger accounts: member cash lives on AccountState; these are the other sides. */
export interface LedgerBooks {
  outside: Decimal; // the outside world: deposits, withdrawals, adjustments
  feeRevenue: Decimal;
  pools: Map<string, Decimal>; // per-market settlement pool
}

export interface EngineState {
  seq: number;
  accounts: Map<string, AccountState>;
  events: Map<string, SportEventState>;
  markets: Map<string, MarketState>;
  orders: Map<string, OrderState>; // live orders only
  /** Orders no longer live: id -> owning account (duplicate ids, "can no longer be cancelled"). */
  finishedOrders: Map<string, string>;
  fills: Map<string, FillState>; // fills of markets not yet resulted or voided
  /** Fill id -> market id for fills of markets already resulted or voided (amendment answers). */
  settledFills: Map<string, string>;
  ledger: LedgerBooks;
  /** Live orders with a time to act on: good_till_time expiries and in-play delays. */
  timedOrderIds: Set<string>;
}
