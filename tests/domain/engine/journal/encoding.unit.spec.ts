// The journal's encodings. Facts (record version 4): every fact type the engine states comes back
// from a record deep-equal to what the engine stated, key order included (replay verification
// compares JSON text), whatever way the steps are cut into records, each fact an array of values
// or a delta against the previous fact of its type in the record. Views (versions 1 to 3, read
// only): the old encodings still decode, and every version of the same old step reads as the same
// facts.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineEvent, EngineEventType } from '../../../../domain/engine/events.ts';
import { decodeEvent, decodeEventsDelta, encodeEvent, newDeltaContext, ORDER_REQUEST_KEYS, orderRequestValues } from '../../../../domain/engine/journal/encoding.ts';
import { encodeFact, FACT_KEYS, newFactContext, STORED_VALUES } from '../../../../domain/engine/journal/factEncoding.ts';
import {
  encodeStep, ENGINE_RECORD_VERSION, ENGINE_STEP_TYPE, ENGINE_STEPS_TYPE, ENGINE_STREAM, engineEventsOf, engineStepData, engineStepsData,
  journalStepsOf, lastSeqOf, newRecordContext, type EncodedStep, type ViewsStepsData,
} from '../../../../domain/engine/journal/journal.ts';
import type { LegacyEngineEvent } from '../../../../domain/engine/journal/legacy.ts';
import type { RecordedEvent } from '../../../../eventstore/port.ts';
import type { FixtureRecord } from '../../../fixtures/journal-v3/replay.ts';
import { engineSession } from '../../../projections/core/session.ts';
import { account, cancel, deposit, market, order, place, Scenario, sportEvent, withdraw } from '../support.ts';

function recordOf(type: string, data: unknown, revision = 0n): RecordedEvent {
  return { id: `r-${revision}`, stream: ENGINE_STREAM, type, revision, position: revision, data, metadata: {}, recordedAt: new Date(0) };
}

/** What a store hands back: the record data after a trip through JSON text. */
const stored = <T>(data: T): T => JSON.parse(JSON.stringify(data)) as T;

type Step = { seq: number; now_us: number; input: EncodedStep['input']; events: EngineEvent[] };

/** Every step of a scenario that reaches every fact type, then a random session. */
function steps(): Step[] {
  const s = new Scenario().given(account('a'), account('b'), deposit('a', '100'), deposit('b', '100'), sportEvent(), market('m', { points_cost: 1 }));
  s.when({ kind: 'UpdateAccount', account_id: 'a', fields: { first_name: 'Ada', email: 'ada@example.com' } });
  s.when(place('a', order('o1', 'buy', '0.40', '10', { client_order_id: 'c1' })));
  s.when(place('b', order('o2', 'sell', '0.35', '4')));
  s.when(place('b', order('o3', 'sell', '0.45', '3')));
  s.when(cancel('b', 'o3'));
  s.when(place('a', order('o4', 'buy', '0.99', '10000')));
  s.when(place('a', order('o5', 'sell', null, '1')));
  const fill = s.fills('a')[0]!;
  s.when({ kind: 'AmendFill', trade_id: fill.trade_id, price: '0.38' });
  s.when(place('a', order('o6', 'sell', '0.30', '2')));
  s.when(withdraw('a', '1'));
  s.when({ kind: 'ChangeMarketStatus', market_id: 'm', trading: false });
  s.when({ kind: 'StartSportEvent', event_id: 'ev' });
  s.when({ kind: 'ResultMarket', market_id: 'm', result: 'win' });
  s.given(market('m2', { status: 'pre_open', points_cost: 1 }), place('a', order('p1', 'buy', '0.50', '2', { market_id: 'm2' })));
  s.given(place('b', order('p2', 'sell', '0.50', '2', { market_id: 'm2' })), { kind: 'ChangeMarketStatus', market_id: 'm2', status: 'open' });
  s.given({ kind: 'ResultMarket', market_id: 'm2', result: 'void' });
  s.given(market('m3', { points_cost: 1 }), { kind: 'Deposit', account_id: 'a', entry_id: 'big-a', amount: '10000' });
  s.given(place('a', order('q1', 'buy', '0.50', '2000', { market_id: 'm3' })));
  s.given({ kind: 'Deposit', account_id: 'b', entry_id: 'big-b', amount: '10000' }, place('b', order('q2', 'sell', '0.50', '2000', { market_id: 'm3' })));
  s.given({ kind: 'ResultMarket', market_id: 'm3', result: 'lose' });
  // settlement-side fees (market, event, group), a re-settlement, a referral
  s.given({ kind: 'SetReferralPoints', points: 50 }, account('c'), deposit('c', '100'), { kind: 'RecordReferral', referrer_account_id: 'a', referee_account_id: 'c' });
  s.given(sportEvent('ev4'), { kind: 'SetSettlementFee', scope: 'event', scope_id: 'ev4', percent: 5 }, { kind: 'SetSettlementFee', scope: 'market_group', scope_id: 'g4', percent: 2 });
  s.given(market('m4', { event_id: 'ev4', grouping_id: 'g4' }), { kind: 'SetSettlementFee', scope: 'market', scope_id: 'm4', percent: 10 });
  s.given(place('c', order('r1', 'buy', '0.40', '5', { market_id: 'm4' })), place('b', order('r2', 'sell', '0.40', '5', { market_id: 'm4' })));
  s.given({ kind: 'ResultMarket', market_id: 'm4', result: 'win' }, { kind: 'ResultMarket', market_id: 'm4', result: 'lose' });
  const fromScenario = s.history.filter((h) => h.outcome.ok && h.outcome.events.length > 0)
    .map((h, i) => ({ seq: i + 1, now_us: h.now_us, input: h.input, events: h.outcome.events }));
  return [...fromScenario, ...engineSession({ seed: 11, inputs: 300 }).steps];
}

/** Encodes `steps` as records of at most `perRecord` steps, each with its own context. */
function recordsOf(all: readonly Step[], perRecord: number): RecordedEvent[] {
  const records: RecordedEvent[] = [];
  for (let i = 0; i < all.length; i += perRecord) {
    const context = newRecordContext();
    const encoded = all.slice(i, i + perRecord).map((s) => encodeStep(s.seq, s.now_us, s.input, s.events, context));
    records.push(recordOf(ENGINE_STEPS_TYPE, stored(engineStepsData(encoded)), BigInt(records.length)));
  }
  return records;
}

describe('engine journal: facts (record version 4)', () => {
  const all = steps();

  it('the steps cover every fact type', () => {
    const seen = new Set(all.flatMap((step) => step.events.map((e) => e.type)));
    expect([...seen].sort()).to.deep.equal((Object.keys(FACT_KEYS) as EngineEventType[]).sort());
  });

  for (const perRecord of [1, 7, 256]) {
    it(`round-trips every step exactly, key order included, with ${perRecord} step(s) per record`, () => {
      const records = recordsOf(all, perRecord);
      const decoded = records.flatMap((record) => journalStepsOf(record));
      expect(decoded.map((s) => s.seq)).to.deep.equal(all.map((s) => s.seq));
      for (let i = 0; i < all.length; i++) {
        expect(JSON.stringify(decoded[i]!.events), `step ${all[i]!.seq}`).to.equal(JSON.stringify(all[i]!.events));
        expect(JSON.stringify(decoded[i]!.input)).to.equal(JSON.stringify(all[i]!.input));
        expect(decoded[i]!).to.include({ now_us: all[i]!.now_us, version: ENGINE_RECORD_VERSION });
      }
      expect(records.flatMap((record) => engineEventsOf(record))).to.deep.equal(all.flatMap((s) => s.events));
      expect(lastSeqOf(records[records.length - 1] as RecordedEvent<never>)).to.equal(all[all.length - 1]!.seq);
    });
  }

  it('stores a fact as its type and values (every key list matches what the engine builds), a later one as a delta', () => {
    const context = newFactContext();
    for (const fact of all.flatMap((s) => s.events)) {
      const encoded = encodeFact(fact, context);
      if (Array.isArray(encoded)) expect(encoded[0]).to.equal(fact.type);
      else expect(encoded, fact.type).to.have.property('~', fact.type);
    }
    const placed = all.filter((s) => s.input.kind === 'PlaceOrder').slice(0, 2);
    const record = newRecordContext();
    encodeStep(placed[0]!.seq, placed[0]!.now_us, placed[0]!.input, placed[0]!.events, record);
    const second = encodeStep(placed[1]!.seq, placed[1]!.now_us, placed[1]!.input, placed[1]!.events, record);
    expect(second.events[0]).to.have.property('~', 'OrderAccepted');
    expect((second.input as { order: unknown }).order).to.have.property('~d');
  });

  it('the field-by-field readers of the commonest facts read exactly their type\'s key list, in order', () => {
    for (const [type, read] of Object.entries(STORED_VALUES)) {
      const keys = FACT_KEYS[type as EngineEventType];
      const fact = Object.fromEntries([['type', type], ...keys.map((key) => [key, `value of ${key}`])]) as unknown as EngineEvent;
      expect(read!(fact), type).to.deep.equal([type, ...keys.map((key) => `value of ${key}`)]);
    }
    expect(Object.keys(STORED_VALUES)).to.include.members(['OrderAccepted', 'FundsReserved', 'Traded', 'Transferred', 'LotClosed']);
    const request = Object.fromEntries(ORDER_REQUEST_KEYS.map((key) => [key, `value of ${key}`]));
    expect(orderRequestValues(request)).to.deep.equal(ORDER_REQUEST_KEYS.map((key) => `value of ${key}`));
  });

  it('writes a nested value (an event\'s participants) out in full, and keeps a fact with other keys as it is', () => {
    const scheduled = all.flatMap((s) => s.events).find((e) => e.type === 'SportEventScheduled')!;
    const odd = { ...scheduled, note: 'x' } as unknown as EngineEvent;
    const events = [scheduled, scheduled, odd];
    const [decoded] = journalStepsOf(recordOf(ENGINE_STEPS_TYPE, stored(engineStepsData([encodeStep(1, 1, { kind: 'Tick' }, events, newRecordContext())]))));
    expect(JSON.stringify(decoded!.events)).to.equal(JSON.stringify(events));
    expect(decoded!.events[0]).to.not.equal(decoded!.events[1]);
  });

  it('is smaller than the facts as stated', () => {
    const plain = JSON.stringify(all.map((s) => ({ seq: s.seq, now_us: s.now_us, input: s.input, events: s.events }))).length;
    expect(JSON.stringify(recordsOf(all, 256).map((r) => r.data)).length).to.be.below(plain * 0.6);
  });

  it('refuses a delta with no earlier fact in the record, and a record version it does not know', () => {
    const placed = all.filter((s) => s.input.kind === 'PlaceOrder').slice(0, 2);
    const context = newRecordContext();
    encodeStep(placed[0]!.seq, placed[0]!.now_us, placed[0]!.input, placed[0]!.events, context);
    const orphan = encodeStep(placed[1]!.seq, placed[1]!.now_us, placed[1]!.input, placed[1]!.events, context);
    expect(() => journalStepsOf(recordOf(ENGINE_STEPS_TYPE, stored(engineStepsData([{ ...orphan, input: { kind: 'Tick' } }]))))).to.throw(/no earlier OrderAccepted/);
    expect(() => journalStepsOf(recordOf(ENGINE_STEPS_TYPE, { v: 9, steps: [] }))).to.throw(/version 9/);
    expect(engineEventsOf({ ...recordOf(ENGINE_STEP_TYPE, {}), type: 'SomethingElse' })).to.deep.equal([]);
  });
});

describe('engine journal: views (record versions 1 to 3, read only)', () => {
  const fixture = JSON.parse(readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'fixtures', 'journal-v3', 'journal.json'), 'utf8')) as { records: FixtureRecord[] };
  /** The old steps of the fixture journal: inputs and views as that version's engine emitted them. */
  const legacySteps = fixture.records.flatMap((record) => {
    const context = newDeltaContext();
    return (record.data as ViewsStepsData).steps.map((step) => ({ ...step, events: decodeEventsDelta(step.events, context) as LegacyEngineEvent[] }));
  });

  it('reads one old step as the same facts from a version 1, 2 or 3 record', () => {
    const v3 = fixture.records.flatMap((record) => journalStepsOf(recordOf(ENGINE_STEPS_TYPE, record.data)));
    expect(v3.every((s) => s.version === 3)).to.equal(true);
    legacySteps.forEach((step, i) => {
      const [v2] = journalStepsOf(recordOf(ENGINE_STEP_TYPE, stored(engineStepData(step.seq, step.now_us, step.input, step.events))));
      const [v1] = journalStepsOf(recordOf(ENGINE_STEP_TYPE, stored({ seq: step.seq, now_us: step.now_us, input: step.input, events: step.events })));
      expect(v2).to.deep.include({ version: 2, events: v3[i]!.events, indexes: v3[i]!.indexes, width: step.events.length });
      expect(v1).to.deep.include({ version: 1, events: v3[i]!.events });
    });
  });

  it('round-trips every old view through the version 2 encoding, key order included', () => {
    for (const event of legacySteps.flatMap((s) => s.events)) {
      expect(JSON.stringify(decodeEvent(stored(encodeEvent(event))))).to.equal(JSON.stringify(event));
    }
  });

  it('names, for every fact of an old step, the old event it comes from', () => {
    for (const record of fixture.records) {
      for (const step of journalStepsOf(recordOf(ENGINE_STEPS_TYPE, record.data))) {
        expect(step.indexes).to.have.length(step.events.length);
        for (const index of step.indexes!) expect(index).to.be.within(0, step.width! - 1);
      }
    }
  });
});
