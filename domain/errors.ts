// Refusals as types. Every rule that can refuse a request has a reason here: a stable code and the
// data its message needs. Reasons are made in domain/ (the engine, money, text and profile rules)
// and commands/; each transport maps a code to its wire form in one table of its own (REST:
// api/errors.ts). `messageOf` gives the documented English text for a reason, the same in every
// transport. A code names one rule and so has one status everywhere: an order naming an unknown
// market (the order is refused, 422) and an operator input naming an unknown market (404) are two
// codes. Nothing matches on the message text.

import { HandleRule } from './profile/handle.ts';

/** Field values a transport's schema let through but a rule refuses (400 on REST). */
export type InvalidValue =
  /** A rule whose text names the field and what it must be (settings, credentials, client metadata). */
  | { code: 'invalid_input'; message: string; field?: string }
  /** An order's field (`orders[3].price` in a batch); the text names the field and the rule. */
  | { code: 'invalid_order_field'; field: string; message: string }
  | { code: 'batch_too_large'; limit: number }
  | { code: 'text_has_nul'; path: string }
  | { code: 'text_too_deep'; depth_max: number }
  | { code: 'price_malformed' }
  | { code: 'price_sub_cent' }
  | { code: 'price_not_positive' }
  | { code: 'price_required' }
  | { code: 'quantity_malformed' }
  | { code: 'quantity_not_positive' }
  | { code: 'quantity_too_large'; quantity_max: number }
  | { code: 'amount_malformed' }
  | { code: 'amount_sub_cent' }
  | { code: 'amount_not_positive' }
  | { code: 'amount_zero' }
  | { code: 'max_price_invalid'; max_price_max: number }
  | { code: 'expiration_time_required' }
  | { code: 'market_status_not_settable' }
  | { code: 'market_status_not_listable' }
  | { code: 'market_field_fixed'; field: 'event_id' | 'max_price' | 'grouping_id' }
  | { code: 'stat_detail_too_long'; length_max: number }
  | { code: 'status_or_trading_required' }
  | { code: 'price_or_filled_required' }
  | { code: 'fee_percent_invalid'; percent_max: number }
  | { code: 'grouping_id_empty' }
  | { code: 'referral_points_invalid'; points_max: number }
  | { code: 'clock_move_ambiguous' }
  | { code: 'clock_out_of_range' };

/** The subject a request names does not exist (404 on REST). */
export type UnknownSubject =
  | { code: 'account_not_found' }
  | { code: 'referee_not_found' }
  | { code: 'event_not_found' }
  | { code: 'market_not_found' }
  | { code: 'fill_not_found' }
  | { code: 'order_not_found' }
  | { code: 'api_key_not_found' }
  | { code: 'oauth_client_not_found' };

/** A business rule refused the request (422 on REST). */
export type RuleRefusal =
  | { code: 'request_refused' }
  /** The engine made the order and rejected it (e.g. insufficient funds); `reason` is the order's rejection_reason. */
  | { code: 'order_rejected'; reason: string }
  | { code: 'location_missing' }
  | { code: 'location_bad_code' }
  | { code: 'location_blocked_network' }
  | { code: 'insufficient_funds' }
  | { code: 'price_at_or_above_max'; max_price: string }
  | { code: 'account_exists' }
  | { code: 'order_account_unknown' }
  | { code: 'order_account_not_active' }
  | { code: 'order_exists' }
  | { code: 'order_market_unknown' }
  | { code: 'market_not_accepting_orders' }
  | { code: 'market_order_before_open' }
  | { code: 'event_started' }
  | { code: 'expiration_time_past' }
  | { code: 'too_many_live_orders'; live_orders_max: number }
  | { code: 'order_risk_too_small'; risk_min: string }
  | { code: 'order_not_cancellable' }
  | { code: 'event_exists' }
  | { code: 'market_exists' }
  | { code: 'market_settled' }
  | { code: 'market_cancelled' }
  | { code: 'market_archived' }
  | { code: 'resulted_market_not_voidable' }
  | { code: 'market_not_resettlable' }
  | { code: 'symbol_taken'; symbol: string }
  | { code: 'fill_not_amendable' }
  | { code: 'self_referral' }
  | { code: 'referee_already_referred' }
  | { code: 'referee_already_traded' }
  | { code: 'handle_refused'; rule: keyof typeof HandleRule }
  | { code: 'profile_changed_concurrently' };

/** Why the engine, a domain rule or a command refused: a code and the data its message needs. */
export type Refusal = InvalidValue | UnknownSubject | RuleRefusal;

/** Every location refusal's text begins so (docs/TRADING.md "Geofencing"). */
export const GEO_REFUSAL_PREFIX = 'Placing Order(s) from this IP address';

/** The documented text for a reason (the REST `error`, the feed's reply detail, the CLI's message). */
export function messageOf(refusal: Refusal): string {
  switch (refusal.code) {
    case 'invalid_input':
      return refusal.message;
    case 'invalid_order_field':
      return refusal.message;
    case 'batch_too_large':
      return `orders must hold at most ${refusal.limit} orders`;
    case 'text_has_nul':
      return `${refusal.path} must not contain NUL characters`;
    case 'text_too_deep':
      return `body is nested too deeply (at most ${refusal.depth_max} levels of objects and arrays)`;
    case 'price_malformed':
      return 'price must be a decimal string';
    case 'price_sub_cent':
      return 'price must be a whole number of cents (at most two decimal places)';
    case 'price_not_positive':
      return 'price must be greater than 0';
    case 'price_required':
      return 'price is required for limit orders';
    case 'quantity_malformed':
      return 'quantity must be a decimal string';
    case 'quantity_not_positive':
      return 'quantity must be greater than 0';
    case 'quantity_too_large':
      return `quantity must not exceed ${refusal.quantity_max}`;
    case 'amount_malformed':
      return 'amount must be a decimal string';
    case 'amount_sub_cent':
      return 'amount must be a whole number of cents (at most two decimal places)';
    case 'amount_not_positive':
      return 'amount must be greater than 0';
    case 'amount_zero':
      return 'amount must not be 0';
    case 'max_price_invalid':
      return `max_price must be a whole number of cents greater than 0 and at most ${refusal.max_price_max}`;
    case 'expiration_time_required':
      return 'expiration_time is required for good_till_time orders';
    case 'market_status_not_settable':
      return 'status must be one of scheduled, pre_open, open, closed, cancelled';
    case 'market_status_not_listable':
      return 'status must be one of scheduled, pre_open, open, closed';
    case 'market_field_fixed':
      return `${refusal.field} cannot be changed: it is fixed for the market's life`;
    case 'stat_detail_too_long':
      return `stat_detail must be at most ${refusal.length_max} characters of JSON`;
    case 'status_or_trading_required':
      return 'status or trading is required';
    case 'price_or_filled_required':
      return 'price or filled is required';
    case 'fee_percent_invalid':
      return `percent must be a number from 0 to ${refusal.percent_max}, or null`;
    case 'grouping_id_empty':
      return 'grouping_id must not be empty';
    case 'referral_points_invalid':
      return `referral_points must be an integer from 0 to ${refusal.points_max}`;
    case 'clock_move_ambiguous':
      return 'send exactly one of advance_ms or set';
    case 'clock_out_of_range':
      return 'advance_ms must lead to a time between 1970 and 2200';
    case 'account_not_found':
      return 'Account not found';
    case 'referee_not_found':
      return 'Referee account not found';
    case 'event_not_found':
      return 'Event not found';
    case 'market_not_found':
      return 'Market not found';
    case 'fill_not_found':
      return 'Fill not found';
    case 'order_not_found':
      return 'Order not found';
    case 'api_key_not_found':
      return 'No such API key';
    case 'oauth_client_not_found':
      return 'OAuth client not found';
    case 'request_refused':
      return 'Request refused';
    case 'order_rejected':
      return refusal.reason;
    case 'location_missing':
      return `${GEO_REFUSAL_PREFIX} requires a location check (geo_location)`;
    case 'location_bad_code':
      return `${GEO_REFUSAL_PREFIX} is not allowed: the location check failed`;
    case 'location_blocked_network':
      return `${GEO_REFUSAL_PREFIX} is not allowed: VPN, proxy or hosting networks are refused`;
    case 'insufficient_funds':
      return 'Insufficient funds';
    case 'price_at_or_above_max':
      return `price must be less than the market's max_price (${refusal.max_price})`;
    case 'account_exists':
      return 'Account already exists';
    case 'order_account_unknown':
      return 'Account not found';
    case 'order_account_not_active':
      return 'Account is not active';
    case 'order_exists':
      return 'Order already exists';
    case 'order_market_unknown':
      return 'Market not found';
    case 'market_not_accepting_orders':
      return 'Market is not accepting orders';
    case 'market_order_before_open':
      return 'Market orders are not accepted before the market opens';
    case 'event_started':
      return 'Event has already started';
    case 'expiration_time_past':
      return 'expiration_time must be in the future';
    case 'too_many_live_orders':
      return `This account already holds ${refusal.live_orders_max} live orders, the most allowed; cancel some before placing more`;
    case 'order_risk_too_small':
      return `order risk must be at least ${refusal.risk_min} (quantity x price on a buy, quantity x (max_price - price) on a sell)`;
    case 'order_not_cancellable':
      return 'Order can no longer be cancelled';
    case 'event_exists':
      return 'Event already exists';
    case 'market_exists':
      return 'Market already exists';
    case 'market_settled':
      return 'Market is already settled';
    case 'market_cancelled':
      return 'Market is cancelled; only a result can follow';
    case 'market_archived':
      return 'Market is archived; archiving cannot be undone';
    case 'resulted_market_not_voidable':
      return 'A resulted market can be resulted again win or lose, not voided';
    case 'market_not_resettlable':
      return 'Market was resulted before it could be resulted again';
    case 'symbol_taken':
      return `symbol ${refusal.symbol} is already used by another market`;
    case 'fill_not_amendable':
      return 'Fill can no longer be amended';
    case 'self_referral':
      return 'An account cannot refer itself';
    case 'referee_already_referred':
      return 'Referee already has a referrer';
    case 'referee_already_traded':
      return 'Referee has already traded';
    case 'handle_refused':
      return HandleRule[refusal.rule];
    case 'profile_changed_concurrently':
      return 'Profile changed concurrently; try again';
    default: {
      const unknown: never = refusal;
      throw new Error(`refusal without a message: ${JSON.stringify(unknown)}`);
    }
  }
}

/** A refusal thrown rather than returned (commands off the hot path); the message is the documented text. */
export class DomainError extends Error {
  constructor(readonly refusal: Refusal) {
    super(messageOf(refusal));
    this.name = new.target.name;
  }
}

/** A value rule whose text names the field and what it must be. */
export class InvalidInput extends DomainError {
  constructor(message: string, field?: string) {
    super(field === undefined ? { code: 'invalid_input', message } : { code: 'invalid_input', message, field });
  }
}
