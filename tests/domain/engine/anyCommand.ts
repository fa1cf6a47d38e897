// A random history of every kind of engine input, for the property tests that hold a whole
// history to a fold of its facts: orders of every kind (limit, market, timed, batched, cancels),
// fee schedules, referrals, settlement fees, market and event changes, results, amendments and
// ticks, each drawn as a command and turned into the engine's input.

import fc from 'fast-check';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import {
  anyAccount,
  anyMarket,
  anyPrice,
  anySide,
  commandCase,
  commonInput,
  type HistorySoFar,
  orderCases,
} from './randomCommands.ts';
import { order, place, SECOND } from './support.ts';

export const anyCommand = fc.oneof(
  ...orderCases(['1', '2', '0.5', '3.333333333', '10']),
  commandCase(2, 'timed', {
    who: anyAccount,
    m: anyMarket,
    side: anySide,
    price: anyPrice,
    seconds: fc.integer({ min: 1, max: 4 }),
    gts: fc.boolean(),
  }),
  commandCase(1, 'batch', {
    who: anyAccount,
    m: anyMarket,
    legs: fc.array(fc.record({ side: anySide, price: anyPrice }), { minLength: 1, maxLength: 4 }),
  }),
  commandCase(1, 'schedule', {
    who: anyAccount,
    schedule: fc.constantFrom('fixed_percent' as const, 'on_trade' as const, 'loyalty_tier_on_trade' as const),
    percent: fc.constantFrom(null, 3, 20),
  }),
  commandCase(1, 'referral', {
    referrer: anyAccount,
    referee: anyAccount,
    points: fc.constantFrom(null, 500, 20_000),
  }),
  commandCase(1, 'groupFee', { percent: fc.constantFrom(null, 5) }),
  commandCase(1, 'cancelAll', { who: anyAccount, m: fc.option(anyMarket, { nil: null }) }),
  commandCase(1, 'withdraw', { who: anyAccount, amount: fc.constantFrom('1.00', '30.00') }),
  commandCase(1, 'archive', { m: anyMarket }),
  commandCase(1, 'delay', { m: anyMarket, seconds: fc.constantFrom(0, 2) }),
  commandCase(2, 'adjust', { who: anyAccount, amount: fc.constantFrom('5.55', '-1.25', '20.00') }),
  commandCase(1, 'status', {
    m: anyMarket,
    status: fc.constantFrom('open' as const, 'pre_open' as const, 'closed' as const),
    trading: fc.boolean(),
  }),
  commandCase(1, 'result', { m: anyMarket, result: fc.constantFrom('win' as const, 'lose' as const, 'void' as const) }),
  commandCase(1, 'amend', { index: fc.nat(), price: anyPrice }),
  commandCase(1, 'fees', {
    who: anyAccount,
    percent: fc.constantFrom(null, 5, 10),
    market: fc.option(anyMarket, { nil: null }),
  }),
  commandCase(1, 'catalogue', { m: anyMarket, title: fc.constantFrom('A', 'B') }),
  commandCase(1, 'start', {}),
  commandCase(2, 'tick', {}),
);
export type AnyCommand = typeof anyCommand extends fc.Arbitrary<infer T> ? T : never;

/** The engine input of the history's `i`th command (order ids `o<i>`, legs `o<i>-<j>`), at engine time `now`. */
export function inputOfCommand(cmd: AnyCommand, i: number, history: HistorySoFar, now: number): EngineInput {
  switch (cmd.kind) {
    case 'limit':
    case 'market':
      return place(
        cmd.who,
        history.noted(
          cmd.who,
          order(`o${i}`, cmd.side, cmd.kind === 'limit' ? cmd.price : null, cmd.qty, { market_id: cmd.m }),
        ),
      );
    case 'timed': {
      const expiry = cmd.gts
        ? { expiration: 'good_till_start' as const }
        : { expiration: 'good_till_time' as const, expiration_time: now + SECOND + cmd.seconds * SECOND };
      return place(
        cmd.who,
        history.noted(cmd.who, order(`o${i}`, cmd.side, cmd.price, '1', { market_id: cmd.m, ...expiry })),
      );
    }
    case 'batch':
      return {
        kind: 'PlaceOrders',
        account_id: cmd.who,
        limits: { live_orders_max: 6, risk_min_cents: 1 },
        orders: cmd.legs.map((leg, j) =>
          history.noted(cmd.who, order(`o${i}-${j}`, leg.side, leg.price, '1', { market_id: cmd.m })),
        ),
      };
    case 'schedule':
      return {
        kind: 'UpdateAccount',
        account_id: cmd.who,
        fields: { fee_schedule: cmd.schedule, base_fee_percent: cmd.percent },
      };
    case 'referral':
      return cmd.points === null
        ? { kind: 'RecordReferral', referrer_account_id: cmd.referrer, referee_account_id: cmd.referee }
        : { kind: 'SetReferralPoints', points: cmd.points };
    case 'groupFee':
      return { kind: 'SetSettlementFee', scope: 'market_group', scope_id: 'g', percent: cmd.percent };
    case 'cancelAll':
      return { kind: 'CancelAccountOrders', account_id: cmd.who, market_id: cmd.m, cancel_on_disconnect_only: false };
    case 'archive':
      return { kind: 'UpdateMarket', market_id: cmd.m, changes: {}, archived: true } as unknown as EngineInput;
    case 'delay':
      return {
        kind: 'UpdateMarket',
        market_id: cmd.m,
        changes: { in_play_delay_sec: cmd.seconds },
      } as unknown as EngineInput;
    case 'cancel': {
      const target = history.placedAt(cmd.index);
      return { kind: 'CancelOrder', account_id: target?.who ?? cmd.who, order_id: target?.id ?? 'none' };
    }
    case 'fees':
      return cmd.market === null
        ? { kind: 'SetSettlementFee', scope: 'event', scope_id: 'ev', percent: cmd.percent }
        : { kind: 'SetSettlementFee', scope: 'market', scope_id: cmd.market, percent: cmd.percent };
    case 'catalogue':
      return {
        kind: 'UpdateMarket',
        market_id: cmd.m,
        changes: { title: cmd.title, keywords: [cmd.title] },
      } as unknown as EngineInput;
    default:
      return commonInput(cmd, i, history);
  }
}
