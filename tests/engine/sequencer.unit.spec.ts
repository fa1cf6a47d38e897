// The sequencer stage: one bounded queue, inputs in arrival order stamped with the clock's time,
// taken in slices of bounded work, refused at once when full or stopped.

import { expect } from 'chai';
import { EngineBusyError, EngineStoppedError } from '../../engine/gateway.ts';
import { DECIDE_SLICE, Sequencer, sliceLength, workOf } from '../../engine/sequencer.ts';
import { account, deposit, order, T0 } from '../domain/engine/support.ts';
import { pending } from './stages.ts';

describe('engine stage: sequencer', () => {
  const clock = (): { nowUs(): number } => {
    let now = T0;
    return { nowUs: () => (now += 1000) };
  };

  it('queues inputs in arrival order, each stamped with the clock, and tells the pipeline each time', () => {
    let told = 0;
    const sequencer = new Sequencer(clock(), () => told++, 10);
    void sequencer.submit(account('a'));
    void sequencer.submit(deposit('a', '1'));
    expect(told).to.equal(2);
    expect(sequencer.length).to.equal(2);
    const slice = sequencer.takeSlice(10);
    expect(slice.map((p) => p.input.kind)).to.deep.equal(['OpenAccount', 'Deposit']);
    expect(slice.map((p) => p.nowUs)).to.deep.equal([T0 + 1000, T0 + 2000]);
    expect(sequencer.length).to.equal(0);
  });

  it('refuses an input past its bound at once with EngineBusyError naming the bound', async () => {
    const sequencer = new Sequencer(clock(), () => undefined, 2);
    void sequencer.submit(account('a'));
    void sequencer.submit(account('b'));
    const refused = await sequencer.submit(account('c')).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(EngineBusyError);
    expect((refused as EngineBusyError).queueInputsMax).to.equal(2);
    expect(sequencer.length).to.equal(2);
  });

  it('a slice holds at least one input, at most the limit, and no more than DECIDE_SLICE orders of work', () => {
    const legs = (count: number) => ({
      kind: 'PlaceOrders' as const,
      account_id: 'a',
      orders: Array.from({ length: count }, (_, i) => order(`o${i}`, 'buy', '0.50', '1')),
    });
    expect(workOf(legs(100))).to.equal(100);
    expect(workOf(legs(0))).to.equal(1);
    expect(workOf(deposit('a', '1'))).to.equal(1);
    const queue = [legs(100), deposit('a', '1')].map((input) => pending(input, T0));
    expect(sliceLength(queue, 10)).to.equal(1); // one heavy input still makes a slice
    const light = Array.from({ length: DECIDE_SLICE + 5 }, () => pending(deposit('a', '1'), T0));
    expect(sliceLength(light, 1_000)).to.equal(DECIDE_SLICE);
    expect(sliceLength(light, 3)).to.equal(3);
    expect(sliceLength([], 3)).to.equal(0);
  });

  it('puts undecided inputs back at the head, in their order', () => {
    const sequencer = new Sequencer(clock(), () => undefined, 10);
    for (const id of ['a', 'b', 'c']) void sequencer.submit(account(id));
    const taken = sequencer.takeSlice(3);
    void sequencer.submit(account('d'));
    sequencer.putBack(taken.slice(1));
    expect(sequencer.takeSlice(10).map((p) => (p.input as { account_id: string }).account_id)).to.deep.equal([
      'b',
      'c',
      'd',
    ]);
  });

  it('halted, it refuses every waiting input and every new one with the first reason', async () => {
    const sequencer = new Sequencer(clock(), () => undefined, 10);
    const waiting = sequencer.submit(account('a')).catch((error: unknown) => error);
    sequencer.halt(new EngineStoppedError('fenced'));
    sequencer.halt(new EngineStoppedError('stopped'));
    expect(sequencer.stopped).to.equal('fenced');
    expect(await waiting).to.be.instanceOf(EngineStoppedError);
    const later = await sequencer.submit(account('b')).catch((error: unknown) => error);
    expect((later as EngineStoppedError).reason).to.equal('fenced');
    expect(sequencer.length).to.equal(0);
  });
});
