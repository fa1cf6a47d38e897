// Wire-shaped views of the engine's entities: what the REST API answers and the feed sends.
// The engine's facts (domain/engine/events.ts) do not carry them: a read model folds the facts
// into records (domain/readModel/records.ts, with the domain's evolve, domain/evolve/) and renders
// these views from the records (domain/readModel/render.ts), as the engine renders its answers
// from its own state. Field names, types and nullability are the API's contract (the OpenAPI document): money and quantities are
// decimal strings, `*_at`/`*_time` int64 fields are UNIX microseconds.

export type Decimal = string;
export type Micros = number;

export type OrderStatus =
  | 'created'
  | 'requested'
  | 'accepted'
  | 'delayed'
  | 'open'
  | 'filled'
  | 'rejected'
  | 'cancelled'
  | 'partially_cancelled';
export const LIVE_ORDER_STATUSES: readonly OrderStatus[] = ['created', 'requested', 'accepted', 'delayed', 'open'];

export type MarketStatus = 'scheduled' | 'pre_open' | 'open' | 'closed' | 'resulted' | 'cancelled' | 'voided';
export type MarketResult = 'win' | 'lose' | 'void';
export type FillStatus = 'created' | 'open' | 'settled' | 'cancelled';
export type AccountStatus = 'active' | 'pending' | 'suspended';
export type FeeSchedule = 'fixed_percent' | 'on_trade' | 'loyalty_tier_on_trade';
export type Jurisdiction = 'us' | 'ca';

/** The Order object, every field. */
export interface OrderView {
  id: string;
  account_id: string; // not on the wire contract's table but needed by projections; harmless extra
  market_id: string;
  action: 'buy' | 'sell';
  order_type: 'limit' | 'market';
  status: OrderStatus;
  quantity: Decimal;
  filled: Decimal;
  filled_percentage: number;
  price: Decimal | null;
  avg_price: Decimal | null;
  total_value: Decimal;
  amount: Decimal | null;
  filled_amount: Decimal | null;
  client_order_id: string | null;
  device_id: string | null;
  ip_address: string | null;
  expiration: 'good_till_start' | 'good_till_time' | null;
  expiration_time: Micros | null;
  expires_at: Micros | null;
  accepted_at: Micros | null;
  delayed_until: Micros | null;
  inserted_at: Micros;
  time: string;
  placed_pre_start: boolean;
  fix_order: boolean;
  cancellation_reason: string | null;
  rejection_reason: string | null;
  odds_type: null;
  odds_value: null;
  cancel_on_disconnect: boolean;
  /** Engine sequence of the last change; orders the projection's upserts. */
  seq: number;
}

/** The Fill object, every field of the contract (internal fields omitted or null). */
export interface FillView {
  trade_id: string;
  order_id: string;
  account_id: string;
  market_id: string;
  event_id: string | null;
  client_order_id: string | null;
  action: 'buy' | 'sell';
  status: FillStatus;
  liquidity_action: 'provider' | 'taker';
  price: Decimal;
  filled: Decimal;
  traded_contracts: Decimal;
  original_filled: Decimal;
  original_price: Decimal;
  original_premium: Decimal;
  original_risk: Decimal;
  original_to_win: Decimal;
  amended: boolean;
  last_modified_at: Micros | null;
  last_modified_by_admin_id: string | null;
  admin_log: Record<string, unknown> | null;
  closed_contracts: Decimal;
  expired_contracts: Decimal;
  settled_contracts: Decimal;
  remaining: Decimal;
  virtual_remaining: Decimal;
  closing: Decimal;
  closed_fee: Decimal;
  expired_fee: Decimal;
  closed_pnl: Decimal;
  expired_pnl: Decimal;
  closed_net_pnl: Decimal;
  expired_net_pnl: Decimal;
  gross_pnl: Decimal;
  pc_premium: Decimal;
  pc_risk: Decimal;
  pc_to_win: Decimal;
  remaining_potential_fee: Decimal;
  remaining_premium: Decimal;
  remaining_risk: Decimal;
  remaining_to_win: Decimal;
  trade_fee: Decimal;
  unrounded_trade_fee: Decimal;
  total_fee: Decimal;
  points: number;
  settlements_count: number;
  placed_pre_start: boolean;
  pre_start: boolean;
  device_id: string | null;
  ip_address: string | null;
  opened_at: Micros;
  expires_at: Micros | null;
  settled_at: string | null;
  inserted_at: Micros;
  updated_at: Micros;
  time: string;
  seq: number;
  /** Internal (read models; never rendered): the fill's trade fee entry, its part of settlement-side fees. */
  fee_entry_id?: string | null;
  settlement_fee?: Decimal;
}

/** The Balance object. */
export interface BalanceView {
  account_id: string;
  user_id: string;
  account_balance: Decimal;
  available_balance: Decimal;
  buy_order_liability: Decimal;
  sell_order_liability: Decimal;
  position_premium_liability: Decimal;
  escrow: Decimal;
  fee_schedule: FeeSchedule;
  base_fee_percent: number | null;
  maker_factor: number | null;
  taker_factor: number | null;
  loyalty_tier: string;
  points: number;
  total_adjustments: Decimal;
  total_deposits: Decimal;
  total_withdrawals: Decimal;
  total_fees: Decimal;
  total_settlement_pnl: Decimal;
  total_traded: Decimal;
  total_trade_count: number;
  seq: number;
}

/** One account's holding in one market (GET /api/v1/positions; shape chosen by this service). */
export interface PositionView {
  account_id: string;
  market_id: string;
  event_id: string | null;
  /** Signed net contracts: positive long (bought), negative short (sold). */
  position: Decimal;
  side: 'long' | 'short' | 'flat';
  contracts: Decimal; // |position|
  avg_price: Decimal | null;
  premium: Decimal; // open premium of the net position
  risk: Decimal; // worst-case loss of the position
  to_win: Decimal; // gain if it settles in its favour
  realized_pnl: Decimal;
  fees: Decimal;
  market_max_price: Decimal;
  updated_at: Micros;
  seq: number;
}

/** A ledger entry: deposits, withdrawals, adjustments, fees, refunds, settlements, loyalty. */
export type LedgerEntryType =
  'deposit' | 'withdrawal' | 'adjustment' | 'fee' | 'fee_refund' | 'settlement' | 'rollup' | 'referral';

export interface LedgerEntryView {
  id: string;
  account_id: string;
  type: LedgerEntryType;
  /** Signed balance effect in dollars (fees never positive, refunds never negative). */
  amount: Decimal;
  points: number;
  event_id: string | null;
  market_id: string | null;
  fee_id: string | null;
  payment_id: string | null;
  settlement_id: string | null;
  /** Which fee source: `trade`, `settlement`, `market_group`, `event` (fees and refunds only). */
  fee_source: 'trade' | 'settlement' | 'market_group' | 'event' | null;
  trade_id: string | null;
  method: string | null; // withdrawals
  reason: string | null; // withdrawals, adjustments
  sub_method: string | null; // withdrawals (Interac: Send | Request)
  referee_account_id: string | null;
  referrer_account_id: string | null;
  inserted_at: Micros;
  time: string;
  seq: number;
}

/** An account's details as the operator sets them (the AccountOpened and AccountUpdated facts state them). */
export interface AccountDetails {
  account_id: string;
  status: AccountStatus;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  jurisdiction: Jurisdiction;
  fee_schedule: FeeSchedule;
  base_fee_percent: number | null;
  maker_factor: number | null;
  taker_factor: number | null;
  created_at: Micros;
}

export interface AccountView extends AccountDetails {
  user_id: string;
  loyalty_tier: string;
  updated_at: Micros;
}

/** A sport event's details as the operator sets them (the SportEventScheduled and SportEventUpdated facts state them). */
export interface SportEventDetails {
  event_id: string;
  title: string;
  short_title: string | null;
  event_type: string | null;
  sport: string | null;
  competition: string | null;
  participants: string[];
  start: Micros;
}

export interface SportEventView extends SportEventDetails {
  /** `scheduled` until started, then `in_progress`. */
  status: 'scheduled' | 'in_progress';
  started_at: Micros | null;
  /** Percent of net winnings across the event charged when its last market settles; null: none. */
  event_fee_percent: number | null;
}

/** The engine's own part of a market (catalogue and state); projections add book and trade stats. */
export interface MarketStateView extends MarketBaseView, MarketCatalogueView, MarketFeeView {}

/** What a market is listed with (the MarketListed fact states it). */
export interface MarketListing {
  market_id: string;
  event_id: string;
  title: string;
  short_title: string | null;
  question: string | null;
  rules: string | null;
  symbol: string | null;
  grouping_id: string;
  grouping_name: string | null;
  featured: boolean;
  status: MarketStatus;
  trading: boolean;
  max_price: Decimal;
  in_play_delay_sec: number;
  points_cost: number;
}

/** A market's listing and state, as journal records of versions 1 to 3 carried it. */
export interface MarketBaseView extends MarketListing {
  result: MarketResult | null;
  settled_at: Micros | null;
  last_traded_price: Decimal | null;
  created_at: Micros;
  updated_at: Micros;
  seq: number;
}

/** Settlement-side fee percents in force for a market: its own, its event's, its group's (null: none). */
interface MarketFeeView {
  settlement_fee_percent: number | null;
  event_fee_percent: number | null;
  group_fee_percent: number | null;
}

/** The operator's catalogue fields, as set (projections/core/market.ts renders them onto the Market object). */
export interface MarketCatalogueView {
  description: string | null;
  group_title: string | null;
  specifier: string | null;
  position: string | null;
  powered_by: string | null;
  filters: string[];
  trading_filters: string[];
  keywords: string[];
  /** The market's own participants; null: its event's. */
  participants: string[] | null;
  stat_detail: unknown;
  featured_home: boolean;
  manual_probability: boolean;
  archived_at: Micros | null;
}
