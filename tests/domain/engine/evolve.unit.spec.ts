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
import { FoldedViews } from '../../support/views.ts';
import { account, deposit, market, order, SECOND, sportEvent, T0 } from './support.ts';

const ACCOUNTS = ['a', 'b', 'c'];
const MARKETS = ['m1', 'm2'];
const price = fc.integer({ min: 1, max: 99 }).map((cents) => `0.${String(cents).padStart(2, '0')}`);

const command = fc.oneof(
  {
    weight: 10,
    arbitrary: fc.record({
      kind: fc.constant('limit' as const),
      who: fc.constantFrom(...ACCOUNTS),
      m: fc.constantFrom(...MARKETS),
      side: fc.constantFrom('buy' as const, 'sell' as const),
      price,
      qty: fc.constantFrom('1', '2', '0.5', '3.333333333', '10'),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('market' as const),
      who: fc.constantFrom(...ACCOUNTS),
      m: fc.constantFrom(...MARKETS),
      side: fc.constantFrom('buy' as const, 'sell' as const),
      qty: fc.constantFrom('1', '4', '0.7'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('timed' as const),
      who: fc.constantFrom(...ACCOUNTS),
      m: fc.constantFrom(...MARKETS),
      side: fc.constantFrom('buy' as const, 'sell' as const),
      price,
      seconds: fc.integer({ min: 1, max: 4 }),
      gts: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('batch' as const),
      who: fc.constantFrom(...ACCOUNTS),
      m: fc.constantFrom(...MARKETS),
      legs: fc.array(fc.record({ side: fc.constantFrom('buy' as const, 'sell' as const), price }), {
        minLength: 1,
        maxLength: 4,
      }),
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('cancel' as const), who: fc.constantFrom(...ACCOUNTS), index: fc.nat() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('schedule' as const),
      who: fc.constantFrom(...ACCOUNTS),
      schedule: fc.constantFrom('fixed_percent' as const, 'on_trade' as const, 'loyalty_tier_on_trade' as const),
      percent: fc.constantFrom(null, 3, 20),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('referral' as const),
      referrer: fc.constantFrom(...ACCOUNTS),
      referee: fc.constantFrom(...ACCOUNTS),
      points: fc.constantFrom(null, 500, 20_000),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('groupFee' as const),
      percent: fc.constantFrom(null, 5),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('cancelAll' as const),
      who: fc.constantFrom(...ACCOUNTS),
      m: fc.option(fc.constantFrom(...MARKETS), { nil: null }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('withdraw' as const),
      who: fc.constantFrom(...ACCOUNTS),
      amount: fc.constantFrom('1.00', '30.00'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('archive' as const),
      m: fc.constantFrom(...MARKETS),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('delay' as const),
      m: fc.constantFrom(...MARKETS),
      seconds: fc.constantFrom(0, 2),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('money' as const),
      who: fc.constantFrom(...ACCOUNTS),
      amount: fc.constantFrom('5.55', '-1.25', '20.00'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('status' as const),
      m: fc.constantFrom(...MARKETS),
      status: fc.constantFrom('open' as const, 'pre_open' as const, 'closed' as const),
      trading: fc.boolean(),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('result' as const),
      m: fc.constantFrom(...MARKETS),
      result: fc.constantFrom('win' as const, 'lose' as const, 'void' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('amend' as const), index: fc.nat(), price }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('fees' as const),
      who: fc.constantFrom(...ACCOUNTS),
      percent: fc.constantFrom(null, 5, 10),
      market: fc.option(fc.constantFrom(...MARKETS), { nil: null }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('catalogue' as const),
      m: fc.constantFrom(...MARKETS),
      title: fc.constantFrom('A', 'B'),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'start' as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'tick' as const }) },
);
type Command = typeof command extends fc.Arbitrary<infer T> ? T : never;

function inputOf(
  cmd: Command,
  i: number,
  placed: { who: string; id: string }[],
  fills: string[],
  now: number,
): EngineInput {
  switch (cmd.kind) {
    case 'limit':
    case 'market': {
      const id = `o${i}`;
      placed.push({ who: cmd.who, id });
      return {
        kind: 'PlaceOrder',
        account_id: cmd.who,
        order: order(id, cmd.side, cmd.kind === 'limit' ? cmd.price : null, cmd.qty, { market_id: cmd.m }),
      };
    }
    case 'timed': {
      const id = `o${i}`;
      placed.push({ who: cmd.who, id });
      const expiry = cmd.gts
        ? { expiration: 'good_till_start' as const }
        : { expiration: 'good_till_time' as const, expiration_time: now + SECOND + cmd.seconds * SECOND };
      return {
        kind: 'PlaceOrder',
        account_id: cmd.who,
        order: order(id, cmd.side, cmd.price, '1', { market_id: cmd.m, ...expiry }),
      };
    }
    case 'batch':
      return {
        kind: 'PlaceOrders',
        account_id: cmd.who,
        limits: { live_orders_max: 6, risk_min_cents: 1 },
        orders: cmd.legs.map((leg, j) => {
          const id = `o${i}-${j}`;
          placed.push({ who: cmd.who, id });
          return order(id, leg.side, leg.price, '1', { market_id: cmd.m });
        }),
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
    case 'withdraw':
      return {
        kind: 'Withdraw',
        account_id: cmd.who,
        entry_id: `w${i}`,
        amount: cmd.amount,
        method: null,
        reason: null,
        sub_method: null,
      };
    case 'archive':
      return { kind: 'UpdateMarket', market_id: cmd.m, changes: {}, archived: true } as unknown as EngineInput;
    case 'delay':
      return {
        kind: 'UpdateMarket',
        market_id: cmd.m,
        changes: { in_play_delay_sec: cmd.seconds },
      } as unknown as EngineInput;
    case 'cancel': {
      const target = placed[cmd.index % Math.max(placed.length, 1)];
      return { kind: 'CancelOrder', account_id: target?.who ?? cmd.who, order_id: target?.id ?? 'none' };
    }
    case 'money':
      return { kind: 'Adjust', account_id: cmd.who, entry_id: `j${i}`, amount: cmd.amount, reason: null };
    case 'status':
      return { kind: 'ChangeMarketStatus', market_id: cmd.m, status: cmd.status, trading: cmd.trading };
    case 'result':
      return { kind: 'ResultMarket', market_id: cmd.m, result: cmd.result };
    case 'amend':
      return { kind: 'AmendFill', trade_id: fills[cmd.index % Math.max(fills.length, 1)] ?? 'none', price: cmd.price };
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
    case 'start':
      return { kind: 'StartSportEvent', event_id: 'ev' };
    case 'tick':
      return { kind: 'Tick' };
    default: {
      const never: never = cmd;
      throw new Error(String(never));
    }
  }
}

/** The hash of the folded records the engine's state holds (the fold keeps finished orders and settled fills too). */
function foldedHashOf(views: FoldedViews, state: EngineState): string {
  const { store } = views;
  const pick = <T>(map: Map<string, { record: T }>, ids: Iterable<string>): T[] =>
    [...ids].map((id) => {
      const stored = map.get(id);
      if (!stored) throw new Error(`the fold holds no ${id}`);
      return stored.record;
    });
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
  for (const input of [
    ...ACCOUNTS.map((id) => account(id)),
    ...ACCOUNTS.map((id) => deposit(id, '50.00')),
    sportEvent(),
    market('m1', { points_cost: 1 }),
    market('m2', { status: 'pre_open' }),
  ])
    run(input);
  const placed: { who: string; id: string }[] = [];
  const fills: string[] = [];
  commands.forEach((cmd, i) => {
    const outcome = run(inputOf(cmd, i, placed, fills, now));
    for (const fact of outcome.events) if (fact.type === 'Traded') fills.push(fact.maker_fill_id, fact.taker_fill_id);
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
