// Old journals still read: a journal written in record version 3 (tests/fixtures/journal-v3,
// made by the generator there with the build that wrote that version) projected by today's
// projectors gives the read models that build recorded, row for row; and today's engine recovers
// from it (every journaled input re-run).

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { recover } from '../../commands/engine/recovery.ts';
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { coreProjector } from '../../projections/core/projector.ts';
import { memberActivityProjector } from '../../projections/member/activity/projector.ts';
import { memberProfilesProjector } from '../../projections/member/profiles/projector.ts';
import { dumpReadModels, projectRecords, recordedOf, type FixtureRecord } from '../fixtures/journal-v3/replay.ts';

const FIXTURE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'journal-v3');
const journal = JSON.parse(readFileSync(path.join(FIXTURE, 'journal.json'), 'utf8')) as { records: FixtureRecord[] };
const recorded = JSON.parse(readFileSync(path.join(FIXTURE, 'read-models.json'), 'utf8')) as Record<string, unknown[]>;

describe('a journal of record version 3', function () {
  this.timeout(60_000);

  it('projects to the read models recorded when it was written', async () => {
    const projectors = [coreProjector(), memberActivityProjector, memberProfilesProjector];
    const { db } = await projectRecords(journal.records, projectors);
    try {
      const rebuilt = await dumpReadModels(db.pool, projectors);
      expect(Object.keys(rebuilt).sort()).to.deep.equal(Object.keys(recorded).sort());
      for (const table of Object.keys(recorded)) expect(rebuilt[table], table).to.deep.equal(recorded[table]);
    } finally {
      await db.drop();
    }
  });

  it('is recovered by the engine: every journaled input re-runs', async () => {
    const store = new MemoryEventStore();
    for (const record of journal.records.map(recordedOf)) {
      await store.append(record.stream, [{ id: record.id, type: record.type, data: record.data, metadata: record.metadata }], 'any');
    }
    const recovered = await recover(store, null);
    const steps = journal.records.reduce((n, r) => n + ((r.data as { steps: unknown[] }).steps.length), 0);
    expect(recovered.replayedSteps).to.equal(steps);
    expect(recovered.engine.state.seq).to.equal(steps);
  });
});
