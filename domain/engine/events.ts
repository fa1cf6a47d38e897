// The engine's outcome events: facts, each saying what happened, in the order it happened within
// a step. They carry decisions (amounts, fees, PnL, reasons, ids), never REST shapes: read models
// render those by folding the facts (projections/facts). Money and quantities are decimal
// strings, exact; `*_at`/`*_time` are UNIX microseconds; a fact's time is its step's `now_us`.
//
// Every fact type has a fixed set of keys (null where a value does not apply), so the journal
// stores each as an array of values in its key order (journal/encoding.ts). Changing a fact's
// shape means a new journal record version, and an upcaster for the old one (journal/upcast.ts).

import type {
  AccountDetails,
  MarketCatalogueView,
  MarketListing,
  MarketResult,
  MarketStatus,
  SportEventDetails,
} from '../views.ts';

/** A ledger account: a member's cash, the exchange's fee revenue, a market's settlement pool, the outside world. */
export type LedgerAccount = `cash:${string}` | `pool:${string}` | 'fees' | 'outside';

/**
 * What a transfer is for. `trade_pnl` is the PnL a closing trade realises (it makes no ledger
 * entry); every other kind is one ledger entry of that type, with the transfer's id.
 */
export type TransferKind = 'deposit' | 'withdrawal' | 'adjustment' | 'fee' | 'fee_refund' | 'settlement' | 'trade_pnl';

/** What a settlement-side fee percent is set on: one market, an event's markets, or the markets sharing a `grouping_id`. */
export type FeeScope = 'market' | 'event' | 'market_group';

/** Where a settlement-side fee comes from (a ledger entry's `fee_source`). */
export type SettlementFeeSource = 'settlement' | 'event' | 'market_group';

/** Why an order ended without filling (`cancellation_reason` values). */
export type CancellationReason =
  | 'cancelled_by_user'
  | 'no_liquidity'
  | 'market_order_remainder'
  | 'self_trade_prevented'
  | 'insufficient_funds'
  | 'expired'
  | 'event_started'
  | 'market_suspended'
  | 'market_closed'
  | 'market_cancelled'
  | 'market_resulted'
  | 'market_voided';

/** What an order is, as accepted or rejected (the terms the engine decided, quantities normalised). */
export interface OrderTerms {
  order_id: string;
  account_id: string;
  market_id: string;
  action: 'buy' | 'sell';
  order_type: 'limit' | 'market';
  /** Whole cents as a price; null for a market order. */
  price: string | null;
  quantity: string;
  expiration: 'good_till_start' | 'good_till_time' | null;
  expiration_time: number | null;
  /** The event's scheduled start. */
  expires_at: number | null;
  placed_pre_start: boolean;
  client_order_id: string | null;
  device_id: string | null;
  ip_address: string | null;
  cancel_on_disconnect: boolean;
}

export type { AccountDetails, SportEventDetails } from '../views.ts';

export type EngineEvent =
  // accounts
  | ({ type: 'AccountOpened'; user_id: string } & AccountDetails)
  /** The account's details after an operator's change (every field, changed or not). */
  | ({ type: 'AccountUpdated' } & AccountDetails)
  | { type: 'LoyaltyTierChanged'; account_id: string; tier: string }
  // catalogue
  | ({ type: 'SportEventScheduled' } & SportEventDetails)
  | { type: 'SportEventStarted'; event_id: string }
  /** The event's details after an operator's change (every field, changed or not). */
  | ({ type: 'SportEventUpdated' } & SportEventDetails)
  | ({ type: 'MarketListed' } & MarketListing)
  /**
   * The market's catalogue after an operator's change or a listing with more than MarketListed
   * holds (every field, changed or not; `participants` null: the event's).
   */
  | ({
      type: 'MarketUpdated';
      market_id: string;
      title: string;
      short_title: string | null;
      question: string | null;
      rules: string | null;
      symbol: string | null;
      grouping_name: string | null;
      featured: boolean;
      in_play_delay_sec: number;
      points_cost: number;
    } & Omit<MarketCatalogueView, 'archived_at'>)
  /** Archived: out of the default market list and the live index (the fact's time is `archived_at`). Final. */
  | { type: 'MarketArchived'; market_id: string }
  | { type: 'MarketStatusChanged'; market_id: string; status: MarketStatus; trading: boolean }
  /**
   * A settlement-side fee percent set (null: none) on a market, an event or a market group;
   * `market_ids` are the markets it now applies to (a market listed later into an event or group
   * with a percent gets this fact for itself).
   */
  | { type: 'SettlementFeeSet'; scope: FeeScope; scope_id: string; percent: number | null; market_ids: string[] }
  /** The market is resulted (win, lose) or voided: its positions were settled or unwound by the facts before. */
  | { type: 'MarketSettled'; market_id: string; result: MarketResult; settlement_id: string }
  // orders
  /** Taken in and funded: `open` (then matched), `accepted` (pre-open market) or `delayed` (in play, until `delayed_until`). */
  | ({ type: 'OrderAccepted'; status: 'open' | 'accepted' | 'delayed'; delayed_until: number | null } & OrderTerms)
  /** Not taken in: funds short (`insufficient_funds`), or a market order that found nothing to trade with (`no_liquidity`). */
  | ({ type: 'OrderRejected'; reason: 'insufficient_funds' | 'no_liquidity' } & OrderTerms)
  /** A delayed order whose delay ended, or an accepted order when its market opened: it goes to matching. */
  | { type: 'OrderReleased'; order_id: string }
  /**
   * `status`: what the cancel leaves (partially cancelled when something was filled); null only in
   * a fact read from a record before version 6 (journal/upcast.ts), which the fold completes.
   */
  | {
      type: 'OrderCancelled';
      order_id: string;
      reason: CancellationReason;
      status: 'cancelled' | 'partially_cancelled' | null;
    }
  /**
   * A trade at the resting (maker) order's price. Each side has its own fill; `*_closing` of its
   * contracts closed earlier positions (the LotClosed facts that follow say which); `*_fee` is the
   * side's fee at nine places (charged rounded up to the cent by the Transferred fact of kind fee);
   * `*_remaining` and `*_status` are what the trade leaves of the side's order (null only in a fact
   * read from a record before version 6, journal/upcast.ts, which the fold completes).
   */
  | {
      type: 'Traded';
      trade_id: string;
      market_id: string;
      price: string;
      quantity: string;
      taker_side: 'buy' | 'sell';
      pre_start: boolean;
      maker_order_id: string;
      maker_account_id: string;
      maker_fill_id: string;
      maker_closing: string;
      maker_fee: string;
      maker_points: number;
      maker_remaining: string | null;
      maker_status: 'open' | 'filled' | null;
      taker_order_id: string;
      taker_account_id: string;
      taker_fill_id: string;
      taker_closing: string;
      taker_fee: string;
      taker_points: number;
      taker_remaining: string | null;
      taker_status: 'open' | 'filled' | null;
    }
  /** Contracts of an earlier fill's open lot closed first-in first-out by the trade before, realising `pnl`. */
  | { type: 'LotClosed'; fill_id: string; quantity: string; pnl: string }
  /** Contracts of a fill's open lot settled at the market's result, realising `pnl`. */
  | { type: 'LotSettled'; fill_id: string; quantity: string; pnl: string }
  /**
   * The market was resulted again (win and lose swapped): the fill's lot of `quantity` contracts,
   * settled before, now realises `pnl` more (negative: less). A `settlement` transfer moves the difference.
   */
  | { type: 'LotResettled'; fill_id: string; quantity: string; pnl: string }
  /** The market was voided: the fill unwinds at zero PnL and its fee is refunded (the Transferred facts move the cash). */
  | { type: 'FillVoided'; fill_id: string }
  /** The operator corrected a trade's price and/or size on this fill: its new fee (nine places) and points. */
  | {
      type: 'FillAmended';
      fill_id: string;
      account_id: string;
      market_id: string;
      price: string;
      quantity: string;
      fee: string;
      points: number;
    }
  // money
  /** A balanced transfer of `amount` (>= 0) from one ledger account to another. */
  | {
      type: 'Transferred';
      id: string | null;
      kind: TransferKind;
      from: LedgerAccount;
      to: LedgerAccount;
      amount: string;
      market_id: string | null;
      fill_id: string | null;
      settlement_id: string | null;
      method: string | null;
      reason: string | null;
      sub_method: string | null;
    }
  /**
   * A settlement-side fee for one account: charged (`fee_id` null) on its net winnings in a market
   * (`settlement`), across an event (`event`) or a market group (`market_group`), or refunded
   * (`fee_id`: the fee it refunds; percent and net winnings null). The Transferred fact that
   * follows, with the same id, moves the money. `shares` lists, as [fill_id, amount, ...], what
   * each fill's part of settlement fees changes by (the fee shared out over the fills that won).
   */
  | {
      type: 'SettlementFeeBooked';
      id: string;
      account_id: string;
      source: SettlementFeeSource;
      market_id: string | null;
      event_id: string | null;
      settlement_id: string;
      percent: number | null;
      net_winnings: string | null;
      fee_id: string | null;
      shares: string[];
    }
  /** Loyalty points credited at a market's result, for the amount risked there. */
  | {
      type: 'PointsCredited';
      id: string;
      account_id: string;
      market_id: string;
      settlement_id: string;
      points: number;
      amount_risked: string;
    }
  /** The operator recorded that one account referred another. */
  | { type: 'ReferralRecorded'; referrer_account_id: string; referee_account_id: string }
  /** The referee traded for the first time: the referrer is credited `points`; each gets a `referral` loyalty entry. */
  | {
      type: 'ReferralCredited';
      referrer_entry_id: string;
      referee_entry_id: string;
      referrer_account_id: string;
      referee_account_id: string;
      points: number;
    }
  /** The points a referrer is credited from now on (the operator's `referral_points` setting). */
  | { type: 'ReferralPointsSet'; points: number }
  /**
   * What the account's funds hold after the step, as its balance shows them: reserved for buy
   * orders, sell orders and positions (each rounded up to the cent) and what is left available
   * (rounded down, never below zero). Stated once per step for every account whose balance moved.
   */
  | {
      type: 'FundsReserved';
      account_id: string;
      buy_orders: string;
      sell_orders: string;
      positions: string;
      available: string;
    };

export type EngineEventType = EngineEvent['type'];

export const cashAccount = (accountId: string): LedgerAccount => `cash:${accountId}`;
export const poolAccount = (marketId: string): LedgerAccount => `pool:${marketId}`;

/** The member account behind a ledger account, or null for fees, pools and the outside world. */
export function memberOfLedgerAccount(account: LedgerAccount): string | null {
  return account.startsWith('cash:') ? account.slice(5) : null;
}

/** Every member account the facts name (whose read models a step may have changed). */
export function accountsNamedBy(facts: readonly EngineEvent[], into: Set<string> = new Set()): Set<string> {
  for (const fact of facts) {
    switch (fact.type) {
      case 'AccountOpened':
      case 'AccountUpdated':
      case 'LoyaltyTierChanged':
      case 'FundsReserved':
      case 'OrderAccepted':
      case 'OrderRejected':
      case 'FillAmended':
      case 'PointsCredited':
      case 'SettlementFeeBooked':
        into.add(fact.account_id);
        break;
      case 'ReferralRecorded':
      case 'ReferralCredited':
        into.add(fact.referrer_account_id).add(fact.referee_account_id);
        break;
      case 'Traded':
        into.add(fact.maker_account_id).add(fact.taker_account_id);
        break;
      case 'Transferred': {
        const member = memberOfLedgerAccount(fact.from) ?? memberOfLedgerAccount(fact.to);
        if (member) into.add(member);
        break;
      }
      default:
        break;
    }
  }
  return into;
}
