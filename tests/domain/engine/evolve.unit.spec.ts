// One evolve: folding a journal's facts from zero with the domain's evolve (the read models' own
// fold, projections/facts/fold.ts, which calls domain/evolve/) gives, after every step, the very
// records the engine holds: the hash of the engine's records (snapshot.ts recordsHashOf) equals
// the hash of the same records folded from the facts, whatever the history.

import { expect } from 'chai';
import fc from 'fast-check';
import { Engine } from '../../../domain/engine/engine.ts';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import { recordsHashOf } from '../../../domain/engine/snapshot.ts';
import type { EngineState } from '../../../domain/engine/state.ts';
import { recordsHash } from '../../../domain/evolve/digest.ts';
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
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('cancel' as const), who: fc.constantFrom(...ACCOUNTS), index: fc.nat() }),
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

function inputOf(cmd: Command, i: number, placed: { who: string; id: string }[], fills: string[]): EngineInput {
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
      return { kind: 'SetSettlementFee', scope: 'event', scope_id: 'ev', percent: cmd.percent };
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

describe("one evolve: folding the facts from zero gives the engine's records", function () {
  this.timeout(90_000);

  it('after every step, the hash of the folded records is the hash of the records the engine holds', () => {
    fc.assert(
      fc.property(fc.array(command, { minLength: 1, maxLength: 60 }), (commands) => {
        const engine = new Engine();
        const views = new FoldedViews();
        let seq = 0;
        let now = T0;
        const run = (input: EngineInput) => {
          now += SECOND;
          const outcome = engine.step({ seq: seq + 1, now_us: now, input });
          if (!outcome.ok || outcome.events.length === 0) return outcome;
          seq++;
          views.step(seq, now, outcome.events);
          expect(foldedHashOf(views, engine.state), `after step ${seq} (${input.kind})`).to.equal(
            recordsHashOf(engine.state),
          );
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
          const outcome = run(inputOf(cmd, i, placed, fills));
          for (const fact of outcome.events)
            if (fact.type === 'Traded') fills.push(fact.maker_fill_id, fact.taker_fill_id);
        });
      }),
      { numRuns: Number(process.env.ENGINE_PROPERTY_RUNS ?? 100) },
    );
  });
});
