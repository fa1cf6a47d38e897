// The compact journal encoding (record v2): every event type the engine emits comes back from a
// record deep-equal to what the engine emitted, key order included (replay verification compares
// JSON text), and records written before it (v1, no `v`) still read unchanged.

import { expect } from 'chai';
import type { EngineEvent } from '../../domain/engine/events.ts';
import { decodeEvent, encodeEvent, JOURNAL_VERSION } from '../../domain/engine/journal/encoding.ts';
import { ENGINE_STEP_TYPE, ENGINE_STREAM, engineEventsOf, engineStepData } from '../../domain/engine/journal/journal.ts';
import type { RecordedEvent } from '../../eventstore/port.ts';
import { engineSession } from '../projections/core/session.ts';
import { account, cancel, deposit, order, place, Scenario, sportEvent, market, withdraw } from './support.ts';

const ALL_TYPES: EngineEvent['type'][] = [
  'AccountOpened', 'AccountUpdated', 'SportEventScheduled', 'SportEventStarted', 'MarketListed', 'MarketChanged',
  'OrderPlaced', 'OrderChanged', 'TradeExecuted', 'FillChanged', 'PositionChanged', 'BalanceChanged',
  'LedgerEntryRecorded', 'MarketSettled',
];

function recordOf(data: unknown, revision = 0n): RecordedEvent {
  return { id: `r-${revision}`, stream: ENGINE_STREAM, type: ENGINE_STEP_TYPE, revision, position: revision, data, metadata: {}, recordedAt: new Date(0) };
}

/** What a store hands back: the record data after a trip through JSON text. */
const stored = <T>(data: T): T => JSON.parse(JSON.stringify(data)) as T;

/** Every step of a scenario that reaches every event type. */
function steps(): { seq: number; now_us: number; input: Parameters<typeof engineStepData>[2]; events: EngineEvent[] }[] {
  const s = new Scenario().given(account('a'), account('b'), deposit('a', '100'), deposit('b', '100'), sportEvent(), market('m'));
  s.when({ kind: 'UpdateAccount', account_id: 'a', fields: { first_name: 'Ada', email: 'ada@example.com' } });
  s.when(place('a', order('o1', 'buy', '0.40', '10', { client_order_id: 'c1' })));
  s.when(place('b', order('o2', 'sell', '0.35', '4')));
  s.when(place('b', order('o3', 'sell', '0.45', '3')));
  s.when(cancel('b', 'o3'));
  const trade = s.fills('a')[0]!;
  s.when({ kind: 'AmendFill', trade_id: trade.trade_id, price: '0.38' });
  s.when(withdraw('a', '1'));
  s.when({ kind: 'ChangeMarketStatus', market_id: 'm', trading: false });
  s.when({ kind: 'StartSportEvent', event_id: 'ev' });
  s.when({ kind: 'ResultMarket', market_id: 'm', result: 'win' });
  const fromScenario = s.history.filter((h) => h.outcome.ok && h.outcome.events.length > 0)
    .map((h, i) => ({ seq: i + 1, now_us: h.now_us, input: h.input, events: h.outcome.events }));
  return [...fromScenario, ...engineSession({ seed: 11, inputs: 300 }).steps];
}

describe('engine journal encoding (v2)', () => {
  const all = steps();

  it('the scenario covers every event type', () => {
    const seen = new Set(all.flatMap((step) => step.events.map((e) => e.type)));
    expect([...seen].sort()).to.deep.equal([...ALL_TYPES].sort());
  });

  it('round-trips every event deep-equal to what the engine emitted, key order included', () => {
    for (const step of all) {
      const data = stored(engineStepData(step.seq, step.now_us, step.input, step.events));
      expect(data.v).to.equal(JOURNAL_VERSION);
      const decoded = engineEventsOf(recordOf(data));
      expect(decoded).to.deep.equal(step.events);
      expect(JSON.stringify(decoded)).to.equal(JSON.stringify(step.events)); // same keys in the same order, at every level
      expect(data).to.include({ seq: step.seq, now_us: step.now_us });
      expect(data.input).to.deep.equal(step.input);
    }
  });

  it('stores every view of every event type as an array of values (the key lists match the engine)', () => {
    for (const step of all) {
      for (const event of step.events) {
        const encoded = encodeEvent(event);
        expect(Object.keys(encoded)).to.deep.equal(Object.keys(event));
        for (const [key, value] of Object.entries(event)) {
          if (value !== null && typeof value === 'object') expect(encoded[key], `${event.type}.${key}`).to.be.an('array');
          else expect(encoded[key]).to.equal(value);
        }
      }
    }
  });

  it('is smaller than the events as emitted', () => {
    let plain = 0;
    let compact = 0;
    for (const step of all) {
      plain += JSON.stringify({ seq: step.seq, now_us: step.now_us, input: step.input, events: step.events }).length;
      compact += JSON.stringify(engineStepData(step.seq, step.now_us, step.input, step.events)).length;
    }
    expect(compact).to.be.below(plain);
  });

  it('keeps a view that does not have exactly its kind\'s keys as it is', () => {
    const event = all.flatMap((step) => step.events).find((e) => e.type === 'OrderPlaced')!;
    const extra = { ...event, order: { ...(event as Extract<EngineEvent, { type: 'OrderPlaced' }>).order, note: 'x' } } as unknown as EngineEvent;
    const encoded = stored(encodeEvent(extra));
    expect(encoded.order).to.not.be.an('array');
    expect(JSON.stringify(decodeEvent(encoded))).to.equal(JSON.stringify(extra));
  });

  it('still reads v1 records (no `v`) unchanged', () => {
    for (const step of all.slice(0, 40)) {
      const v1 = stored({ seq: step.seq, now_us: step.now_us, input: step.input, events: step.events });
      const decoded = engineEventsOf(recordOf(v1));
      expect(decoded).to.deep.equal(step.events);
      expect(JSON.stringify(decoded)).to.equal(JSON.stringify(step.events));
    }
  });

  it('refuses a record version it does not know, and ignores records that are not engine steps', () => {
    const step = all[0]!;
    expect(() => engineEventsOf(recordOf({ v: 99, seq: step.seq, now_us: step.now_us, input: step.input, events: [] }))).to.throw(/version 99/);
    expect(engineEventsOf({ ...recordOf({}), type: 'SomethingElse' })).to.deep.equal([]);
  });
});
