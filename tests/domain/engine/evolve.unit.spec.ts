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
import { anyCommand, inputOfCommand, type AnyCommand } from './anyCommand.ts';
import { historyStart, HistorySoFar } from './randomCommands.ts';
import { SECOND, T0 } from './support.ts';

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
  commands: AnyCommand[],
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
    const outcome = run(inputOfCommand(cmd, i, history, now));
    for (const fact of outcome.events)
      if (fact.type === 'Traded') history.fills.push(fact.maker_fill_id, fact.taker_fill_id);
  });
}

describe("one evolve: folding the facts from zero gives the engine's records and state", function () {
  this.timeout(90_000);

  it('after every step, the hash of the folded records is the hash of the records the engine holds', () => {
    fc.assert(
      fc.property(fc.array(anyCommand, { minLength: 1, maxLength: 60 }), (commands) => {
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
      fc.property(fc.array(anyCommand, { minLength: 1, maxLength: 60, size: 'medium' }), (commands) => {
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
