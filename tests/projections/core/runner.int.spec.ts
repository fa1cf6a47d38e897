// The core projector under the real projection runner and the postgres event store: an engine
// session journaled on stream `engine` is projected live (part before the runner starts, part
// while it runs), announces its changes with routing keys, and a rebuild from position zero
// (into a scratch schema, swapped in) yields exactly the live tables.

import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { PostgresEventStore } from '../../../eventstore/postgres.ts';
import { coreProjector } from '../../../projections/core/projector.ts';
import { getBalance } from '../../../projections/core/queries/accounts.ts';
import { getMarket } from '../../../projections/core/queries/markets.ts';
import { renderBalance } from '../../../projections/core/render.ts';
import { CORE_TABLES } from '../../../projections/core/schema.ts';
import type { ProjectionChange } from '../../../projections/projector.ts';
import { ProjectionRunner } from '../../../projections/runner.ts';
import type { BalanceView } from '../../../domain/views.ts';
import { testDatabase, type TestDatabase } from '../../support/pg.ts';
import { dumpTables } from './fixtures.ts';
import { ENGINE_STEPS_TYPE } from '../../../domain/engine/journal/journal.ts';
import { engineSession, finalSnapshots, stepRecordData, type EngineStepData } from './session.ts';

describe('core projector under the projection runner', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let store: PostgresEventStore;
  let runner: ProjectionRunner | undefined;

  beforeEach(async () => {
    db = await testDatabase();
    store = new PostgresEventStore({ pool: db.pool, connectionString: db.connectionString });
  });
  afterEach(async () => {
    await runner?.stop();
    runner = undefined;
    await store.close();
    await db.drop();
  });

  const journal = async (steps: readonly EngineStepData[]): Promise<bigint> => {
    let position = -1n;
    for (let i = 0; i < steps.length; i += 50) {
      const chunk = steps
        .slice(i, i + 50)
        .map((data) => ({ id: randomUUID(), type: ENGINE_STEPS_TYPE, data: stepRecordData(data) }));
      position = (await store.append('engine', chunk, 'any')).position;
    }
    return position;
  };

  it('projects live, announces changes, and rebuilds to identical tables', async () => {
    const session = engineSession({ seed: 424242, accounts: 5, markets: 2, inputs: 300 });
    const half = Math.floor(session.steps.length / 2);
    await journal(session.steps.slice(0, half));

    runner = new ProjectionRunner({ pool: db.pool, store, projectors: [coreProjector()] });
    const changes: ProjectionChange[] = [];
    runner.onChange((batch) => changes.push(...batch.filter((c) => c.projector === 'core')));
    await runner.start();
    const head = await journal(session.steps.slice(half));
    await runner.waitFor(head);

    const { balances } = finalSnapshots(session.steps);
    for (const accountId of session.accountIds) {
      expect(await getBalance(db.pool, accountId)).to.deep.equal(renderBalance(balances.get(accountId) as BalanceView));
    }
    const market = await getMarket(db.pool, session.marketIds[0] as string, session.nowUs);
    expect(market?.market_id).to.equal(session.marketIds[0]);

    const kinds = new Set(changes.map((c) => c.kind));
    expect([...kinds]).to.include.members([
      'account',
      'balance',
      'order',
      'fill',
      'position',
      'market',
      'ledger_entry',
      'sport_event',
    ]);
    const orderChange = changes.find((c) => c.kind === 'order');
    expect(orderChange?.keys).to.have.all.keys('account_id', 'user_id', 'market_id');

    const live = await dumpTables(db.pool, CORE_TABLES);
    await runner.rebuild('core');
    expect(await dumpTables(db.pool, CORE_TABLES)).to.deep.equal(live);
  });
});
