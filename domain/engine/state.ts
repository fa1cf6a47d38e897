// The engine's in-memory state: accounts with balances and per-market exposure, sport events,
// markets with their books, live orders and unsettled fills, and the internal double-entry
// ledger. The engine's step functions change it as they state each fact, through the domain's
// evolve (domain/evolve/); the same functions fold a journal's facts into it from zero
// (domain/evolve/state.ts). snapshot.ts serializes it.

import type { OrderBook } from '../book/book.ts';
import type { Decimal } from '../money/decimal.ts';
import type {
  AccountRecord,
  FillRecord,
  MarketRecord,
  OrderRecord,
  PositionRecord,
  SportEventRecord,
} from '../readModel/records.ts';
import type { FeeRates } from './fees.ts';

export type { Totals } from '../readModel/records.ts';

export interface AccountState extends AccountRecord {
  /** Changed only by the ledger (ledger.ts `post`), which keeps the books' running sum. */
  readonly cash: AccountRecord['cash'];
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
export interface Exposure extends PositionRecord {
  /** Sum over live buy orders of remaining x reserve price. */
  buyExposure: Decimal;
  /** Sum over live sell orders of remaining x (max_price - reserve price). */
  sellExposure: Decimal;
  buyFeeReserve: Decimal;
  sellFeeReserve: Decimal;
  lots: Lot[];
  /** Cached worst-case loss over both outcomes, with fee reserves. */
  liability: Decimal;
  amountRisked: Decimal;
  pointsPending: number;
}

/**
 * The key of a live order's sharer. A symbol: the snapshot's encoder, the state hash, JSON and a
 * structured clone all pass over it, so it is never part of the state.
 */
export const ORDER_SHARER: unique symbol = Symbol('order sharer');

/**
 * A reader that holds a live order's object instead of a copy (the engine's published view holds
 * each order as the last batch that changed it left it; engine/liveView.ts), told just before the
 * engine changes the order: it takes its copy then. Every change of a live order is announced
 * first (StepContext.orderChanged), so an order nobody changes is never copied.
 */
export interface OrderSharer {
  /** `order` is about to change: keep a copy of it as it stands now. */
  orderChanging(order: OrderState): void;
}

export interface OrderState extends OrderRecord {
  /** Price the reservation is held at: the limit, or for a market order the worst price it may reach. */
  reserveCents: number;
  /** Sequence of the input that placed it: time priority when a pre-open market opens. */
  arrivalSeq: number;
  /** A reader that holds this very object as the order stands (see OrderSharer); none when absent or null. */
  [ORDER_SHARER]?: OrderSharer | null;
}

/** Tells the order's sharer, if any, that it is about to change (and forgets it: the sharer holds its copy after). */
export function releaseShared(order: OrderState): void {
  const sharer = order[ORDER_SHARER];
  if (sharer === undefined || sharer === null) return;
  order[ORDER_SHARER] = null;
  sharer.orderChanging(order);
}

export interface FillState extends FillRecord {
  tradeId: string; // the trade both fills belong to
  counterpartFillId: string;
}

export interface SportEventState extends SportEventRecord {
  marketIds: string[];
}

export interface MarketState extends MarketRecord {
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
  // changed only through the ledger (ledger.ts `post`, `setPool`, which keep the books' running sum, and the evolve they call)
  readonly outside: Decimal; // the outside world: deposits, withdrawals, adjustments
  readonly feeRevenue: Decimal;
  readonly pools: ReadonlyMap<string, Decimal>; // per-market settlement pool
}

/** One lot as a result settled it: enough to settle it again at another result. */
export interface SettledLot {
  fillId: string;
  nanos: number;
  priceCents: number;
}

/** A settlement-side fee charged to one account, with the part each fill carries (for its refund). */
export interface ChargedFee {
  /** The fee's ledger entry id (what a refund names as `fee_id`). */
  id: string;
  /** What was charged (>= 0). */
  amount: Decimal;
  shares: FeeShare[];
}

export interface FeeShare {
  fillId: string;
  amount: Decimal;
}

/** One fill's gross PnL in a settled market (closing trades and settlement): how fees are shared out. */
export interface FillPnl {
  fillId: string;
  pnl: Decimal;
}

/** One account in a market resulted win or lose: what a re-settlement and the event and group fees need. */
export interface SettledAccount {
  /** Long (true) or short at the result; `lots` are its open lots then. */
  long: boolean;
  lots: SettledLot[];
  /** The settlement transfer's amount. */
  settlementPnl: Decimal;
  /** Realised in the market, closing trades and settlement: its net winnings there, before fees. */
  netWinnings: Decimal;
  fills: FillPnl[];
  /** The market's settlement fee charged at the last (re)settlement; null when none was assessed. */
  fee: ChargedFee | null;
}

/**
 * Settlement-side fees (market, event, market group) and what they are assessed on: the group
 * fee percents (markets carry their own and their event's), every resulted market's accounts,
 * and the event and group fees charged so far (by scope key, then account), for refunds.
 */
export interface SettlementFeeBooks {
  groupPercents: Map<string, number>;
  settled: Map<string, Map<string, SettledAccount>>;
  scopeCharges: Map<string, Map<string, ChargedFee>>;
}

/** Who referred whom (by referee) and the points a referrer is credited when the referee first trades. */
export interface ReferralBooks {
  points: number;
  byReferee: Map<string, Referral>;
}

export interface Referral {
  referrerId: string;
  createdAt: number;
  credited: boolean;
}

export interface EngineState {
  seq: number;
  accounts: Map<string, AccountState>;
  sportEvents: Map<string, SportEventState>;
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
  settlementFees: SettlementFeeBooks;
  referrals: ReferralBooks;
}
