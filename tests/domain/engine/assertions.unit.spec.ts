// The decider's pre- and postconditions (domain/assert.ts): a broken one is a bug, thrown as
// AssertionFailed before anything of the step is answered or journaled.

import { expect } from 'chai';
import { AssertionFailed } from '../../../domain/assert.ts';
import { order, place, T0, tradingScenario } from './support.ts';

describe('engine: step pre- and postconditions', () => {
  it("refuses to decide a step whose seq does not come after the state's (precondition)", () => {
    const scenario = tradingScenario();
    const { engine } = scenario;
    const seq = engine.state.seq;
    expect(() => engine.step({ seq, now_us: T0, input: place('a', order('o1', 'buy', '0.40', '1')) }))
      .to.throw(AssertionFailed)
      .with.property('message')
      .that.contains("a step's seq comes after the last accepted step's");
    expect(engine.state.seq).to.equal(seq);
  });

  it('fails a step that leaves a book it traded on crossed (postcondition)', () => {
    const scenario = tradingScenario().given(place('a', order('bid', 'buy', '0.40', '2')));
    // a broken book: an offer below the resting bid, put there behind the matcher's back; the
    // next trade on the market leaves part of the bid resting above it
    const book = scenario.engine.state.markets.get('m')?.book;
    book?.add({ id: 'offer', ownerId: 'b', side: 'sell', priceCents: 30, remainingNanos: 1_000_000_000 });
    expect(() => scenario.when(place('b', order('trade', 'sell', '0.40', '1'))))
      .to.throw(AssertionFailed)
      .with.property('message')
      .that.contains('no book rests crossed after a step');
  });
});
