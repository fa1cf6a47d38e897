// One evolve: folding a journal's facts from zero with the domain's evolve gives, after every
// step, what the engine holds: the read models' own fold (projections/facts/fold.ts, which calls
// domain/evolve/) the very records (the hash of the engine's records, snapshot.ts recordsHashOf,
// equals the hash of the same records folded from the facts), and the fold of the engine's whole
// state (domain/evolve/state.ts) the state whose hash the engine reports (snapshot.ts stateHash),
// whatever the history.

import { expect } from 'chai';
import fc from 'fast-check';
import { Engine } from '../../../domain/engine/engine.ts';
import type { EngineEvent } from '../../../domain/engine/events.ts';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import { initialState, recordsHashOf, stateHash } from '../../../domain/engine/snapshot.ts';
import type { EngineState } from '../../../domain/engine/state.ts';
import { recordsHash } from '../../../domain/evolve/digest.ts';
import { EngineStateFold } from '../../../domain/evolve/state.ts';
import type { PositionRecord } from '../../../domain/readModel/records.ts';
import { positionKey } from '../../../projections/facts/fold.ts';
import { FoldedViews, recordOf } from '../../support/views.ts';
import {
  anyAccount,
  anyMarket,
  anyPrice,
  anySide,
  commandCase,
  commonInput,
  historyStart,
  HistorySoFar,
  orderCases,
} from './randomCommands.ts';
import { order, place, SECOND, T0 } from './support.ts';

const command = fc.oneof(
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
type Command = typeof command extends fc.Arbitrary<infer T> ? T : never;

function inputOf(cmd: Command, i: number, history: HistorySoFar, now: number): EngineInput {
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

/** The hash of the folded records the engine's state holds (the fold keeps finished orders and settled fills too). */
function foldedHashOf(views: FoldedViews, state: EngineState): string {
  const { store } = views;
  const pick = <T>(map: Map<string, { record: T }>, ids: Iterable<string>): T[] =>
    [...ids].map((id) => recordOf(map, id, `the fold holds no ${id}`));
  const positions: PositionRecord[] = [];
  for (const acct of state.accounts.values()) {
    for (const marketId of acct.exposures.keys()) {
      // an exposure of only live orders has no position record until its first trade: the fold starts it there
      const folded = store.positions.get(positionKey(acct.id, marketId));
      positions.push(folded ? folded.record : { ...acct.exposures.get(marketId)! });
    }
  }
  return recordsHash({
    orders: pick(store.orders, state.orders.keys()),
    fills: pick(store.fills, state.fills.keys()),
    positions,
    accounts: pick(store.accounts, state.accounts.keys()),
    markets: pick(store.markets, state.markets.keys()),
    sportEvents: pick(store.sportEvents, state.sportEvents.keys()),
  });
}

/**
 * Runs a random history on a fresh engine; after every journaled step `check` gets the step's
 * sequence, time, input and facts, and the engine after it.
 */
function runHistory(
  commands: Command[],
  check: (seq: number, now: number, input: EngineInput, facts: EngineEvent[], engine: Engine) => void,
): void {
  const engine = new Engine();
  let seq = 0;
  let now = T0;
  const run = (input: EngineInput) => {
    now += SECOND;
    const outcome = engine.step({ seq: seq + 1, now_us: now, input });
    if (!outcome.ok || outcome.events.length === 0) return outcome;
    seq++;
    check(seq, now, input, outcome.events, engine);
    return outcome;
  };
  for (const input of historyStart('50.00')) run(input);
  const history = new HistorySoFar();
  commands.forEach((cmd, i) => {
    const outcome = run(inputOf(cmd, i, history, now));
    for (const fact of outcome.events)
      if (fact.type === 'Traded') history.fills.push(fact.maker_fill_id, fact.taker_fill_id);
  });
}

describe("one evolve: folding the facts from zero gives the engine's records and state", function () {
  this.timeout(90_000);

  it('after every step, the hash of the folded records is the hash of the records the engine holds', () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 60 }), (commands) => {
        const views = new FoldedViews();
        runHistory(commands, (seq, now, input, facts, engine) => {
          views.step(seq, now, facts);
          expect(foldedHashOf(views, engine.state), `after step ${seq} (${input.kind})`).to.equal(
            recordsHashOf(engine.state),
          );
        });
      }),
      { numRuns: Number(process.env.ENGINE_PROPERTY_RUNS ?? 100) },
    );
  });

  it("after every step, the state folded from zero has the engine's state hash", () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 60, size: 'medium' }), (commands) => {
        const fold = new EngineStateFold(initialState());
        runHistory(commands, (seq, now, input, facts, engine) => {
          fold.step(seq, now, facts);
          expect(stateHash(fold.state), `after step ${seq} (${input.kind})`).to.equal(stateHash(engine.state));
        });
      }),
      { numRuns: Number(process.env.ENGINE_PROPERTY_RUNS ?? 100) },
    );
  });
});
