// OAuth browser sessions in PostgreSQL (cli/stores/browserSessions.pg.ts) keep the rules of the
// in-memory table: the same cases as limits.unit.spec.ts, against the table every node shares.

import { PostgresBrowserSessions } from '../../cli/stores/browserSessions.pg.ts';
import { testDatabase, type TestDatabase } from '../support/pg.ts';
import { browserSessionRules } from './sessionRules.ts';

describe('OAuth browser sessions in PostgreSQL', function () {
  this.timeout(60_000);
  let db: TestDatabase;

  before(async () => {
    db = await testDatabase();
  });
  after(async () => {
    await db.drop();
  });

  browserSessionRules(async (bounds) => {
    await db.pool.query('TRUNCATE oauth_browser_sessions');
    return new PostgresBrowserSessions(db.pool, bounds);
  }, 300);
});
