// The one pg.Pool factory: every connection the service opens to PostgreSQL goes through here,
// so int8 parsing and error handling are the same everywhere.

import pg from 'pg';

export const POOL_SIZE_DEFAULT = 10;
const CONNECTION_TIMEOUT_MS = 10_000;
const IDLE_TIMEOUT_MS = 30_000;

export interface PoolOptions {
  connectionString: string;
  max?: number;
  /** Called for errors on idle clients (e.g. the server went away); without it they are ignored. */
  onError?: (error: Error) => void;
  applicationName?: string;
  /** Idle connections close after this long (tests keep it short: many pools share one server). */
  idleTimeoutMs?: number;
}

export function createPool(options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? POOL_SIZE_DEFAULT,
    connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
    idleTimeoutMillis: options.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
    application_name: options.applicationName ?? 'exchange',
  });
  // An idle client losing its connection emits 'error' on the pool; unhandled it would crash.
  pool.on('error', (error) => options.onError?.(error));
  return pool;
}
