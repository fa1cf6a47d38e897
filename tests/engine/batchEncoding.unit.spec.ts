// Batch journal records (`EngineSteps`, record version 3): the steps of one group commit in one
// record, views and order requests delta-encoded against the previous one of their kind in the
// same record. Every step, input and event comes back deep-equal to what the engine produced,
// key order included, whatever way the steps are cut into records.

import { expect } from 'chai';
import type { EngineEvent } from '../../domain/engine/events.ts';
import {
  ENGINE_STEPS_TYPE, ENGINE_STREAM, encodeStep, engineEventsOf, engineStepData, engineStepsData, journalStepsOf, lastSeqOf, newDeltaContext,
  type EncodedStep,
} from '../../domain/engine/journal/journal.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { engineSession } from '../projections/core/session.ts';

function batchRecord(data: unknown, revision = 0n): RecordedEvent {
  return { id: `b-${revision}`, stream: ENGINE_STREAM, type: ENGINE_STEPS_TYPE, revision, position: revision, data, metadata: {}, recordedAt: new Date(0) };
}

/** What a store hands back: the record data after a trip through JSON text. */
const stored = <T>(data: T): T => JSON.parse(JSON.stringify(data)) as T;

type Step = { seq: number; now_us: number; input: Parameters<typeof engineStepData>[2]; events: EngineEvent[] };

/** Encodes `steps` as records of at most `perRecord` steps, each with its own delta context. */
function recordsOf(steps: readonly Step[], perRecord: number): RecordedEvent[] {
  const records: RecordedEvent[] = [];
  for (let i = 0; i < steps.length; i += perRecord) {
    const context = newDeltaContext();
    const encoded: EncodedStep[] = steps.slice(i, i + perRecord).map((s) => encodeStep(s.seq, s.now_us, s.input, s.events, context));
    records.push(batchRecord(stored(engineStepsData(encoded)), BigInt(records.length)));
  }
  return records;
}

describe('engine journal batch records (v3, delta-encoded)', () => {
  const steps: Step[] = engineSession({ seed: 23, inputs: 400 }).steps;

  for (const perRecord of [1, 7, 256]) {
    it(`round-trips every step exactly with ${perRecord} step(s) per record`, () => {
      const records = recordsOf(steps, perRecord);
      const decoded = records.flatMap((record) => journalStepsOf(record));
      expect(decoded.map((s) => s.seq)).to.deep.equal(steps.map((s) => s.seq));
      for (let i = 0; i < steps.length; i++) {
        expect(JSON.stringify(decoded[i]!.events), `step ${steps[i]!.seq}`).to.equal(JSON.stringify(steps[i]!.events));
        expect(JSON.stringify(decoded[i]!.input)).to.equal(JSON.stringify(steps[i]!.input));
        expect(decoded[i]!.now_us).to.equal(steps[i]!.now_us);
      }
      expect(records.flatMap((record) => engineEventsOf(record))).to.deep.equal(steps.flatMap((s) => s.events));
      expect(lastSeqOf(records[records.length - 1] as RecordedEvent<never>)).to.equal(steps[steps.length - 1]!.seq);
    });
  }

  it('stores later views of a kind as deltas, and is much smaller than per-step records', () => {
    const batched = JSON.stringify(recordsOf(steps, 256).map((r) => r.data)).length;
    const single = steps.reduce((sum, s) => sum + JSON.stringify(engineStepData(s.seq, s.now_us, s.input, s.events)).length, 0);
    expect(batched).to.be.below(single * 0.8);
    const context = newDeltaContext();
    const placed = steps.filter((s) => s.input.kind === 'PlaceOrder').slice(0, 2);
    const first = encodeStep(placed[0]!.seq, placed[0]!.now_us, placed[0]!.input, placed[0]!.events, context);
    const second = encodeStep(placed[1]!.seq, placed[1]!.now_us, placed[1]!.input, placed[1]!.events, context);
    expect((first.events[0] as Record<string, unknown>).order).to.be.an('array');
    expect((second.events[0] as Record<string, unknown>).order).to.have.property('~d');
    expect((second.input as { order: unknown }).order).to.have.property('~d');
  });

  it('writes a nested value (an event\'s participants) out in full even when it looks unchanged', () => {
    const scheduled = steps.flatMap((s) => s.events).filter((e) => e.type === 'SportEventScheduled');
    expect(scheduled.length).to.be.greaterThan(0);
    const context = newDeltaContext();
    const events = [scheduled[0]!, scheduled[0]!];
    const encoded = stored(engineStepsData([encodeStep(1, 1, { kind: 'Tick' }, events, context)]));
    const [decoded] = journalStepsOf(batchRecord(encoded));
    expect(decoded!.events).to.deep.equal(events);
    expect(decoded!.events[0]).to.not.equal(decoded!.events[1]);
  });

  it('refuses a delta with no earlier view in the record, and an unknown record version', () => {
    const context = newDeltaContext();
    const placed = steps.filter((s) => s.input.kind === 'PlaceOrder').slice(0, 2);
    encodeStep(placed[0]!.seq, placed[0]!.now_us, placed[0]!.input, placed[0]!.events, context);
    const orphan = encodeStep(placed[1]!.seq, placed[1]!.now_us, placed[1]!.input, placed[1]!.events, context);
    expect(() => journalStepsOf(batchRecord(stored(engineStepsData([orphan]))))).to.throw(/no earlier view/);
    expect(() => journalStepsOf(batchRecord({ v: 9, steps: [] }))).to.throw(/version 9/);
  });
});
