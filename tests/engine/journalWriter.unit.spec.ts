// The journal writer stage: one append per batch at the revision the stream will have once every
// earlier batch is in (pipelined), the head moved only when an append lands, fencing by the
// expected revision, and a failure kept until the head is reset from the journal.

import { expect } from 'chai';
import { AssertionFailed } from '../../domain/assert.ts';
import { ENGINE_STREAM } from '../../domain/engine/journal/journal.ts';
import { journalRecord } from '../../engine/batch.ts';
import { JournalWriter } from '../../engine/journalWriter.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { WrongExpectedRevision } from '../../eventstore/port.ts';

const records = (count: number, tag: string) =>
  Array.from({ length: count }, (_, i) => journalRecord(`${tag}-${i}`, JSON.stringify({ steps: [] })));
const EMPTY = { revision: undefined, position: -1n, recordId: undefined };

describe('engine stage: journal writer', () => {
  it('appends a batch and moves the head to its last record', async () => {
    const store = new MemoryEventStore();
    const journal = new JournalWriter(store, EMPTY);
    expect(journal.issue([])).to.equal(undefined);
    const batch = records(3, 'a');
    expect(await journal.land(batch, journal.issue(batch)!)).to.equal(true);
    expect(journal.revision).to.equal(2n);
    expect(journal.recordId).to.equal('a-2');
    expect((await store.readStream(ENGINE_STREAM)).map((r) => r.id)).to.deep.equal(['a-0', 'a-1', 'a-2']);
    // records of one append have consecutive positions on this store
    expect([0, 1, 2].map((i) => journal.recordPosition(i, 3))).to.deep.equal([
      journal.position - 2n,
      journal.position - 1n,
      journal.position,
    ]);
  });

  it('issues the next append before the previous one landed; both land in order', async () => {
    const store = new MemoryEventStore();
    const journal = new JournalWriter(store, EMPTY);
    const first = records(2, 'a');
    const second = records(1, 'b');
    const firstAppend = journal.issue(first)!;
    const secondAppend = journal.issue(second)!;
    expect(await journal.land(first, firstAppend)).to.equal(true);
    expect(await journal.land(second, secondAppend)).to.equal(true);
    expect(journal.revision).to.equal(2n);
    expect((await store.readStream(ENGINE_STREAM)).map((r) => r.id)).to.deep.equal(['a-0', 'a-1', 'b-0']);
  });

  it('is fenced by another writer: its append fails with WrongExpectedRevision, the head stays, later batches fail with the same error', async () => {
    const store = new MemoryEventStore();
    const journal = new JournalWriter(store, EMPTY);
    await store.append(ENGINE_STREAM, records(1, 'other'), 'no_stream'); // a second engine got there first
    const batch = records(1, 'a');
    expect(await journal.land(batch, journal.issue(batch)!)).to.equal(false);
    expect(journal.failure).to.be.instanceOf(WrongExpectedRevision);
    expect(journal.revision).to.equal(undefined);
    const later = records(1, 'b');
    const error = await journal.issue(later)!().catch((e: unknown) => e);
    expect(error).to.equal(journal.failure);
    // reset to what the journal holds: the failure is forgotten and appends go on after it
    const [head] = await store.readStream(ENGINE_STREAM, { direction: 'backwards', fromRevision: 'end', maxCount: 1 });
    journal.reset({ revision: head!.revision, position: head!.position, recordId: head!.id });
    expect(journal.failure).to.equal(undefined);
    expect(await journal.land(later, journal.issue(later)!)).to.equal(true);
    expect(journal.revision).to.equal(1n);
  });

  it('an append that lands somewhere it should not is a failure, not a moved head (postcondition)', async () => {
    const store = new MemoryEventStore();
    const journal = new JournalWriter(store, EMPTY);
    const batch = records(2, 'a');
    // a store answering one revision short of the records written
    expect(await journal.land(batch, async () => ({ nextRevision: 0n, position: 5n }))).to.equal(false);
    expect(String(journal.failure)).to.match(/an append moves the stream by exactly its records/);
    expect(journal.revision).to.equal(undefined);
  });
  it('lands only a batch with records (precondition)', async () => {
    const journal = new JournalWriter(new MemoryEventStore(), EMPTY);
    const error = await journal.land([], () => Promise.reject(new Error('not called'))).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(AssertionFailed);
  });
});
