// The PostgreSQL adapters of the ports commands declare, as the composition root wires them into
// the AppContext (cli/serve.ts, and the test harnesses that build a context of their own).

import type pg from 'pg';
import type { Clock } from '../../domain/clock.ts';
import type { AppContext } from '../../commands/context.ts';
import { credentialRowsQuery } from '../../projections/credentials/queries.ts';
import { PostgresIdempotencyKeys } from './idempotencyKeys.pg.ts';

export function postgresStores(pool: pg.Pool, clock: Clock): Pick<AppContext, 'idempotencyKeys' | 'credentialRows'> {
  return { idempotencyKeys: new PostgresIdempotencyKeys(pool, clock), credentialRows: credentialRowsQuery(pool) };
}
