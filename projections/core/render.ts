// Wire rendering of the core views: the objects exactly as the OpenAPI document lists them
// (api/openapi/schemas.ts), in that order. Views carry a few internal fields; these renderers are the one place that drops them,
// so a REST read, a write's answer (render the engine's OrderView with renderOrder) and a
// realtime delta are the same object.
//
// Dropped: `seq` everywhere (the engine's version counter). Kept as harmless extras (clients
// ignore unknown fields: docs/TRADING.md "Contract and versioning"): `account_id` on orders, `cancel_on_disconnect`
// on orders (the caller's own flag, echoed), `event_id` on fills. Ledger list entries carry
// exactly the documented fields (fee entries add none); `renderLedgerEntry` (admin) keeps every field.

import type {
  AccountView,
  BalanceView,
  FillView,
  LedgerEntryView,
  OrderView,
  PositionView,
  SportEventView,
} from '../../domain/views.ts';

/** A view as a REST answer shows it: the stored view without its `seq` (domain/readModel/records.ts lists every shape of an order). */
export type OrderWire = Omit<OrderView, 'seq'>;
export type FillWire = Omit<FillView, 'seq'>;
export type BalanceWire = Omit<BalanceView, 'seq'>;
export type PositionWire = Omit<PositionView, 'seq'>;
export type AccountWire = AccountView;
export type SportEventWire = SportEventView;

export function renderOrder(o: OrderView): OrderWire {
  return {
    id: o.id,
    account_id: o.account_id,
    market_id: o.market_id,
    action: o.action,
    order_type: o.order_type,
    status: o.status,
    quantity: o.quantity,
    filled: o.filled,
    filled_percentage: o.filled_percentage,
    price: o.price,
    avg_price: o.avg_price,
    total_value: o.total_value,
    amount: o.amount,
    filled_amount: o.filled_amount,
    client_order_id: o.client_order_id,
    device_id: o.device_id,
    ip_address: o.ip_address,
    expiration: o.expiration,
    expiration_time: o.expiration_time,
    expires_at: o.expires_at,
    accepted_at: o.accepted_at,
    delayed_until: o.delayed_until,
    inserted_at: o.inserted_at,
    time: o.time,
    placed_pre_start: o.placed_pre_start,
    fix_order: o.fix_order,
    cancellation_reason: o.cancellation_reason,
    rejection_reason: o.rejection_reason,
    odds_type: o.odds_type ?? null,
    odds_value: o.odds_value ?? null,
    cancel_on_disconnect: o.cancel_on_disconnect,
  };
}

export function renderFill(f: FillView): FillWire {
  return {
    trade_id: f.trade_id,
    order_id: f.order_id,
    account_id: f.account_id,
    market_id: f.market_id,
    event_id: f.event_id,
    client_order_id: f.client_order_id,
    action: f.action,
    status: f.status,
    liquidity_action: f.liquidity_action,
    price: f.price,
    filled: f.filled,
    traded_contracts: f.traded_contracts,
    original_filled: f.original_filled,
    original_price: f.original_price,
    original_premium: f.original_premium,
    original_risk: f.original_risk,
    original_to_win: f.original_to_win,
    amended: f.amended,
    last_modified_at: f.last_modified_at,
    last_modified_by_admin_id: f.last_modified_by_admin_id,
    admin_log: f.admin_log,
    closed_contracts: f.closed_contracts,
    expired_contracts: f.expired_contracts,
    settled_contracts: f.settled_contracts,
    remaining: f.remaining,
    virtual_remaining: f.virtual_remaining,
    closing: f.closing,
    closed_fee: f.closed_fee,
    expired_fee: f.expired_fee,
    closed_pnl: f.closed_pnl,
    expired_pnl: f.expired_pnl,
    closed_net_pnl: f.closed_net_pnl,
    expired_net_pnl: f.expired_net_pnl,
    gross_pnl: f.gross_pnl,
    pc_premium: f.pc_premium,
    pc_risk: f.pc_risk,
    pc_to_win: f.pc_to_win,
    remaining_potential_fee: f.remaining_potential_fee,
    remaining_premium: f.remaining_premium,
    remaining_risk: f.remaining_risk,
    remaining_to_win: f.remaining_to_win,
    trade_fee: f.trade_fee,
    unrounded_trade_fee: f.unrounded_trade_fee,
    total_fee: f.total_fee,
    points: f.points,
    settlements_count: f.settlements_count,
    placed_pre_start: f.placed_pre_start,
    pre_start: f.pre_start,
    device_id: f.device_id,
    ip_address: f.ip_address,
    opened_at: f.opened_at,
    expires_at: f.status === 'settled' ? null : f.expires_at, // the expiry only while the market has not settled
    settled_at: f.settled_at,
    inserted_at: f.inserted_at,
    updated_at: f.updated_at,
    time: f.time,
  };
}

export function renderBalance(b: BalanceView): BalanceWire {
  return {
    account_id: b.account_id,
    user_id: b.user_id,
    account_balance: b.account_balance,
    available_balance: b.available_balance,
    buy_order_liability: b.buy_order_liability,
    sell_order_liability: b.sell_order_liability,
    position_premium_liability: b.position_premium_liability,
    escrow: b.escrow,
    fee_schedule: b.fee_schedule,
    base_fee_percent: b.base_fee_percent,
    maker_factor: b.maker_factor,
    taker_factor: b.taker_factor,
    loyalty_tier: b.loyalty_tier,
    points: b.points,
    total_adjustments: b.total_adjustments,
    total_deposits: b.total_deposits,
    total_withdrawals: b.total_withdrawals,
    total_fees: b.total_fees,
    total_settlement_pnl: b.total_settlement_pnl,
    total_traded: b.total_traded,
    total_trade_count: b.total_trade_count,
  };
}

export function renderPosition(p: PositionView): PositionWire {
  return {
    account_id: p.account_id,
    market_id: p.market_id,
    event_id: p.event_id,
    position: p.position,
    side: p.side,
    contracts: p.contracts,
    avg_price: p.avg_price,
    premium: p.premium,
    risk: p.risk,
    to_win: p.to_win,
    realized_pnl: p.realized_pnl,
    fees: p.fees,
    market_max_price: p.market_max_price,
    updated_at: p.updated_at,
  };
}

export function renderAccount(a: AccountView): AccountWire {
  return {
    account_id: a.account_id,
    user_id: a.user_id,
    status: a.status,
    first_name: a.first_name,
    last_name: a.last_name,
    email: a.email,
    jurisdiction: a.jurisdiction,
    fee_schedule: a.fee_schedule,
    base_fee_percent: a.base_fee_percent,
    maker_factor: a.maker_factor,
    taker_factor: a.taker_factor,
    loyalty_tier: a.loyalty_tier,
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}

export function renderSportEvent(e: SportEventView): SportEventWire {
  return {
    event_id: e.event_id,
    title: e.title,
    short_title: e.short_title,
    event_type: e.event_type,
    sport: e.sport,
    competition: e.competition,
    participants: e.participants,
    start: e.start,
    status: e.status,
    started_at: e.started_at,
    event_fee_percent: e.event_fee_percent ?? null,
  };
}

// ── Ledger entries: the common fields, plus each list's own additions ──────────────────────

export interface LedgerEntryCommonWire {
  id: string;
  account_id: string;
  amount: string;
  points: number;
  type: string;
  event_id: string | null;
  market_id: string | null;
  fee_id: string | null;
  payment_id: string | null;
  settlement_id: string | null;
  inserted_at: number;
  time: string;
}
export interface LoyaltyEntryWire extends LedgerEntryCommonWire {
  referee_account_id: string | null;
  referrer_account_id: string | null;
}
export interface WithdrawalEntryWire extends LedgerEntryCommonWire {
  method: string | null;
  reason: string | null;
  sub_method: string | null;
}
/** Fee entries add no field to the common ones (docs/MEMBER.md "Ledgers"). */
export type FeeEntryWire = LedgerEntryCommonWire;
export interface AdjustmentEntryWire extends LedgerEntryCommonWire {
  reason: string | null;
}
/** Every field (for admin and generic use). */
export type LedgerEntryWire = Omit<LedgerEntryView, 'seq'>;

/**
 * `amount` is the monetary value the entry was calculated from (docs/MEMBER.md "Ledgers"); only fee entries are the
 * signed balance effect. The engine records every entry signed (a withdrawal takes cash out, so
 * its amount is negative there); on the wire a withdrawal shows the amount withdrawn.
 */
function wireAmount(e: LedgerEntryView): string {
  return e.type === 'withdrawal' && e.amount.startsWith('-') ? e.amount.slice(1) : e.amount;
}

function renderLedgerCommon(e: LedgerEntryView): LedgerEntryCommonWire {
  return {
    id: e.id,
    account_id: e.account_id,
    amount: wireAmount(e),
    points: e.points,
    type: e.type,
    event_id: e.event_id,
    market_id: e.market_id,
    fee_id: e.fee_id,
    payment_id: e.payment_id,
    settlement_id: e.settlement_id,
    inserted_at: e.inserted_at,
    time: e.time,
  };
}

export const renderLoyaltyEntry = (e: LedgerEntryView): LoyaltyEntryWire => ({
  ...renderLedgerCommon(e),
  referee_account_id: e.referee_account_id,
  referrer_account_id: e.referrer_account_id,
});
export const renderWithdrawalEntry = (e: LedgerEntryView): WithdrawalEntryWire => ({
  ...renderLedgerCommon(e),
  method: e.method,
  reason: e.reason,
  sub_method: e.sub_method,
});
export const renderFeeEntry = (e: LedgerEntryView): FeeEntryWire => renderLedgerCommon(e);
export const renderAdjustmentEntry = (e: LedgerEntryView): AdjustmentEntryWire => ({
  ...renderLedgerCommon(e),
  reason: e.reason,
});
export function renderLedgerEntry(e: LedgerEntryView): LedgerEntryWire {
  return {
    ...renderLedgerCommon(e),
    type: e.type,
    fee_source: e.fee_source,
    trade_id: e.trade_id,
    method: e.method,
    reason: e.reason,
    sub_method: e.sub_method,
    referee_account_id: e.referee_account_id,
    referrer_account_id: e.referrer_account_id,
  };
}
