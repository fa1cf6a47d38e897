// The engine's market catalogue: catalogue fields on listing and on change, event changes,
// archiving, refusals that change nothing, the answer equal to what the folded facts show, and
// snapshots taken before markets had catalogue fields.

import { expect } from 'chai';
import { messageOf, type Refusal } from '../../../domain/errors.ts';
import { marketView, sportEventView } from '../../../domain/readModel/render.ts';
import { decodeState, encodeState, stateHash } from '../../../domain/engine/snapshot.ts';
import type { EngineInput } from '../../../domain/engine/inputs.ts';
import { account, cancel, deposit, market, order, place, Scenario, sportEvent } from './support.ts';

const update = (
  changes: Extract<EngineInput, { kind: 'UpdateMarket' }>['changes'],
  extra: Partial<Extract<EngineInput, { kind: 'UpdateMarket' }>> = {},
): EngineInput => ({ kind: 'UpdateMarket', market_id: 'm', changes, ...extra });

describe('engine: market catalogue', () => {
  it('a market listed with catalogue fields states them after MarketListed; the answer and the folded facts agree', () => {
    const s = new Scenario().given(sportEvent());
    const listing = market('m') as Extract<EngineInput, { kind: 'ListMarket' }>;
    const outcome = s.when({
      ...listing,
      details: {
        filters: ['a'],
        keywords: ['k'],
        stat_detail: { line: 1.5 },
        featured_home: true,
        participants: ['P'],
      },
    });
    expect(outcome.ok).to.equal(true);
    expect(outcome.events.map((e) => e.type)).to.deep.equal(['MarketListed', 'MarketUpdated']);
    const answered = outcome.answer!.markets[0]!;
    expect(answered).to.deep.include({
      filters: ['a'],
      keywords: ['k'],
      stat_detail: { line: 1.5 },
      featured_home: true,
      participants: ['P'],
      archived_at: null,
    });
    expect(s.views.store.markets.get('m') && marketView(s.views.store.markets.get('m')!.record)).to.deep.equal(
      answered,
    );
    // no details, or details that are all unset: no MarketUpdated
    expect(
      s
        .when({ ...(market('m2') as Extract<EngineInput, { kind: 'ListMarket' }>), details: { filters: [] } })
        .events.map((e) => e.type),
    ).to.deep.equal(['MarketListed']);
  });

  it("UpdateMarket changes the fields given, then status, then archives (final); the folded facts equal the engine's state", () => {
    const s = new Scenario().given(sportEvent(), market('m', { status: 'scheduled', symbol: 'S1' }));
    const changed = s.when(
      update({ description: 'd', symbol: 'S2', points_cost: 2 }, { status: 'open', archived: true }),
    );
    expect(changed.events.map((e) => e.type)).to.deep.equal(['MarketUpdated', 'MarketStatusChanged', 'MarketArchived']);
    const state = s.engine.state.markets.get('m')!;
    expect(state).to.include({ description: 'd', symbol: 'S2', pointsCost: 2, status: 'open', archivedAt: s.now });
    expect(marketView(s.views.store.markets.get('m')!.record)).to.deep.equal(marketView(state));
    // nothing to change: no facts
    expect(s.when(update({ description: 'd' }, { archived: true })).events).to.deep.equal([]);
    expect(s.when(update({}, { archived: false })).error).to.deep.equal({ code: 'market_archived' });
  });

  it("refusals change nothing: a symbol in use, a fixed field, a settled market's status, an unknown market", () => {
    const s = new Scenario().given(sportEvent(), market('m', { symbol: 'A' }), market('other', { symbol: 'B' }));
    s.given(account('x'), deposit('x', '10'), place('x', order('o1', 'buy', '0.40', '1')), cancel('x', 'o1'));
    const before = stateHash(s.engine.state);
    const refusals: Array<[EngineInput, Refusal, string]> = [
      [
        update({ symbol: 'B', keywords: ['k'] }),
        { code: 'symbol_taken', symbol: 'B' },
        'symbol B is already used by another market',
      ],
      [
        update({ grouping_id: 'other-group', keywords: ['k'] }),
        { code: 'market_field_fixed', field: 'grouping_id' },
        "grouping_id cannot be changed: it is fixed for the market's life",
      ],
      [
        update({ event_id: 'ev2' }),
        { code: 'market_field_fixed', field: 'event_id' },
        "event_id cannot be changed: it is fixed for the market's life",
      ],
      [
        update({ max_price: '2.00' }),
        { code: 'market_field_fixed', field: 'max_price' },
        "max_price cannot be changed: it is fixed for the market's life",
      ],
      [
        { kind: 'UpdateMarket', market_id: 'nope', changes: { keywords: [] } },
        { code: 'market_not_found' },
        'Market not found',
      ],
      [
        { kind: 'UpdateSportEvent', event_id: 'nope', changes: { title: 't' } },
        { code: 'event_not_found' },
        'Event not found',
      ],
    ];
    for (const [input, refusal, message] of refusals) {
      const outcome = s.when(input);
      expect(outcome.error, message).to.deep.equal(refusal);
      expect(messageOf(outcome.error!)).to.equal(message);
      expect(outcome.events).to.deep.equal([]);
    }
    expect(stateHash(s.engine.state)).to.equal(before);
    s.given({ kind: 'ResultMarket', market_id: 'm', result: 'lose' });
    const settled = stateHash(s.engine.state);
    expect(s.when(update({ keywords: ['k'] }, { trading: false })).error).to.deep.equal({ code: 'market_settled' });
    expect(stateHash(s.engine.state)).to.equal(settled);
    expect(before).to.not.equal(settled);
    // its own fixed values are no change
    expect(
      s
        .when(update({ grouping_id: 'g', event_id: 'ev', max_price: '1.00', powered_by: 'desk' }))
        .events.map((e) => e.type),
    ).to.deep.equal(['MarketUpdated']);
  });

  it("UpdateSportEvent states the event's fields after the change", () => {
    const s = new Scenario().given(sportEvent());
    const outcome = s.when({
      kind: 'UpdateSportEvent',
      event_id: 'ev',
      changes: { title: 'Renamed', participants: ['A', 'B'], competition: 'Cup' },
    });
    expect(outcome.events).to.deep.equal([
      {
        type: 'SportEventUpdated',
        event_id: 'ev',
        title: 'Renamed',
        short_title: null,
        event_type: null,
        sport: 'soccer',
        competition: 'Cup',
        participants: ['A', 'B'],
        start: s.engine.state.sportEvents.get('ev')!.start,
      },
    ]);
    expect(sportEventView(s.views.store.sportEvents.get('ev')!.record)).to.deep.equal(outcome.answer!.sportEvents[0]);
    expect(s.when({ kind: 'UpdateSportEvent', event_id: 'ev', changes: { title: 'Renamed' } }).events).to.deep.equal(
      [],
    );
  });

  it("a snapshot taken before markets had catalogue fields reads with them unset, hashing as today's engine state", () => {
    const s = new Scenario().given(sportEvent(), market('m'), market('m2'));
    const today = stateHash(s.engine.state);
    const old = decodeState(encodeState(s.engine.state));
    const catalogueKeys = [
      'description',
      'groupTitle',
      'specifier',
      'positionLabel',
      'poweredBy',
      'filters',
      'tradingFilters',
      'keywords',
      'participants',
      'statDetail',
      'featuredHome',
      'manualProbability',
      'archivedAt',
    ];
    for (const m of old.markets.values())
      for (const key of catalogueKeys) delete (m as unknown as Record<string, unknown>)[key];
    const restored = decodeState(encodeState(old));
    expect(restored.markets.get('m')).to.include({ description: null, archivedAt: null, featuredHome: false });
    expect(stateHash(restored)).to.equal(today);
  });
});
