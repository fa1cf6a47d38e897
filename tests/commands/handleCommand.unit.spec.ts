// The one aggregate command handler: read, fold, decide, append at the revision read; a
// concurrent append makes it decide again on the newer state, within its bound; a refusal
// writes nothing; a state held from before is decided on once, then read afresh.

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { WrongExpectedRevision } from '../../eventstore/port.ts';
import {
  append,
  COMMAND_ATTEMPTS_MAX,
  decideAgain,
  handleCommand,
  loadAggregate,
  refuse,
  type Aggregate,
} from '../../commands/handleCommand.ts';

/** A counter: Added events carry how much; the state is the sum. */
const counter: Aggregate<number> = {
  stream: 'counter-1',
  initial: () => 0,
  evolve: (sum, event) => (event.type === 'Added' ? sum + (event.data as { n: number }).n : sum),
};

const add = (store: MemoryEventStore, n: number) =>
  store.append(counter.stream, [{ id: randomUUID(), type: 'Added', data: { n } }], 'any');

describe('handleCommand', () => {
  it('appends the decided events at the revision read and answers the state after them and their position', async () => {
    const store = new MemoryEventStore();
    await add(store, 2);
    const result = await handleCommand(store, counter, ({ state }) =>
      append([{ type: 'Added', data: { n: 3 } }], state),
    );
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.value).to.include({ value: 2, state: 5, revision: 1n });
    expect(result.value.position).to.be.a('bigint');
    expect((await loadAggregate(store, counter)).state).to.equal(5);
  });

  it('a concurrent append makes it decide again on the newer state', async () => {
    const store = new MemoryEventStore();
    const seen: number[] = [];
    const result = await handleCommand(store, counter, async ({ state }, attempt) => {
      seen.push(state);
      if (attempt === 1) await add(store, 10); // another writer, between our read and our append
      return append([{ type: 'Added', data: { n: 1 } }], undefined);
    });
    expect(seen).to.deep.equal([0, 10]);
    expect(result.ok && result.value.state).to.equal(11);
  });

  it('past its bound of attempts the conflict is thrown', async () => {
    const store = new MemoryEventStore();
    let attempts = 0;
    const conflicting = handleCommand(store, counter, async () => {
      attempts += 1;
      await add(store, 1);
      return append([{ type: 'Added', data: { n: 1 } }], undefined);
    });
    let thrown: unknown;
    await conflicting.catch((err: unknown) => {
      thrown = err;
    });
    expect(thrown).to.be.instanceOf(WrongExpectedRevision);
    expect(attempts).to.equal(COMMAND_ATTEMPTS_MAX);
  });

  it('a refusal writes nothing and is the answer; deciding again counts as an attempt', async () => {
    const store = new MemoryEventStore();
    const result = await handleCommand(store, counter, () => refuse({ code: 'request_refused' }));
    expect(result).to.deep.equal({ ok: false, refusal: { code: 'request_refused' } });
    expect(await store.readStream(counter.stream)).to.have.length(0);
    let attempts = 0;
    const again = await handleCommand(
      store,
      counter,
      (_loaded, attempt) => {
        attempts += 1;
        return attempt < 2 ? decideAgain : append([], 'second');
      },
      { attemptsMax: 2 },
    );
    expect(again.ok && again.value.value).to.equal('second');
    expect(attempts).to.equal(2);
  });

  it('a state held from before is decided on once; after a conflict the stream is read afresh', async () => {
    const store = new MemoryEventStore();
    await add(store, 4);
    const seen: number[] = [];
    const result = await handleCommand(
      store,
      counter,
      ({ state }) => {
        seen.push(state);
        return append([{ type: 'Added', data: { n: 1 } }], undefined);
      },
      { known: { state: 0, revision: 'no_stream' } },
    ); // stale: the stream has an event
    expect(seen).to.deep.equal([0, 4]);
    expect(result.ok && result.value.state).to.equal(5);
  });
});
