// Order lifecycle, as given/when/then tables over the pure engine: every status, the reasons,
// pre-open uncrossing, halts, in-play delays, expiries, cancellation and self-trade prevention.

import { expect } from 'chai';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import { messageOf, type Refusal } from '../../../domain/errors.ts';
import type { OrderStatus } from '../../../domain/views.ts';
import {
  account,
  cancel,
  deposit,
  market,
  order,
  place,
  SECOND,
  sportEvent,
  tradingScenario,
  type Scenario,
  withdraw,
} from './support.ts';

interface Row {
  name: string;
  market?: Parameters<typeof tradingScenario>[1];
  given: EngineInput[];
  when: EngineInput | ((s: Scenario) => EngineInput);
  at?: (s: Scenario) => number;
  then: {
    order: string;
    status: OrderStatus;
    filled?: string;
    cancellation_reason?: string | null;
    rejection_reason?: string | null;
    check?: (s: Scenario) => void;
  };
}

const rows: Row[] = [
  {
    name: 'a limit order that does not cross rests open',
    given: [],
    when: place('a', order('o1', 'buy', '0.40', '10')),
    then: { order: 'o1', status: 'open', filled: '0', check: (s) => expect(s.order('o1').accepted_at).to.equal(s.now) },
  },
  {
    name: 'a limit order that crosses completely is filled',
    given: [place('b', order('s1', 'sell', '0.40', '10'))],
    when: place('a', order('o1', 'buy', '0.45', '10')),
    then: {
      order: 'o1',
      status: 'filled',
      filled: '10',
      check: (s) => expect(s.order('o1').avg_price).to.equal('0.40'),
    },
  },
  {
    name: 'a partly filled limit order stays open with the rest on the book',
    given: [place('b', order('s1', 'sell', '0.40', '4'))],
    when: place('a', order('o1', 'buy', '0.45', '10')),
    then: {
      order: 'o1',
      status: 'open',
      filled: '4',
      check: (s) => expect(s.order('o1').filled_percentage).to.equal(40),
    },
  },
  {
    name: 'a market order on an empty book is cancelled (market orders never rest)',
    given: [],
    when: place('a', order('o1', 'buy', null, '10')),
    then: { order: 'o1', status: 'cancelled', filled: '0', cancellation_reason: 'no_liquidity' },
  },
  {
    name: 'a market order larger than the book is partially cancelled',
    given: [place('b', order('s1', 'sell', '0.40', '3')), place('b', order('s2', 'sell', '0.50', '3'))],
    when: place('a', order('o1', 'buy', null, '10')),
    then: { order: 'o1', status: 'partially_cancelled', filled: '6', cancellation_reason: 'market_order_remainder' },
  },
  {
    name: 'an order the account cannot fund is rejected with its reason',
    given: [],
    when: place('a', order('o1', 'buy', '0.90', '200')),
    then: {
      order: 'o1',
      status: 'rejected',
      rejection_reason: 'Insufficient funds',
      check: (s) => expect(s.order('o1').accepted_at).to.equal(null),
    },
  },
  {
    name: 'on a pre_open market a limit order rests accepted',
    market: { status: 'pre_open' },
    given: [],
    when: place('a', order('o1', 'buy', '0.40', '10')),
    then: { order: 'o1', status: 'accepted' },
  },
  {
    name: 'crossing accepted orders uncross in arrival order when the market opens',
    market: { status: 'pre_open' },
    given: [place('a', order('o1', 'buy', '0.60', '10')), place('b', order('s1', 'sell', '0.40', '4'))],
    when: { kind: 'ChangeMarketStatus', market_id: 'm', status: 'open' },
    then: {
      order: 's1',
      status: 'filled',
      filled: '4',
      check: (s) => {
        expect(s.order('o1').status).to.equal('open');
        expect(s.fills('b')[0]!.price).to.equal('0.60'); // the earlier order rests first; the trade is at its price
      },
    },
  },
  {
    name: 'an open order is cancelled on request',
    given: [place('a', order('o1', 'buy', '0.40', '10'))],
    when: cancel('a', 'o1'),
    then: { order: 'o1', status: 'cancelled', cancellation_reason: 'cancelled_by_user' },
  },
  {
    name: 'a partly filled order is partially_cancelled on request',
    given: [place('a', order('o1', 'buy', '0.40', '10')), place('b', order('s1', 'sell', '0.40', '4'))],
    when: cancel('a', 'o1'),
    then: { order: 'o1', status: 'partially_cancelled', filled: '4', cancellation_reason: 'cancelled_by_user' },
  },
  {
    name: 'self-trade prevention cancels the resting order of the same account',
    given: [place('a', order('s1', 'sell', '0.40', '5'))],
    when: place('a', order('o1', 'buy', '0.45', '10')),
    then: {
      order: 'o1',
      status: 'open',
      filled: '0',
      check: (s) =>
        expect(s.order('s1')).to.include({ status: 'cancelled', cancellation_reason: 'self_trade_prevented' }),
    },
  },
  {
    name: "a market order passes its own cancelled resting orders and fills against other accounts' orders behind them",
    given: [place('a', order('own', 'buy', '0.30', '1')), place('b', order('b1', 'buy', '0.20', '1'))],
    when: place('a', order('m1', 'sell', null, '1', { order_type: 'market' })),
    then: {
      order: 'm1',
      status: 'filled',
      filled: '1',
      check: (s) => {
        expect(s.order('own')).to.include({ status: 'cancelled', cancellation_reason: 'self_trade_prevented' });
        expect(s.order('b1')).to.include({ status: 'filled', filled: '1' });
        expect(s.fills('a').map((fill) => fill.price)).to.deep.equal(['0.20']);
      },
    },
  },
  {
    name: 'a market order facing only its own resting orders finds no liquidity and leaves them resting',
    given: [place('a', order('own', 'buy', '0.30', '1'))],
    when: place('a', order('m1', 'sell', null, '1', { order_type: 'market' })),
    then: {
      order: 'm1',
      status: 'cancelled',
      filled: '0',
      cancellation_reason: 'no_liquidity',
      check: (s) => expect(s.order('own')).to.include({ status: 'open' }),
    },
  },
  {
    name: 'good_till_start orders are cancelled when the event starts',
    given: [place('a', order('o1', 'buy', '0.40', '10', { expiration: 'good_till_start' }))],
    when: { kind: 'StartSportEvent', event_id: 'ev' },
    then: { order: 'o1', status: 'cancelled', cancellation_reason: 'event_started' },
  },
  {
    name: 'good_till_time orders expire on the first tick at or after their time',
    given: [],
    when: (s) =>
      place(
        'a',
        order('o1', 'buy', '0.40', '10', { expiration: 'good_till_time', expiration_time: s.now + 10 * SECOND }),
      ),
    then: {
      order: 'o1',
      status: 'open',
      check: (s) => {
        s.when({ kind: 'Tick' }, s.now + 5 * SECOND);
        expect(s.order('o1').status).to.equal('open');
        s.when({ kind: 'Tick' }, s.now + 5 * SECOND);
        expect(s.order('o1')).to.include({ status: 'cancelled', cancellation_reason: 'expired' });
      },
    },
  },
  {
    name: 'in play, orders wait delayed for in_play_delay_sec and are released by a tick',
    market: { in_play_delay_sec: 5 },
    given: [{ kind: 'StartSportEvent', event_id: 'ev' }, place('b', order('s1', 'sell', '0.40', '10'))],
    when: place('a', order('o1', 'buy', '0.40', '10')),
    then: {
      order: 'o1',
      status: 'delayed',
      check: (s) => {
        const placedAt = s.now;
        expect(s.order('o1').delayed_until).to.equal(placedAt + 5 * SECOND);
        expect(s.order('o1').accepted_at).to.equal(null);
        s.when({ kind: 'Tick' }, placedAt + 4 * SECOND);
        expect(s.order('o1').status).to.equal('delayed');
        s.when({ kind: 'Tick' }, placedAt + 5 * SECOND);
        expect(s.order('o1')).to.include({ status: 'filled', filled: '10', placed_pre_start: false });
      },
    },
  },
  {
    name: 'closing the market cancels its live orders',
    given: [place('a', order('o1', 'buy', '0.40', '10'))],
    when: { kind: 'ChangeMarketStatus', market_id: 'm', status: 'closed' },
    then: { order: 'o1', status: 'cancelled', cancellation_reason: 'market_closed' },
  },
  {
    name: 'a cancelled market cancels its live orders',
    given: [place('a', order('o1', 'buy', '0.40', '10'))],
    when: { kind: 'ChangeMarketStatus', market_id: 'm', status: 'cancelled' },
    then: { order: 'o1', status: 'cancelled', cancellation_reason: 'market_cancelled' },
  },
  {
    name: 'delayed orders wait through a halt and go in when trading resumes',
    market: { in_play_delay_sec: 2 },
    given: [
      { kind: 'StartSportEvent', event_id: 'ev' },
      place('a', order('o1', 'buy', '0.40', '10')),
      { kind: 'ChangeMarketStatus', market_id: 'm', trading: false },
    ],
    when: { kind: 'Tick' },
    at: (s) => s.now + 10 * SECOND,
    then: {
      order: 'o1',
      status: 'delayed',
      check: (s) => {
        s.when({ kind: 'ChangeMarketStatus', market_id: 'm', trading: true });
        expect(s.order('o1')).to.include({ status: 'open' });
        expect(s.order('o1').accepted_at).to.equal(s.now);
      },
    },
  },
  {
    name: 'in play, market orders are delayed too',
    market: { in_play_delay_sec: 2 },
    given: [place('b', order('s1', 'sell', '0.40', '10')), { kind: 'StartSportEvent', event_id: 'ev' }],
    when: place('a', order('o1', 'buy', null, '4')),
    then: {
      order: 'o1',
      status: 'delayed',
      check: (s) => {
        s.when({ kind: 'Tick' }, s.now + 3 * SECOND);
        expect(s.order('o1')).to.include({ status: 'filled', filled: '4' });
      },
    },
  },
  {
    name: 'uncrossing at open applies self-trade prevention',
    market: { status: 'pre_open' },
    given: [place('a', order('o1', 'buy', '0.60', '10')), place('a', order('o2', 'sell', '0.40', '4'))],
    when: { kind: 'ChangeMarketStatus', market_id: 'm', status: 'open' },
    then: {
      order: 'o1',
      status: 'cancelled',
      cancellation_reason: 'self_trade_prevented',
      check: (s) => expect(s.order('o2').status).to.equal('open'),
    },
  },
  {
    name: 'a halt keeps resting orders open',
    given: [place('a', order('o1', 'buy', '0.40', '10'))],
    when: { kind: 'ChangeMarketStatus', market_id: 'm', trading: false },
    then: { order: 'o1', status: 'open' },
  },
];

describe('order lifecycle', () => {
  for (const row of rows) {
    it(row.name, () => {
      const s = tradingScenario('100.00', row.market ?? {});
      s.given(...row.given);
      const input = typeof row.when === 'function' ? row.when(s) : row.when;
      const outcome = s.when(input, row.at?.(s));
      expect(outcome.ok, JSON.stringify(outcome.error)).to.equal(true);
      const view = s.order(row.then.order);
      expect(view.status).to.equal(row.then.status);
      if (row.then.filled !== undefined) expect(view.filled).to.equal(row.then.filled);
      if (row.then.cancellation_reason !== undefined)
        expect(view.cancellation_reason).to.equal(row.then.cancellation_reason);
      if (row.then.rejection_reason !== undefined) expect(view.rejection_reason).to.equal(row.then.rejection_reason);
      row.then.check?.(s);
    });
  }
});

describe('refusals create no order and change nothing', () => {
  // the answers more than one refusal below gives
  const AT_MAX_PRICE = {
    refusal: { code: 'price_at_or_above_max', max_price: '1.00' },
    message: "price must be less than the market's max_price (1.00)",
  } as const;
  const NOT_ACCEPTING_ORDERS = {
    refusal: { code: 'market_not_accepting_orders' },
    message: 'Market is not accepting orders',
  } as const;
  const ORDER_NOT_FOUND = { refusal: { code: 'order_not_found' }, message: 'Order not found' } as const;
  const refusals: {
    name: string;
    setup?: EngineInput[];
    market?: Parameters<typeof tradingScenario>[1];
    input: EngineInput;
    refusal: Refusal;
    message: string;
  }[] = [
    {
      name: 'unknown market',
      input: place('a', order('o1', 'buy', '0.40', '1', { market_id: 'nope' })),
      refusal: { code: 'order_market_unknown' },
      message: 'Market not found',
    },
    {
      name: 'price at max_price',
      input: place('a', order('o1', 'buy', '1.00', '1')),
      ...AT_MAX_PRICE,
    },
    {
      name: 'market order priced at max_price (validated though unused)',
      input: place('a', order('o1', 'sell', '1.00', '1', { order_type: 'market' })),
      ...AT_MAX_PRICE,
    },
    {
      name: 'market order priced above max_price',
      input: place('a', order('o1', 'buy', '5.00', '1', { order_type: 'market' })),
      ...AT_MAX_PRICE,
    },
    {
      name: 'sub-cent price',
      input: place('a', order('o1', 'buy', '0.405', '1')),
      refusal: { code: 'price_sub_cent' },
      message: 'price must be a whole number of cents (at most two decimal places)',
    },
    {
      name: 'halted market',
      setup: [{ kind: 'ChangeMarketStatus', market_id: 'm', trading: false }],
      input: place('a', order('o1', 'buy', '0.40', '1')),
      ...NOT_ACCEPTING_ORDERS,
    },
    {
      name: 'scheduled market',
      market: { status: 'scheduled' },
      input: place('a', order('o1', 'buy', '0.40', '1')),
      ...NOT_ACCEPTING_ORDERS,
    },
    {
      name: 'market order before open',
      market: { status: 'pre_open' },
      input: place('a', order('o1', 'buy', null, '1')),
      refusal: { code: 'market_order_before_open' },
      message: 'Market orders are not accepted before the market opens',
    },
    {
      name: 'unknown account',
      input: place('zz', order('o1', 'buy', '0.40', '1')),
      refusal: { code: 'order_account_unknown' },
      message: 'Account not found',
    },
    {
      name: 'suspended account',
      setup: [{ kind: 'UpdateAccount', account_id: 'a', fields: { status: 'suspended' } }],
      input: place('a', order('o1', 'buy', '0.40', '1')),
      refusal: { code: 'order_account_not_active' },
      message: 'Account is not active',
    },
    {
      name: 'duplicate order id',
      setup: [place('a', order('o1', 'buy', '0.40', '1'))],
      input: place('a', order('o1', 'buy', '0.40', '1')),
      refusal: { code: 'order_exists' },
      message: 'Order already exists',
    },
    {
      name: 'good_till_start after the start',
      setup: [{ kind: 'StartSportEvent', event_id: 'ev' }],
      input: place('a', order('o1', 'buy', '0.40', '1', { expiration: 'good_till_start' })),
      refusal: { code: 'event_started' },
      message: 'Event has already started',
    },
    {
      name: 'cancel of an unknown order',
      input: cancel('a', 'nope'),
      ...ORDER_NOT_FOUND,
    },
    {
      name: "cancel of another account's order",
      setup: [place('b', order('o1', 'buy', '0.40', '1'))],
      input: cancel('a', 'o1'),
      ...ORDER_NOT_FOUND,
    },
    {
      name: 'cancel of a finished order',
      setup: [place('a', order('o1', 'buy', '0.40', '1')), cancel('a', 'o1')],
      input: cancel('a', 'o1'),
      refusal: { code: 'order_not_cancellable' },
      message: 'Order can no longer be cancelled',
    },
    {
      name: 'withdrawal above the available balance',
      input: withdraw('a', '100.01', 'w'),
      refusal: { code: 'insufficient_funds' },
      message: 'Insufficient funds',
    },
    {
      name: 'deposit of zero',
      input: deposit('a', '0'),
      refusal: { code: 'amount_not_positive' },
      message: 'amount must be greater than 0',
    },
    {
      name: 'a market symbol already in use (symbols are unique)',
      setup: [market('m2', { symbol: 'ARS-W' })],
      input: market('m3', { symbol: 'ARS-W' }),
      refusal: { code: 'symbol_taken', symbol: 'ARS-W' },
      message: 'symbol ARS-W is already used by another market',
    },
  ];
  for (const row of refusals) {
    it(row.name, () => {
      const s = tradingScenario('100.00', row.market ?? {});
      s.given(...(row.setup ?? []));
      const seq = s.engine.state.seq;
      const outcome = s.when(row.input);
      expect(outcome.ok).to.equal(false);
      expect(outcome.error).to.deep.equal(row.refusal);
      expect(messageOf(outcome.error!)).to.equal(row.message);
      expect(outcome.events).to.deep.equal([]);
      expect(s.engine.state.seq).to.equal(seq);
    });
  }
});

describe('batches', () => {
  it('places each leg on its own: a refused leg does not fail the others', () => {
    const s = tradingScenario();
    const outcome = s.when({
      kind: 'PlaceOrders',
      account_id: 'a',
      orders: [order('o1', 'buy', '0.40', '1'), order('o2', 'buy', '1.40', '1'), order('o3', 'sell', '0.60', '1')],
    });
    expect(outcome.ok).to.equal(true);
    expect(outcome.legs!.map((l) => l.order?.status ?? l.error)).to.deep.equal([
      'open',
      { code: 'price_at_or_above_max', max_price: '1.00' },
      'open',
    ]);
  });

  it('cancels each leg on its own and names unknown ids', () => {
    const s = tradingScenario().given(place('a', order('o1', 'buy', '0.40', '1')));
    const outcome = s.when({ kind: 'CancelOrders', account_id: 'a', order_ids: ['o1', 'nope'] });
    expect(outcome.legs!.map((l) => l.order?.status ?? l.error)).to.deep.equal([
      'cancelled',
      { code: 'order_not_found' },
    ]);
  });
});

describe('markets and events', () => {
  it('refuses a market for an unknown event and a duplicate market', () => {
    const s = tradingScenario();
    expect(s.when(market('m')).error).to.deep.equal({ code: 'market_exists' });
    expect(s.when(market('m2', { event_id: 'nope' })).error).to.deep.equal({ code: 'event_not_found' });
  });

  it('refuses status changes after a result, the same result again, and a void of a resulted market', () => {
    const s = tradingScenario().given({ kind: 'ResultMarket', market_id: 'm', result: 'win' });
    expect(s.when({ kind: 'ChangeMarketStatus', market_id: 'm', status: 'open' }).error).to.deep.equal({
      code: 'market_settled',
    });
    expect(s.when({ kind: 'ResultMarket', market_id: 'm', result: 'win' }).error).to.deep.equal({
      code: 'market_settled',
    });
    expect(s.when({ kind: 'ResultMarket', market_id: 'm', result: 'void' }).error).to.deep.equal({
      code: 'resulted_market_not_voidable',
    });
  });

  it('states event start and account changes as facts, and answers the operator with the views', () => {
    const s = tradingScenario().given(account('c'), sportEvent('ev2'));
    const started = s.when({ kind: 'StartSportEvent', event_id: 'ev2' });
    expect(started.events[0]).to.deep.equal({ type: 'SportEventStarted', event_id: 'ev2' });
    expect(started.answer?.sportEvents[0]).to.include({ event_id: 'ev2', status: 'in_progress', started_at: s.now });
    const updated = s.when({ kind: 'UpdateAccount', account_id: 'c', fields: { status: 'suspended' } });
    expect(updated.events.find((e) => e.type === 'AccountUpdated')).to.include({
      account_id: 'c',
      status: 'suspended',
    });
    expect(updated.answer?.accounts[0]).to.include({ account_id: 'c', status: 'suspended', updated_at: s.now });
    expect(s.views.account('c')).to.deep.equal(updated.answer?.accounts[0]);
  });
});
