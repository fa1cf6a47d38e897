// The publisher stage: once a batch is durable every caller gets its record's position, each
// account it touched is noted for read-your-writes, and the book levels the batch moved are
// announced (only when something was journaled); a failed batch refuses every caller.

import { expect } from 'chai';
import pino from 'pino';
import { Engine } from '../../domain/engine/engine.ts';
import { Batch } from '../../engine/batch.ts';
import { Decider } from '../../engine/decider.ts';
import type { BookChange } from '../../engine/publisher.ts';
import { Publisher } from '../../engine/publisher.ts';
import { account, deposit, market, order, place, sportEvent, T0 } from '../domain/engine/support.ts';
import { pending, type Observed } from './stages.ts';

const logger = pino({ level: 'silent' });

function setup() {
  const decider = new Decider(new Engine(), logger);
  const noted: Array<[string, bigint]> = [];
  const publisher = new Publisher(
    { note: (id, position) => noted.push([id, position]), lastFor: () => undefined },
    logger,
    () => decider.engine.state,
  );
  const changes: BookChange[] = [];
  publisher.onChange((change) => changes.push(change));
  const decide = (inputs: Observed[]): Batch => {
    const batch = new Batch(decider.books);
    decider.decide(batch, inputs);
    batch.seal();
    return batch;
  };
  return { decider, publisher, noted, changes, decide };
}

describe('engine stage: publisher', () => {
  it("answers each caller with its record's position (refused ones with the head) and notes the accounts touched", () => {
    const { publisher, noted, decide } = setup();
    const inputs = [account('a'), deposit('nobody', '1')].map((input) => pending(input, T0));
    const batch = decide(inputs);
    publisher.answer(batch, { position: 41n, recordPosition: () => 41n });
    expect(inputs.map((p) => p.outcome?.reply?.position)).to.deep.equal([41n, 41n]);
    expect(inputs.map((p) => p.outcome?.reply?.ok)).to.deep.equal([true, false]);
    expect(noted).to.deep.equal([['a', 41n]]);
  });

  it("announces the levels each journaled record moved, with the market's seq, at the record's newest time; nothing for a batch that journaled nothing", () => {
    const { publisher, changes, decide } = setup();
    publisher.answer(
      decide([account('a'), deposit('a', '100'), sportEvent(), market()].map((input) => pending(input, T0))),
      { position: 1n, recordPosition: () => 1n },
    );
    const orders = [place('a', order('o1', 'buy', '0.40', '2'))].map((input) => pending(input, T0 + 5));
    publisher.answer(decide(orders), { position: 2n, recordPosition: () => 2n });
    expect(changes).to.deep.equal([
      { kind: 'levels', books: [{ market_id: 'm', seq: 1, time_us: T0 + 5, bids: [['0.40', '2']], offers: [] }] },
    ]);
    publisher.answer(decide([pending(deposit('nobody', '1'), T0 + 6)]), { position: 2n, recordPosition: () => 2n });
    expect(changes).to.have.length(1);
    expect(publisher.snapshot()).to.deep.equal([
      { market_id: 'm', seq: 1, time_us: 0, bids: [['0.40', '2']], offers: [] },
    ]);
  });

  it('refuses every caller of a failed batch; a throwing listener does not stop the others', () => {
    const { publisher, changes, decide } = setup();
    const inputs = [account('a'), account('b')].map((input) => pending(input, T0));
    const failure = new Error('disk full');
    publisher.fail(decide(inputs), failure);
    expect(inputs.map((p) => p.outcome?.error)).to.deep.equal([failure, failure]);
    const unsubscribe = publisher.onChange(() => {
      throw new Error('listener bug');
    });
    const afterIt: BookChange[] = [];
    publisher.onChange((change) => afterIt.push(change));
    publisher.reset();
    unsubscribe();
    expect(changes).to.deep.equal([{ kind: 'reset' }]);
    expect(afterIt).to.deep.equal([{ kind: 'reset' }]);
  });
});
