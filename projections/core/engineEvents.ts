// Reads engine outcome events out of event-store records (stream `engine`; see
// commands/engine/journal.ts for the record kinds: one record per group commit holding its
// steps `{seq, now_us, input, events}`, or one per step in older journals).
// Each event is tagged with where it sits in the journal (record position, index inside the
// record across its steps): that pair is the insertion sequence the read models sort "most
// recent first" by, identical on every rebuild and unaffected by clock changes.

import type { EngineEvent } from '../../domain/engine/events.ts';
import { ENGINE_RECORD_TYPES, ENGINE_STREAM, engineEventsOf, journalStepsOf, type JournalStep } from '../../domain/engine/journal/journal.ts';
import type { RecordedEvent, SubscriptionFilter } from '../../eventstore/port.ts';

export { engineEventsOf };

export const engineStepFilter: SubscriptionFilter = { streamPrefixes: [ENGINE_STREAM], eventTypes: [...ENGINE_RECORD_TYPES] };

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

/** One engine event with its place in the journal. */
export interface JournaledEvent {
  event: EngineEvent;
  /** Engine sequence of the step that produced it: the version guard of every snapshot. */
  seq: number;
  /** The step's time, UNIX microseconds. */
  nowUs: number;
  /** Global position of the journal record (bigint as a decimal string, for SQL). */
  pos: string;
  /** Index of the event inside its record. */
  idx: number;
}

export function journaledEventsOf(records: readonly RecordedEvent[]): JournaledEvent[] {
  const out: JournaledEvent[] = [];
  for (const record of records) {
    const steps = stepsOf(record);
    if (steps.length === 0) continue;
    const pos = record.position.toString();
    let idx = 0;
    for (const { seq, now_us: nowUs, events } of steps) {
      for (const event of events) out.push({ event, seq: Number(seq), nowUs: Number(nowUs), pos, idx: idx++ });
    }
  }
  return out;
}

/**
 * For snapshots of the same entity inside one batch: keeps the newest (highest step seq, the
 * later one on a tie) and remembers where the entity was FIRST seen (its insertion key).
 */
export function newestByKey<T>(items: ReadonlyArray<{ item: T; key: string; at: JournaledEvent }>): Array<{ item: T; at: JournaledEvent; first: JournaledEvent }> {
  const byKey = new Map<string, { item: T; at: JournaledEvent; first: JournaledEvent }>();
  for (const { item, key, at } of items) {
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { item, at, first: at });
    else if (at.seq >= seen.at.seq) byKey.set(key, { item, at, first: seen.first });
  }
  return [...byKey.values()];
}
