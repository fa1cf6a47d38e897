// The suite every fixture journal of facts (record versions 4 and 5) passes: a journal written by
// an older build is verified by today's replay (every input re-run to the state hash that build
// reported; its facts, read in today's shape, are not compared), recovered by today's engine, and
// projected by today's projectors to the read models that build recorded, row for row; and the same
// history journaled in today's record version projects to the very same rows.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { recover } from '../../engine/recovery.ts';
import { verifyJournal } from '../../engine/verify.ts';
import { Engine } from '../../domain/engine/engine.ts';
import {
  encodeStep,
  ENGINE_RECORD_VERSION,
  engineStepsData,
  journalStepsOf,
  newRecordContext,
} from '../../domain/engine/journal/journal.ts';
import { initialState, stateHash } from '../../domain/engine/snapshot.ts';
import { EngineStateFold } from '../../domain/evolve/state.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { coreProjector } from '../../projections/core/projector.ts';
import { memberProfilesProjector } from '../../projections/member/profiles/projector.ts';
import {
  dumpReadModels,
  inContentOrder,
  projectRecords,
  recordedOf,
  type FixtureRecord,
} from '../fixtures/journal-v3/replay.ts';

export interface FactsJournalFixture {
  /** The record version the fixture was written in. */
  version: number;
  /** Its folder under tests/fixtures. */
  folder: string;
  /** The recorded read models as today's projectors keep them. */
  asToday?: (tables: Record<string, unknown[]>) => Record<string, unknown[]>;
  /** Whether today's records of the same history must be smaller than the fixture's. */
  smallerToday: boolean;
}

/**
 * Makes the amount of the first deposit's transfer fact one cent more (the fact only: the input
 * stays, so a replay of the inputs reaches the same state). Version 4 steps are objects with
 * `events`, version 5 steps arrays with the facts last; either way the first value equal to the
 * input's amount in the step's facts is the Transferred fact's.
 */
function alterFirstDeposit(records: FixtureRecord[]): boolean {
  for (const record of records) {
    for (const step of (record.data as { steps: unknown[] }).steps) {
      const [input, facts] = Array.isArray(step)
        ? [step[2] as { kind?: string; amount?: string }, step[3] as unknown[]]
        : [(step as { input: { kind: string; amount?: string } }).input, (step as { events: unknown[] }).events];
      if (input.kind !== 'Deposit' || input.amount === undefined) continue;
      const amount = input.amount;
      const replaced = (value: unknown): boolean => {
        if (!Array.isArray(value)) return false;
        for (let i = 0; i < value.length; i++) {
          if (value[i] === amount) {
            value[i] = (Number(amount) + 0.01).toFixed(2);
            return true;
          }
          if (replaced(value[i])) return true;
        }
        return false;
      };
      return replaced(facts);
    }
  }
  return false;
}

export function describeFactsJournal(fixture: FactsJournalFixture): void {
  const folder = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', fixture.folder);
  const read = <T>(file: string): T => JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as T;
  const journal = read<{ records: FixtureRecord[] }>('journal.json');
  const tables = read<Record<string, unknown[]>>('read-models.json');
  const recorded = fixture.asToday ? fixture.asToday(tables) : tables;
  const final = read<{ seq: number; state_hash: string }>('state.json');

  async function storeOf(records: readonly FixtureRecord[]): Promise<MemoryEventStore> {
    const store = new MemoryEventStore();
    for (const record of records.map(recordedOf)) {
      await store.append(
        record.stream,
        [{ id: record.id, type: record.type, data: record.data, metadata: record.metadata }],
        'any',
      );
    }
    return store;
  }

  const projectors = () => [coreProjector(), memberProfilesProjector];

  async function expectRecordedReadModels(records: readonly FixtureRecord[]): Promise<void> {
    const { db } = await projectRecords(records, projectors());
    try {
      const rebuilt = await dumpReadModels(db.pool, projectors());
      expect(Object.keys(rebuilt).sort()).to.deep.equal(Object.keys(recorded).sort());
      for (const table of Object.keys(recorded))
        expect(inContentOrder(rebuilt[table]!), table).to.deep.equal(inContentOrder(recorded[table]!));
    } finally {
      await db.drop();
    }
  }

  describe(`a journal of record version ${fixture.version}`, function () {
    this.timeout(60_000);

    it(`is written in version ${fixture.version}`, () => {
      expect(journal.records.every((r) => (r.data as { v: number }).v === fixture.version)).to.equal(true);
    });

    it("replays to the state hash recorded when it was written (its facts upcast to today's shape: re-run, not compared)", async () => {
      const report = await verifyJournal(await storeOf(journal.records), null);
      expect(report.mismatches).to.deep.equal([]);
      expect(report).to.include({
        ok: true,
        steps: final.seq,
        viewSteps: final.seq,
        finalSeq: final.seq,
        finalStateHash: final.state_hash,
      });
    });

    it('replay --verify folds its facts too: a fact altered in the journal (its version is not compared) is caught', async () => {
      const records = JSON.parse(JSON.stringify(journal.records)) as FixtureRecord[];
      expect(alterFirstDeposit(records), 'a deposit to alter').to.equal(true);
      const report = await verifyJournal(await storeOf(records), null);
      expect(report.mismatches).to.deep.equal([]);
      expect(report.folded).to.deep.equal({ matches: false });
      expect(report).to.include({ ok: false, finalStateHash: final.state_hash });
      expect((await verifyJournal(await storeOf(journal.records), null)).folded).to.deep.equal({ matches: true });
    });

    it('is recovered by the engine: every journaled input re-runs, to the same state', async () => {
      const recovered = await recover(await storeOf(journal.records), null);
      expect(recovered.replayedSteps).to.equal(final.seq);
      expect(stateHash(recovered.engine.state)).to.equal(final.state_hash);
    });

    it("folded from zero with the domain's evolve, its facts alone give the state hash recorded when it was written", () => {
      const fold = new EngineStateFold(initialState());
      for (const record of journal.records)
        for (const step of journalStepsOf(recordedOf(record))) fold.step(step.seq, step.now_us, step.events);
      expect(fold.state.seq).to.equal(final.seq);
      expect(stateHash(fold.state)).to.equal(final.state_hash);
    });

    it('projects to the read models recorded when it was written', async () => {
      await expectRecordedReadModels(journal.records);
    });

    it("and the same history journaled in today's record version projects to the very same rows, and replays to the same state hash", async () => {
      const engine = new Engine();
      const records = journal.records.map((record) => {
        const context = newRecordContext();
        const steps = journalStepsOf(recordedOf(record)).map(({ seq, now_us, input }) => {
          const outcome = engine.step({ seq, now_us, input });
          if (!outcome.ok) throw new Error(`step ${seq} refused`);
          return encodeStep(seq, now_us, input, outcome.events, context);
        });
        return { ...record, data: JSON.parse(JSON.stringify(engineStepsData(steps))) as unknown };
      });
      expect(records.every((r) => (r.data as { v: number }).v === ENGINE_RECORD_VERSION)).to.equal(true);
      if (fixture.smallerToday) {
        expect(JSON.stringify(records.map((r) => r.data)).length).to.be.below(
          JSON.stringify(journal.records.map((r) => r.data)).length,
        );
      }
      await expectRecordedReadModels(records);
      const report = await verifyJournal(await storeOf(records), null);
      expect(report).to.include({ ok: true, viewSteps: 0, finalStateHash: final.state_hash });
    });
  });
}
