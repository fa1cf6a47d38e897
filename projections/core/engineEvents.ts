// Reads the engine's facts out of event-store records (stream `engine`; see
// domain/engine/journal/journal.ts for the record kinds: one record per group commit holding its
// steps `{seq, now_us, input, events}`, or one per step in older journals, whose views are
// upcast to facts). Each fact is tagged with where it sits in the journal (record position,
// index inside the record across its steps): that pair is the insertion sequence the read
// models sort "most recent first" by, identical on every rebuild and unaffected by clock changes.

import type { Fact } from '../facts/fold.ts';
import {
  ENGINE_RECORD_TYPES,
  ENGINE_STREAM,
  journalStepsOf,
  type JournalStep,
} from '../../domain/engine/journal/journal.ts';
import type { RecordedEvent, SubscriptionFilter } from '../../eventstore/port.ts';

export const engineStepFilter: SubscriptionFilter = {
  streamPrefixes: [ENGINE_STREAM],
  eventTypes: [...ENGINE_RECORD_TYPES],
};

/**
 * journalStepsOf, decoded once per record object: the runner hands the same records to every
 * projector, which all read the steps. Readers must not modify what they get.
 */
const decoded = new WeakMap<RecordedEvent, readonly JournalStep[]>();

export function stepsOf(record: RecordedEvent): readonly JournalStep[] {
  let steps = decoded.get(record);
  if (!steps) {
    steps = journalStepsOf(record);
    decoded.set(record, steps);
  }
  return steps;
}

/** One engine fact with its place in the journal (the fold's `Fact`). */
export type JournaledEvent = Fact;

/**
 * The facts of the records, each with its step and its place in the journal. The index counts
 * the facts of a record across its steps; for steps read from older record versions it counts
 * their old events instead (a step's `indexes` and `width`), so rows first inserted by an old
 * journal keep their place.
 */
export function journaledEventsOf(records: readonly RecordedEvent[]): JournaledEvent[] {
  const out: JournaledEvent[] = [];
  for (const record of records) {
    const steps = stepsOf(record);
    if (steps.length === 0) continue;
    const pos = record.position.toString();
    let base = 0;
    for (const { seq, now_us: nowUs, events, indexes, width } of steps) {
      for (let i = 0; i < events.length; i++) {
        out.push({
          event: events[i]!,
          seq: Number(seq),
          nowUs: Number(nowUs),
          pos,
          idx: base + (indexes ? indexes[i]! : i),
        });
      }
      base += width ?? events.length;
    }
  }
  return out;
}
