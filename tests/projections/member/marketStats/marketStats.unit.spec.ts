// Market stats computed from an account's orders, fills and position in one market.
import { expect } from 'chai';
import { computeMarketStats } from '../../../../projections/member/marketStats/compute.ts';
import type { FillView, LedgerEntryView, OrderView, PositionView } from '../../../../domain/views.ts';

const order = (id: string, fields: Partial<OrderView>): OrderView => ({
  id,
  account_id: 'a',
  market_id: 'm',
  action: 'buy',
  order_type: 'limit',
  status: 'open',
  quantity: '10',
  filled: '0',
  filled_percentage: 0,
  price: '0.40',
  avg_price: null,
  total_value: '0',
  amount: null,
  filled_amount: null,
  client_order_id: null,
  device_id: null,
  ip_address: null,
  expiration: null,
  expiration_time: null,
  expires_at: null,
  accepted_at: 1,
  delayed_until: null,
  inserted_at: 1,
  time: '1970-01-01T00:00:00.000Z',
  placed_pre_start: false,
  fix_order: false,
  cancellation_reason: null,
  rejection_reason: null,
  odds_type: null,
  odds_value: null,
  cancel_on_disconnect: false,
  seq: 1,
  ...fields,
});

const ZERO_FILL_MONEY = {
  closed_contracts: '0',
  expired_contracts: '0',
  settled_contracts: '0',
  virtual_remaining: '0',
  closing: '0',
  closed_fee: '0',
  expired_fee: '0',
  closed_pnl: '0',
  expired_pnl: '0',
  closed_net_pnl: '0',
  expired_net_pnl: '0',
  gross_pnl: '0',
  remaining_potential_fee: '0',
  trade_fee: '0',
  unrounded_trade_fee: '0',
  total_fee: '0',
};

const fill = (trade_id: string, fields: Partial<FillView>): FillView => ({
  trade_id,
  order_id: 'o',
  account_id: 'a',
  market_id: 'm',
  event_id: 'e',
  client_order_id: null,
  action: 'buy',
  status: 'open',
  liquidity_action: 'taker',
  price: '0.40',
  filled: '5',
  traded_contracts: '5',
  original_filled: '5',
  original_price: '0.40',
  original_premium: '2',
  original_risk: '2',
  original_to_win: '3',
  amended: false,
  last_modified_at: null,
  last_modified_by_admin_id: null,
  admin_log: null,
  remaining: '5',
  pc_premium: '0.40',
  pc_risk: '0.40',
  pc_to_win: '0.60',
  remaining_premium: '2',
  remaining_risk: '2',
  remaining_to_win: '3',
  points: 0,
  settlements_count: 0,
  placed_pre_start: false,
  pre_start: false,
  device_id: null,
  ip_address: null,
  opened_at: 1,
  expires_at: null,
  settled_at: null,
  inserted_at: 1,
  updated_at: 1,
  time: '1970-01-01T00:00:00.000Z',
  seq: 1,
  ...ZERO_FILL_MONEY,
  ...fields,
});

const position = (net: string): PositionView => ({
  account_id: 'a',
  market_id: 'm',
  event_id: 'e',
  position: net,
  side: 'long',
  contracts: net,
  avg_price: '0.40',
  premium: '2',
  risk: '2',
  to_win: '3',
  realized_pnl: '0',
  fees: '0',
  market_max_price: '1',
  updated_at: 1,
  seq: 1,
});

describe('market stats computation', () => {
  it('counts orders by side and status and prices the working ones', () => {
    const stats = computeMarketStats({
      orders: [
        order('o1', { action: 'buy', price: '0.40', quantity: '10', filled: '5', status: 'open' }),
        order('o2', { action: 'sell', price: '0.70', quantity: '4', status: 'open' }),
        order('o3', { action: 'buy', quantity: '3', status: 'cancelled' }),
        order('o4', { action: 'sell', status: 'rejected' }),
      ],
      fills: [fill('t1', {})],
      position: position('5'),
      feeEntries: [],
      maxPrice: '1',
      orderFeeRate: '0',
    });
    expect(stats.orders).to.equal(4);
    expect(stats.open_order_count).to.equal(2);
    expect(stats.cancelled_buy_orders).to.equal(1);
    expect(stats.rejected_sell_orders).to.equal(1);
    expect(stats.contracts_in_buy_orders).to.equal('5');
    expect(stats.contracts_in_sell_orders).to.equal('4');
    expect(stats.cancelled_contracts).to.equal('3');
    // buy: 5 × 0.40; sell: 4 × (1 − 0.70)
    expect(stats.buy_order_liability).to.equal('2');
    expect(stats.sell_order_liability).to.equal('1.2');
    expect(stats.order_liability).to.equal('3.2');
    // 5 held, 4 reserved by the closing sell order
    expect(stats.position).to.equal('5');
    expect(stats.available_position).to.equal('1');
    expect(stats.trade_count).to.equal(1);
    expect(stats.open_risk).to.equal('2');
    expect(stats.average_open_premium).to.equal('0.4');
  });

  it('totals settled results and fees; refunds reduce fees', () => {
    const fee = (id: string, type: 'fee' | 'fee_refund', amount: string) =>
      ({ id, account_id: 'a', type, amount, market_id: 'm' }) as unknown as LedgerEntryView;
    const stats = computeMarketStats({
      orders: [],
      fills: [
        fill('t1', {
          status: 'settled',
          remaining: '0',
          expired_contracts: '5',
          settled_contracts: '5',
          expired_pnl: '3',
          expired_net_pnl: '2.9',
          expired_fee: '0.1',
          settlements_count: 1,
          settled_at: '2026-01-02T00:00:00.000Z',
        }),
        fill('t2', {
          action: 'sell',
          status: 'settled',
          remaining: '0',
          closed_contracts: '2',
          closed_pnl: '-1',
          closed_net_pnl: '-1.05',
          settled_at: '2026-01-01T00:00:00.000Z',
        }),
        fill('t3', { status: 'cancelled' }),
      ],
      position: null,
      feeEntries: [fee('f1', 'fee', '-0.15'), fee('f2', 'fee_refund', '0.05'), fee('f3', 'fee', '0')],
      maxPrice: '1',
      orderFeeRate: '0',
    });
    expect(stats.trade_count).to.equal(2);
    expect(stats.settlements).to.equal(1);
    expect(stats.contracts_expired).to.equal('5');
    expect(stats.sell_contracts_closed).to.equal('2');
    expect(stats.expired_premium).to.equal('2');
    expect(stats.total_fees).to.equal('0.1');
    expect(stats.total_settlement_pnl).to.equal('3');
    expect(stats.total_net_pnl).to.equal('1.85');
    expect(stats.last_settled_at).to.equal(Date.parse('2026-01-02T00:00:00.000Z') * 1000);
  });
});
