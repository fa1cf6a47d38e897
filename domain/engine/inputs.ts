// The engine's inputs: everything that moves money or the books arrives as one of these, in one
// sequence. `now_us` is stamped by the gateway from the service clock; ids are chosen outside
// (the engine never draws random numbers), so replaying the inputs reproduces the outputs.

import type { AccountStatus, FeeSchedule, Jurisdiction, MarketResult, MarketStatus } from '../views.ts';
import type { FeeScope } from './events.ts';

export interface OrderRequest {
  order_id: string;
  market_id: string;
  action: 'buy' | 'sell';
  order_type: 'limit' | 'market';
  price: string | null; // already validated as whole cents by domain/money
  quantity: string; // already rounded to nine places
  client_order_id: string | null;
  device_id: string | null;
  ip_address: string | null;
  expiration: 'good_till_start' | 'good_till_time' | null;
  expiration_time: number | null;
  cancel_on_disconnect: boolean;
}

/**
 * Limits an order input is judged under, stamped by the order commands from the operator's
 * settings (so replay judges it the same way). Inputs journaled before limits existed carry none.
 */
export interface OrderLimits {
  /** Live orders the account may hold, this one included. */
  live_orders_max: number;
  /** The least an order may risk, in cents (an order's risk: quantity x price bought, quantity x (max_price - price) sold). */
  risk_min_cents: number;
}

export interface AccountFields {
  status?: AccountStatus;
  first_name?: string | null;
  last_name?: string | null;
  email?: string | null;
  jurisdiction?: Jurisdiction;
  fee_schedule?: FeeSchedule;
  base_fee_percent?: number | null;
  maker_factor?: number | null;
  taker_factor?: number | null;
  created_at?: number; // UNIX µs; for accounts that predate the leaderboard
}

export interface MarketFields {
  market_id: string;
  event_id: string;
  title: string;
  max_price: string;
  status: MarketStatus;
  trading: boolean;
  in_play_delay_sec: number;
  points_cost: number;
  grouping_id: string;
  grouping_name: string | null;
  symbol: string | null;
  question: string | null;
  rules: string | null;
  short_title: string | null;
  featured: boolean;
}

/**
 * The catalogue fields a market may be listed or changed with beyond MarketFields (the Market object's
 * catalogue fields): texts, lists of strings, the stat line (any JSON), display flags. `participants`
 * null means the event's.
 */
export interface MarketDetails {
  description?: string | null;
  group_title?: string | null;
  specifier?: string | null;
  position?: string | null;
  powered_by?: string | null;
  filters?: string[];
  trading_filters?: string[];
  keywords?: string[];
  participants?: string[] | null;
  stat_detail?: unknown;
  featured_home?: boolean;
  manual_probability?: boolean;
}

/** An operator's change to a listed market: only the fields given change. */
export interface MarketChanges extends MarketDetails {
  title?: string;
  short_title?: string | null;
  question?: string | null;
  rules?: string | null;
  symbol?: string | null;
  grouping_name?: string | null;
  featured?: boolean;
  in_play_delay_sec?: number;
  points_cost?: number;
  /** Fixed for the market's life (as are `event_id` and `max_price`): given, it must be the market's own. */
  grouping_id?: string;
  event_id?: string;
  max_price?: string;
}

/** An operator's change to a sport event: only the fields given change. */
export interface SportEventChanges {
  title?: string;
  start?: number; // UNIX µs
  short_title?: string | null;
  event_type?: string | null;
  sport?: string | null;
  competition?: string | null;
  participants?: string[];
}

export interface SportEventFields {
  event_id: string;
  title: string;
  start: number; // UNIX µs
  short_title: string | null;
  event_type: string | null;
  sport: string | null;
  competition: string | null;
  participants: string[];
}

export type EngineInput =
  | { kind: 'OpenAccount'; account_id: string; user_id: string; fields: AccountFields }
  | { kind: 'UpdateAccount'; account_id: string; fields: AccountFields }
  | { kind: 'Deposit'; account_id: string; entry_id: string; amount: string }
  | {
      kind: 'Withdraw';
      account_id: string;
      entry_id: string;
      amount: string;
      method: string | null;
      reason: string | null;
      sub_method: string | null;
    }
  | { kind: 'Adjust'; account_id: string; entry_id: string; amount: string; reason: string | null }
  | { kind: 'PlaceOrder'; account_id: string; order: OrderRequest; limits?: OrderLimits }
  | { kind: 'PlaceOrders'; account_id: string; orders: OrderRequest[]; limits?: OrderLimits }
  | { kind: 'CancelOrder'; account_id: string; order_id: string }
  | { kind: 'CancelOrders'; account_id: string; order_ids: string[] }
  /** Every live order of the account, in one market or all; optionally only cancel_on_disconnect ones. */
  | { kind: 'CancelAccountOrders'; account_id: string; market_id: string | null; cancel_on_disconnect_only: boolean }
  | { kind: 'ScheduleSportEvent'; event: SportEventFields }
  | { kind: 'StartSportEvent'; event_id: string }
  | { kind: 'UpdateSportEvent'; event_id: string; changes: SportEventChanges }
  | { kind: 'ListMarket'; market: MarketFields; details?: MarketDetails }
  /** Catalogue changes, then a status or trading change (as ChangeMarketStatus), then archiving (final: `archived: false` on an archived market is refused). */
  | {
      kind: 'UpdateMarket';
      market_id: string;
      changes: MarketChanges;
      status?: MarketStatus;
      trading?: boolean;
      archived?: boolean;
    }
  | { kind: 'ChangeMarketStatus'; market_id: string; status?: MarketStatus; trading?: boolean }
  | { kind: 'ResultMarket'; market_id: string; result: MarketResult }
  | { kind: 'AmendFill'; trade_id: string; price?: string; filled?: string }
  /** A settlement-side fee percent (of net winnings; null: none) on a market, an event or a market group. */
  | { kind: 'SetSettlementFee'; scope: FeeScope; scope_id: string; percent: number | null }
  | { kind: 'RecordReferral'; referrer_account_id: string; referee_account_id: string }
  /** The points a referrer is credited when a referee first trades (the operator's `referral_points`). */
  | { kind: 'SetReferralPoints'; points: number }
  | { kind: 'Tick' };

/** An input as sequenced: the gateway stamps the time; the engine assigns `seq`. */
export interface SequencedInput {
  seq: number;
  now_us: number;
  input: EngineInput;
}
