// The journal's encodings. Facts (record version 5, and version 4, read only): every fact type the
// engine states comes back from a record deep-equal to what the engine stated, key order included
// (replay verification compares JSON text), whatever way the steps are cut into records, each fact
// an array of values, a delta against the previous fact of its type in the record, or (version 5)
// a placement fact as its differences from its order's request. Views (versions 1 to 3, read
// only): the old encodings still decode, and every version of the same old step reads as the same
// facts.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineEvent, EngineEventType } from '../../../../domain/engine/events.ts';
import {
  decodeEvent,
  decodeEventsDelta,
  encodeEvent,
  newDeltaContext,
  ORDER_REQUEST_KEYS,
  orderRequestValues,
} from '../../../../domain/engine/journal/encoding.ts';
import {
  encodeFact,
  FACT_CODES,
  FACT_KEYS,
  newFactContext,
  PLACED,
  STORED_VALUES,
} from '../../../../domain/engine/journal/factEncoding.ts';
import {
  encodeStep,
  encodeStepV4,
  ENGINE_RECORD_VERSION,
  ENGINE_STEP_TYPE,
  ENGINE_STEPS_TYPE,
  ENGINE_STREAM,
  engineEventsOf,
  engineStepData,
  engineStepsData,
  engineStepsDataV4,
  FACTS_V4_RECORD_VERSION,
  journalInputsOf,
  journalStepsOf,
  lastSeqOf,
  newRecordContext,
  newRecordContextV4,
  outcomeCountOf,
  type EngineStepsData,
  type ViewsStepsData,
} from '../../../../domain/engine/journal/journal.ts';
import type { EngineInput } from '../../../../domain/engine/inputs.ts';
import { completedV5 } from '../../../../domain/engine/journal/upcast.ts';
import type { RecordedEvent } from '../../../../eventstore/port.ts';
import type { FixtureRecord } from '../../../fixtures/journal-v3/replay.ts';
import { engineSession } from '../../../projections/core/session.ts';
import { account, cancel, deposit, market, order, place, Scenario, sportEvent, withdraw } from '../support.ts';

function recordOf(type: string, data: unknown, revision = 0n): RecordedEvent {
  return {
    id: `r-${revision}`,
    stream: ENGINE_STREAM,
    type,
    revision,
    position: revision,
    data,
    metadata: {},
    recordedAt: new Date(0),
  };
}

/** What a store hands back: the record data after a trip through JSON text. */
const stored = <T>(data: T): T => JSON.parse(JSON.stringify(data)) as T;

type Step = { seq: number; now_us: number; input: EngineInput; events: EngineEvent[] };

/** Every step of a scenario that reaches every fact type, then a random session. */
function steps(): Step[] {
  const s = new Scenario().given(
    account('a'),
    account('b'),
    deposit('a', '100'),
    deposit('b', '100'),
    sportEvent(),
    market('m', { points_cost: 1 }),
  );
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
  s.given(
    market('m2', { status: 'pre_open', points_cost: 1 }),
    place('a', order('p1', 'buy', '0.50', '2', { market_id: 'm2' })),
  );
  s.given(place('b', order('p2', 'sell', '0.50', '2', { market_id: 'm2' })), {
    kind: 'ChangeMarketStatus',
    market_id: 'm2',
    status: 'open',
  });
  s.given({ kind: 'ResultMarket', market_id: 'm2', result: 'void' });
  s.given(market('m3', { points_cost: 1 }), { kind: 'Deposit', account_id: 'a', entry_id: 'big-a', amount: '10000' });
  s.given(place('a', order('q1', 'buy', '0.50', '2000', { market_id: 'm3' })));
  s.given(
    { kind: 'Deposit', account_id: 'b', entry_id: 'big-b', amount: '10000' },
    place('b', order('q2', 'sell', '0.50', '2000', { market_id: 'm3' })),
  );
  s.given({ kind: 'ResultMarket', market_id: 'm3', result: 'lose' });
  // settlement-side fees (market, event, group), a re-settlement, a referral
  s.given({ kind: 'SetReferralPoints', points: 50 }, account('c'), deposit('c', '100'), {
    kind: 'RecordReferral',
    referrer_account_id: 'a',
    referee_account_id: 'c',
  });
  s.given(
    sportEvent('ev4'),
    { kind: 'SetSettlementFee', scope: 'event', scope_id: 'ev4', percent: 5 },
    { kind: 'SetSettlementFee', scope: 'market_group', scope_id: 'g4', percent: 2 },
  );
  s.given(market('m4', { event_id: 'ev4', grouping_id: 'g4' }), {
    kind: 'SetSettlementFee',
    scope: 'market',
    scope_id: 'm4',
    percent: 10,
  });
  s.given(
    place('c', order('r1', 'buy', '0.40', '5', { market_id: 'm4' })),
    place('b', order('r2', 'sell', '0.40', '5', { market_id: 'm4' })),
  );
  s.given(
    { kind: 'ResultMarket', market_id: 'm4', result: 'win' },
    { kind: 'ResultMarket', market_id: 'm4', result: 'lose' },
  );
  const fromScenario = s.history
    .filter((h) => h.outcome.ok && h.outcome.events.length > 0)
    .map((h, i) => ({ seq: i + 1, now_us: h.now_us, input: h.input, events: h.outcome.events }));
  return [...fromScenario, ...engineSession({ seed: 11, inputs: 300 }).steps];
}

/**
 * The facts as a build before record version 6 stated them: without what a trade or a cancel
 * leaves of the order (read back, those are null: upcast.ts completedV5).
 */
function asStatedBefore6(events: readonly EngineEvent[]): EngineEvent[] {
  return events.map((event) => {
    if (event.type === 'Traded') {
      const { maker_remaining: _mr, maker_status: _ms, taker_remaining: _tr, taker_status: _ts, ...rest } = event;
      return rest as unknown as EngineEvent;
    }
    if (event.type === 'OrderCancelled')
      return { type: event.type, order_id: event.order_id, reason: event.reason } as unknown as EngineEvent;
    return event;
  });
}

/** Encodes `steps` as records of at most `perRecord` steps, each with its own context (in record version 6, or 4 as a build before 6 wrote it). */
function recordsOf(all: readonly Step[], perRecord: number, version = ENGINE_RECORD_VERSION): RecordedEvent[] {
  const records: RecordedEvent[] = [];
  for (let i = 0; i < all.length; i += perRecord) {
    const slice = all.slice(i, i + perRecord);
    let data: unknown;
    if (version === FACTS_V4_RECORD_VERSION) {
      const context = newRecordContextV4();
      data = engineStepsDataV4(
        slice.map((s) => encodeStepV4(s.seq, s.now_us, s.input, asStatedBefore6(s.events), context)),
      );
    } else {
      const context = newRecordContext();
      data = engineStepsData(slice.map((s) => encodeStep(s.seq, s.now_us, s.input, s.events, context)));
    }
    records.push(recordOf(ENGINE_STEPS_TYPE, stored(data), BigInt(records.length)));
  }
  return records;
}

/** The steps of a record of 256 PlaceOrders(s) steps with limits, some batched, and what a record holds for them. */
function withLimits(all: readonly Step[]): Step[] {
  return all.map((s) =>
    s.input.kind === 'PlaceOrder' || s.input.kind === 'PlaceOrders'
      ? { ...s, input: { ...s.input, limits: { live_orders_max: 100, risk_min_cents: 1 } } }
      : s,
  );
}

describe('engine journal: facts (record version 6)', () => {
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
      const inputs = records.flatMap((record) => journalInputsOf(record));
      expect(inputs.map((s) => [s.seq, s.now_us, JSON.stringify(s.input), s.eventCount, s.version])).to.deep.equal(
        all.map((s) => [s.seq, s.now_us, JSON.stringify(s.input), s.events.length, ENGINE_RECORD_VERSION]),
      );
      expect(records.reduce((n, record) => n + outcomeCountOf(record), 0)).to.equal(
        records.reduce(
          (n, record) =>
            n +
            Math.max(
              1,
              journalStepsOf(record).reduce((m, s) => m + s.events.length, 0),
            ),
          0,
        ),
      );
    });
  }

  it('round-trips order inputs with limits, batched ones included, and inputs with other keys', () => {
    const limited = withLimits(all);
    const odd = limited.map((s) =>
      s.input.kind === 'PlaceOrder' ? { ...s, input: { ...s.input, note: 'x' } as unknown as EngineInput } : s,
    );
    for (const variant of [limited, odd]) {
      const decoded = recordsOf(variant, 256).flatMap((record) => journalStepsOf(record));
      for (let i = 0; i < variant.length; i++) {
        expect(JSON.stringify(decoded[i]!.input)).to.equal(JSON.stringify(variant[i]!.input));
        expect(JSON.stringify(decoded[i]!.events)).to.equal(JSON.stringify(variant[i]!.events));
      }
    }
    const data = recordsOf(limited, 256)[0]!.data as EngineStepsData;
    const placing = data.steps.find((step) => Array.isArray(step[2]) && step[2][0] === 'PlaceOrder')!;
    expect((placing[2] as unknown[])[3]).to.deep.equal([100, 1]);
  });

  it('keeps a change in any one field of an order request from the request before it in the record', () => {
    const placing = all.find((step) => step.input.kind === 'PlaceOrder')!;
    const input = placing.input as Extract<EngineInput, { kind: 'PlaceOrder' }>;
    const base = Object.fromEntries(
      ORDER_REQUEST_KEYS.map((key) => [key, (input.order as unknown as Record<string, unknown>)[key] ?? null]),
    );
    const requests = [base, ...ORDER_REQUEST_KEYS.map((key) => ({ ...base, [key]: `changed ${key}` }))];
    // each changed request follows the unchanged one, so it is written as its one difference
    const pairs = requests.slice(1).flatMap((request) => [base, request]);
    const steps: Step[] = pairs.map((order, i) => ({
      seq: i + 1,
      now_us: i,
      input: { ...input, order } as unknown as EngineInput,
      events: [],
    }));
    const decoded = recordsOf(steps, 256).flatMap((record) => journalStepsOf(record));
    expect(decoded.map((step) => JSON.stringify(step.input))).to.deep.equal(
      steps.map((step) => JSON.stringify(step.input)),
    );
  });

  it('stores steps as arrays, seq and time as differences; a fact as its type code and values, a later one as a delta, a placement against its order request', () => {
    const context = newFactContext();
    for (const fact of asStatedBefore6(all.flatMap((s) => s.events))) {
      const encoded = encodeFact(fact, context);
      if (Array.isArray(encoded)) expect(encoded[0]).to.equal(fact.type);
      else expect(encoded, fact.type).to.have.property('~', fact.type);
    }
    expect(new Set(Object.values(FACT_CODES)).size).to.equal(Object.keys(FACT_KEYS).length);
    const placed = all.filter((s) => s.input.kind === 'PlaceOrder').slice(0, 2);
    const record = newRecordContext();
    const first = encodeStep(placed[0]!.seq, placed[0]!.now_us, placed[0]!.input, placed[0]!.events, record);
    const second = encodeStep(placed[1]!.seq, placed[1]!.now_us, placed[1]!.input, placed[1]!.events, record);
    expect(first.slice(0, 2)).to.deep.equal([placed[0]!.seq, placed[0]!.now_us]);
    expect(second.slice(0, 2)).to.deep.equal([placed[1]!.seq - placed[0]!.seq, placed[1]!.now_us - placed[0]!.now_us]);
    expect(second[2]).to.have.property('0', 'PlaceOrder');
    expect((second[2] as unknown[])[2]).to.have.property('~d');
    // the order's terms are not written again: only what its request does not say (its status here)
    expect(second[3][0]).to.deep.equal([PLACED + FACT_CODES.OrderAccepted, 0]);
    const fundsCode = FACT_CODES.FundsReserved;
    expect(second[3].some((fact) => Array.isArray(fact) && Math.abs(fact[0] as number) === fundsCode)).to.equal(true);
  });

  it("the field-by-field readers of the commonest facts read exactly their type's key list, in order", () => {
    for (const [type, read] of Object.entries(STORED_VALUES)) {
      const keys = FACT_KEYS[type as EngineEventType];
      const fact = Object.fromEntries([
        ['type', type],
        ...keys.map((key) => [key, `value of ${key}`]),
      ]) as unknown as EngineEvent;
      expect(read(fact), type).to.deep.equal([type, ...keys.map((key) => `value of ${key}`)]);
    }
    expect(Object.keys(STORED_VALUES)).to.include.members([
      'OrderAccepted',
      'FundsReserved',
      'Traded',
      'Transferred',
      'LotClosed',
    ]);
    const request = Object.fromEntries(ORDER_REQUEST_KEYS.map((key) => [key, `value of ${key}`]));
    expect(orderRequestValues(request)).to.deep.equal(ORDER_REQUEST_KEYS.map((key) => `value of ${key}`));
  });

  it("writes a nested value (an event's participants) out in full, and keeps a fact with other keys as it is", () => {
    const scheduled = all.flatMap((s) => s.events).find((e) => e.type === 'SportEventScheduled')!;
    const odd = { ...scheduled, note: 'x' } as unknown as EngineEvent;
    const events = [scheduled, scheduled, odd];
    const [decoded] = journalStepsOf(
      recordOf(
        ENGINE_STEPS_TYPE,
        stored(engineStepsData([encodeStep(1, 1, { kind: 'Tick' }, events, newRecordContext())])),
      ),
    );
    expect(JSON.stringify(decoded!.events)).to.equal(JSON.stringify(events));
    expect(decoded!.events[0]).to.not.equal(decoded!.events[1]);
  });

  it('is smaller than the facts as stated, and than version 4', () => {
    const plain = JSON.stringify(
      all.map((s) => ({ seq: s.seq, now_us: s.now_us, input: s.input, events: s.events })),
    ).length;
    const v5 = JSON.stringify(recordsOf(all, 256).map((r) => r.data)).length;
    expect(v5).to.be.below(plain * 0.5);
    expect(v5).to.be.below(
      JSON.stringify(recordsOf(all, 256, FACTS_V4_RECORD_VERSION).map((r) => r.data)).length * 0.8,
    );
  });

  it('refuses a delta with no earlier fact in the record, a placement without its request, and a record version it does not know', () => {
    const placed = all.filter((s) => s.input.kind === 'PlaceOrder').slice(0, 2);
    const context = newRecordContext();
    encodeStep(placed[0]!.seq, placed[0]!.now_us, placed[0]!.input, placed[0]!.events, context);
    const second = encodeStep(placed[1]!.seq, placed[1]!.now_us, placed[1]!.input, placed[1]!.events, context);
    const funds = [-FACT_CODES.FundsReserved, 4, '1.00'];
    expect(() =>
      journalStepsOf(recordOf(ENGINE_STEPS_TYPE, stored(engineStepsData([[1, 1, { kind: 'Tick' }, [funds]]])))),
    ).to.throw(/no earlier FundsReserved/);
    expect(() =>
      journalStepsOf(recordOf(ENGINE_STEPS_TYPE, stored(engineStepsData([[1, 1, { kind: 'Tick' }, [second[3][0]!]]])))),
    ).to.throw(/order request 0/);
    expect(() =>
      journalStepsOf(recordOf(ENGINE_STEPS_TYPE, stored(engineStepsData([[1, 1, { kind: 'Tick' }, [[99]]]])))),
    ).to.throw(/code 99/);
    expect(() => journalStepsOf(recordOf(ENGINE_STEPS_TYPE, { v: 5, steps: [{ seq: 1 }] }))).to.throw(/version 5 step/);
    expect(() => journalStepsOf(recordOf(ENGINE_STEPS_TYPE, { v: 9, steps: [] }))).to.throw(/version 9/);
    expect(engineEventsOf({ ...recordOf(ENGINE_STEP_TYPE, {}), type: 'SomethingElse' })).to.deep.equal([]);
  });
});

describe('engine journal: facts (record version 4, read only)', () => {
  const all = steps();

  for (const perRecord of [1, 256]) {
    it(`reads every step of a version 4 record exactly, key order included, with ${perRecord} step(s) per record`, () => {
      const records = recordsOf(withLimits(all), perRecord, FACTS_V4_RECORD_VERSION);
      expect(records.every((record) => (record.data as { v: number }).v === 4)).to.equal(true);
      const decoded = records.flatMap((record) => journalStepsOf(record));
      const inputs = records.flatMap((record) => journalInputsOf(record));
      const expected = withLimits(all);
      for (let i = 0; i < all.length; i++) {
        // read in today's shape: what those facts did not state is null
        expect(JSON.stringify(decoded[i]!.events), `step ${all[i]!.seq}`).to.equal(
          JSON.stringify(asStatedBefore6(expected[i]!.events).map(completedV5)),
        );
        expect(JSON.stringify(decoded[i]!.input)).to.equal(JSON.stringify(expected[i]!.input));
        expect(decoded[i]!).to.include({ seq: all[i]!.seq, now_us: all[i]!.now_us, version: FACTS_V4_RECORD_VERSION });
        expect(inputs[i]!).to.include({
          seq: all[i]!.seq,
          eventCount: all[i]!.events.length,
          version: FACTS_V4_RECORD_VERSION,
        });
      }
      expect(lastSeqOf(records[records.length - 1] as RecordedEvent<never>)).to.equal(all[all.length - 1]!.seq);
    });
  }

  it('refuses a version 4 delta with no earlier fact in the record', () => {
    const placed = all.filter((s) => s.input.kind === 'PlaceOrder').slice(0, 2);
    const context = newRecordContextV4();
    encodeStepV4(placed[0]!.seq, placed[0]!.now_us, placed[0]!.input, asStatedBefore6(placed[0]!.events), context);
    const orphan = encodeStepV4(
      placed[1]!.seq,
      placed[1]!.now_us,
      placed[1]!.input,
      asStatedBefore6(placed[1]!.events),
      context,
    );
    expect(() =>
      journalStepsOf(recordOf(ENGINE_STEPS_TYPE, stored(engineStepsDataV4([{ ...orphan, input: { kind: 'Tick' } }])))),
    ).to.throw(/no earlier OrderAccepted/);
  });
});

describe('engine journal: views (record versions 1 to 3, read only)', () => {
  const fixture = JSON.parse(
    readFileSync(
      path.join(
        path.dirname(fileURLToPath(import.meta.url)),
        '..',
        '..',
        '..',
        'fixtures',
        'journal-v3',
        'journal.json',
      ),
      'utf8',
    ),
  ) as { records: FixtureRecord[] };
  /** The old steps of the fixture journal: inputs and views as that version's engine emitted them. */
  const legacySteps = fixture.records.flatMap((record) => {
    const context = newDeltaContext();
    return (record.data as ViewsStepsData).steps.map((step) => ({
      ...step,
      events: decodeEventsDelta(step.events, context),
    }));
  });

  it('reads one old step as the same facts from a version 1, 2 or 3 record', () => {
    const v3 = fixture.records.flatMap((record) => journalStepsOf(recordOf(ENGINE_STEPS_TYPE, record.data)));
    expect(v3.every((s) => s.version === 3)).to.equal(true);
    legacySteps.forEach((step, i) => {
      const [v2] = journalStepsOf(
        recordOf(ENGINE_STEP_TYPE, stored(engineStepData(step.seq, step.now_us, step.input, step.events))),
      );
      const [v1] = journalStepsOf(
        recordOf(
          ENGINE_STEP_TYPE,
          stored({ seq: step.seq, now_us: step.now_us, input: step.input, events: step.events }),
        ),
      );
      expect(v2).to.deep.include({
        version: 2,
        events: v3[i]!.events,
        indexes: v3[i]!.indexes,
        width: step.events.length,
      });
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
