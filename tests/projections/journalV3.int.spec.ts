// Old journals still read: a journal written in record version 3 (tests/fixtures/journal-v3,
// made by the generator there with the build that wrote that version) projected by today's
// projectors gives the read models that build recorded, row for row; and today's engine recovers
// from it (every journaled input re-run).

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { recover } from '../../engine/recovery.ts';
import { Engine } from '../../domain/engine/engine.ts';
import {
  encodeStep,
  ENGINE_RECORD_VERSION,
  engineStepsData,
  journalStepsOf,
  newRecordContext,
} from '../../domain/engine/journal/journal.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { coreProjector } from '../../projections/core/projector.ts';
import { memberProfilesProjector } from '../../projections/member/profiles/projector.ts';
import {
  asCoreVersion5,
  asCoreVersion6,
  dumpReadModels,
  inContentOrder,
  projectRecords,
  recordedOf,
  type FixtureRecord,
} from '../fixtures/journal-v3/replay.ts';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'journal-v3');
const journal = JSON.parse(readFileSync(path.join(FIXTURE, 'journal.json'), 'utf8')) as { records: FixtureRecord[] };
const recorded = asCoreVersion6(
  asCoreVersion5(
    withFeeFields(
      withUnsetCatalogue(
        JSON.parse(readFileSync(path.join(FIXTURE, 'read-models.json'), 'utf8')) as Record<string, unknown[]>,
      ),
    ),
  ),
);

/**
 * A market's stored view now carries the operator's catalogue fields (description, lists, flags,
 * archived_at); the fixture's markets were listed before they existed, so theirs are all unset.
 */
function withUnsetCatalogue(tables: Record<string, unknown[]>): Record<string, unknown[]> {
  const unset = {
    description: null,
    group_title: null,
    specifier: null,
    position: null,
    powered_by: null,
    filters: [],
    trading_filters: [],
    keywords: [],
    participants: null,
    stat_detail: null,
    featured_home: false,
    manual_probability: false,
    archived_at: null,
  };
  const out = { ...tables };
  out.core_markets = tables.core_markets!.map((row) => {
    const { doc, ...rest } = row as { doc: Record<string, unknown> };
    return { ...rest, doc: { ...doc, ...unset } };
  });
  return out;
}

type Row = { doc: Record<string, unknown>; ins_pos?: number; ins_idx?: number };

/**
 * Fee fields added since the fixture was written: a fill's doc remembers its trade fee entry and
 * its share of settlement-side fees (none here); a refund's `fee_id` names the fee it refunds (it
 * named the refund itself before); markets and sport events carry their settlement-side fee
 * percents (none set).
 */
function withFeeFields(tables: Record<string, unknown[]>): Record<string, unknown[]> {
  const entries = (tables.core_ledger_entries as Row[])
    .slice()
    .sort((a, b) => a.ins_pos! - b.ins_pos! || a.ins_idx! - b.ins_idx!);
  const tradeFeeOf = new Map<string, string>();
  for (const { doc } of entries) {
    if (doc.type === 'fee' && typeof doc.trade_id === 'string' && !tradeFeeOf.has(doc.trade_id))
      tradeFeeOf.set(doc.trade_id, doc.id as string);
  }
  const feeIdOf = (doc: Record<string, unknown>) =>
    doc.type === 'fee_refund' ? { ...doc, fee_id: tradeFeeOf.get(doc.trade_id as string) ?? null } : doc;
  const withFillFees = (doc: Record<string, unknown>) => ({
    ...doc,
    fee_entry_id: tradeFeeOf.get(doc.trade_id as string) ?? null,
    settlement_fee: '0.00',
  });
  const out = { ...tables };
  // the dumps read docs as jsonb, whose keys come shortest first, then in byte order
  const jsonbOrder = (doc: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(doc).sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0)));
  const map = (table: string, change: (doc: Record<string, unknown>) => Record<string, unknown>) => {
    if (tables[table])
      out[table] = (tables[table] as Row[]).map((row) => ({ ...row, doc: jsonbOrder(change(row.doc)) }));
  };
  map('core_fills', withFillFees);
  map('core_ledger_entries', feeIdOf);
  const unsetPercents = (doc: Record<string, unknown>) => ({
    ...doc,
    settlement_fee_percent: null,
    event_fee_percent: null,
    group_fee_percent: null,
  });
  map('core_markets', unsetPercents);
  map('core_sport_events', (doc) => ({ ...doc, event_fee_percent: null }));
  return out;
}

describe('a journal of record version 3', function () {
  this.timeout(60_000);

  it('projects to the read models recorded when it was written', async () => {
    const projectors = [coreProjector(), memberProfilesProjector];
    const { db } = await projectRecords(journal.records, projectors);
    try {
      const rebuilt = await dumpReadModels(db.pool, projectors);
      expect(Object.keys(rebuilt).sort()).to.deep.equal(Object.keys(recorded).sort());
      for (const table of Object.keys(recorded)) {
        expect(inContentOrder(rebuilt[table]!), table).to.deep.equal(inContentOrder(recorded[table]!));
      }
    } finally {
      await db.drop();
    }
  });

  it('is recovered by the engine: every journaled input re-runs', async () => {
    const store = new MemoryEventStore();
    for (const record of journal.records.map(recordedOf)) {
      await store.append(
        record.stream,
        [{ id: record.id, type: record.type, data: record.data, metadata: record.metadata }],
        'any',
      );
    }
    const recovered = await recover(store, null);
    const steps = journal.records.reduce((n, r) => n + (r.data as { steps: unknown[] }).steps.length, 0);
    expect(recovered.replayedSteps).to.equal(steps);
    expect(recovered.engine.state.seq).to.equal(steps);
  });
});

describe("the same history journaled by today's engine (record version 4, facts)", function () {
  this.timeout(60_000);

  /** The fixture's inputs re-run through today's engine, journaled as facts, record for record at the same positions. */
  function rejournal(): FixtureRecord[] {
    const engine = new Engine();
    return journal.records.map((fixture) => {
      const context = newRecordContext();
      const steps = journalStepsOf(recordedOf(fixture)).map(({ seq, now_us, input }) => {
        const outcome = engine.step({ seq, now_us, input });
        if (!outcome.ok) throw new Error(`step ${seq} refused: ${JSON.stringify(outcome.error)}`);
        return encodeStep(seq, now_us, input, outcome.events, context);
      });
      return { ...fixture, data: engineStepsData(steps) };
    });
  }

  it('projects to the read models of the old journal: the same rows in the same order', async () => {
    const records = rejournal();
    expect(records.every((r) => (r.data as { v: number }).v === ENGINE_RECORD_VERSION)).to.equal(true);
    const projectors = [coreProjector(), memberProfilesProjector];
    const { db } = await projectRecords(records, projectors);
    try {
      const rebuilt = await dumpReadModels(db.pool, projectors);
      for (const table of Object.keys(recorded)) {
        // a fact's index in its record differs from the old event's: compare the order, not the index
        const normal = (rows: unknown[]) => rows.map(withoutIndex).sort(byText);
        expect(normal(rebuilt[table]!), table).to.deep.equal(normal(recorded[table]!));
        expect(insertionOrder(rebuilt[table]!), `${table} order`).to.deep.equal(insertionOrder(recorded[table]!));
      }
    } finally {
      await db.drop();
    }
  });
});

const byText = (a: unknown, b: unknown) =>
  JSON.stringify(a) < JSON.stringify(b) ? -1 : JSON.stringify(a) > JSON.stringify(b) ? 1 : 0;

function withoutIndex(row: unknown): unknown {
  const { ins_idx: _, ...rest } = row as Record<string, unknown>;
  return rest;
}

/** The rows' other columns, in the order (ins_pos, ins_idx) gives them (for tables that keep insertion order). */
function insertionOrder(rows: unknown[]): unknown[] {
  const keyed = rows as Array<{ ins_pos?: number; ins_idx?: number }>;
  if (keyed.length === 0 || keyed[0]!.ins_idx === undefined) return [];
  return [...keyed]
    .sort((a, b) => a.ins_pos! - b.ins_pos! || a.ins_idx! - b.ins_idx!)
    .map((row) => JSON.stringify(withoutIndex(row)));
}
