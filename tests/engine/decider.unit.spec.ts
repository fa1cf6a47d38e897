// The decider and batch builder stages: inputs decided in sequence into one batch; steps that
// changed state go into journal records (closed at STEPS_PER_RECORD steps), every input gets its
// answer; a step that throws refuses its caller and hands back the inputs after it; the ledger
// is checked on the state a batch leaves.

import { expect } from 'chai';
import { AssertionFailed } from '../../domain/assert.ts';
import pino from 'pino';
import { Engine } from '../../domain/engine/engine.ts';
import { ENGINE_STEPS_TYPE, ENGINE_STREAM, journalStepsOf } from '../../domain/engine/journal/journal.ts';
import { post } from '../../domain/engine/ledger.ts';
import { Big } from '../../domain/money/big.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { Batch, BATCH_INPUTS_MAX, STEPS_PER_RECORD } from '../../engine/batch.ts';
import { Decider } from '../../engine/decider.ts';
import { account, deposit, market, order, place, sportEvent, T0 } from '../domain/engine/support.ts';
import { pending } from './stages.ts';

const logger = pino({ level: 'silent' });

/** A fresh decider, and a batch it decided: account `a` opened and given 5. */
function decidedFundedAccount(): { decider: Decider; batch: Batch } {
  const decider = new Decider(new Engine(), logger);
  const batch = new Batch();
  decider.decide(
    batch,
    [account('a'), deposit('a', '5')].map((input) => pending(input, T0)),
  );
  return { decider, batch };
}

describe('engine stage: decider and batch builder', () => {
  it('decides in order with consecutive sequence numbers; a refused input is answered but not journaled', async () => {
    const decider = new Decider(new Engine(), logger);
    const batch = new Batch();
    const inputs = [account('a'), deposit('a', '5'), deposit('nobody', '5'), deposit('a', '1')].map((input, i) =>
      pending(input, T0 + i),
    );
    expect(decider.decide(batch, inputs)).to.equal(undefined);
    batch.seal();
    expect(batch.answered.map((item) => item.reply.ok)).to.deep.equal([true, true, false, true]);
    expect(batch.answered.map((item) => item.reply.seq)).to.deep.equal([1, 2, 2, 3]);
    expect(batch.answered.map((item) => item.record)).to.deep.equal([0, 0, null, 0]);
    expect(batch.answered[2]?.reply.error?.code).to.be.a('string');
    expect(batch.journaledSteps).to.equal(3);
    expect(batch.records).to.have.length(1);
    // the record reads back as the three journaled steps
    const store = new MemoryEventStore();
    await store.append(ENGINE_STREAM, batch.records, 'no_stream');
    const [record] = await store.readStream(ENGINE_STREAM);
    expect(record?.type).to.equal(ENGINE_STEPS_TYPE);
    expect(journalStepsOf(record!).map((step) => step.seq)).to.deep.equal([1, 2, 3]);
  });

  it('names the accounts each journaled step touched (read-your-writes)', () => {
    const { batch } = decidedFundedAccount();
    expect(batch.answered.map((item) => [...(item.accounts ?? [])])).to.deep.equal([['a'], ['a']]);
  });

  it('closes a record at STEPS_PER_RECORD steps and keeps filling the next', () => {
    const decider = new Decider(new Engine(), logger);
    const batch = new Batch();
    decider.decide(batch, [pending(account('a'), T0)]);
    decider.decide(
      batch,
      Array.from({ length: STEPS_PER_RECORD }, () => pending(deposit('a', '1'), T0)),
    );
    expect(batch.records).to.have.length(1);
    batch.seal();
    batch.seal(); // sealing an empty record adds nothing
    expect(batch.records).to.have.length(2);
    expect(batch.answered[STEPS_PER_RECORD - 1]?.record).to.equal(0);
    expect(batch.answered[STEPS_PER_RECORD]?.record).to.equal(1);
    expect(batch.room).to.equal(BATCH_INPUTS_MAX - STEPS_PER_RECORD - 1);
  });

  it('a step that throws refuses its caller, marks the batch for a reload, and hands back the inputs after it', () => {
    const engine = new Engine();
    const decider = new Decider(engine, logger);
    const batch = new Batch();
    const step = engine.step.bind(engine);
    engine.step = (sequenced) => {
      if (sequenced.input.kind === 'Deposit' && sequenced.input.amount === '2') throw new Error('broken invariant');
      return step(sequenced);
    };
    const inputs = [account('a'), deposit('a', '2'), deposit('a', '3'), deposit('a', '4')].map((input) =>
      pending(input, T0),
    );
    const undecided = decider.decide(batch, inputs);
    expect(undecided?.map((p) => p.input)).to.deep.equal([inputs[2]?.input, inputs[3]?.input]);
    expect(batch.reload).to.equal(true);
    expect(String(inputs[1]?.outcome?.error)).to.equal('Error: broken invariant');
    expect(batch.answered).to.have.length(1);
  });

  it("gathers the book levels each journal record moved, as the record leaves them, with the market's seq", () => {
    const decider = new Decider(new Engine(), logger);
    const batch = new Batch(decider.books);
    const setup = [account('a'), deposit('a', '100'), sportEvent(), market()].map((input) => pending(input, T0));
    decider.decide(batch, setup);
    batch.seal(); // a record that moved no book
    const slice = [place('a', order('o1', 'buy', '0.40', '2')), place('a', order('o2', 'buy', '0.40', '3'))].map(
      (input, i) => pending(input, T0 + 10 + i),
    );
    decider.decide(batch, slice);
    batch.seal();
    decider.decide(batch, [pending(place('a', order('o3', 'buy', '0.41', '1')), T0 + 20)]);
    batch.seal();
    expect(batch.records).to.have.length(3);
    expect(batch.bookChanges).to.deep.equal([
      { market_id: 'm', seq: 1, time_us: T0 + 11, bids: [['0.40', '5']], offers: [] },
      { market_id: 'm', seq: 2, time_us: T0 + 20, bids: [['0.41', '1']], offers: [] },
    ]);
    expect(batch.lastNowUs).to.equal(T0 + 20);
    expect(decider.bookSequence.seqOf('m')).to.equal(2);
  });

  it('finds an unbalanced ledger on the state a batch leaves', () => {
    const { decider, batch } = decidedFundedAccount();
    expect(decider.ledgerViolation(batch)).to.equal(undefined);
    post(decider.engine.state, decider.engine.state.accounts.get('a')!, new Big('0.01'));
    expect(decider.ledgerViolation(batch)?.message).to.match(/ledger out of balance/);
  });
  it('takes into a batch only steps with facts, in one run of seqs (preconditions)', () => {
    const engine = new Engine();
    const batch = new Batch();
    const first = pending(account('a'), T0);
    const opened = engine.step({ seq: 1, now_us: T0, input: first.input });
    const reply = { ok: true, events: opened.events, position: 0n, seq: 1 };
    batch.addStep(first, 1, reply, opened.events, new Set(['a']));
    expect(() => batch.addStep(pending(deposit('a', '1'), T0), 3, reply, opened.events, new Set(['a'])))
      .to.throw(AssertionFailed)
      .with.property('message')
      .that.contains('consecutive seqs');
    expect(() => batch.addStep(pending(deposit('a', '1'), T0), 2, reply, [], new Set(['a']))).to.throw(
      AssertionFailed,
      'a journaled step has facts',
    );
  });
});
