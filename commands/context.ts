// The service's wiring, built once at the composition root (cli/serve.ts) and handed to every
// route, command handler and background job. Nothing below reads the environment itself.

import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import type { ProjectionChange } from '../domain/readModel/change.ts';
import type { EventStore } from '../eventstore/port.ts';
import type { CredentialResolver } from './auth/credentials.ts';
import type { CredentialRows } from './credentials/rows.ts';
import type { IdempotencyKeys } from './idempotency/keys.ts';
import type { EngineGateway, WriteTracker } from '../engine/gateway.ts';
import type { SettingsStore } from './settings/settings.ts';

export interface Config {
  port: number;
  wsPort: number;
  /** Addresses or CIDRs of reverse proxies whose X-Forwarded-Proto/Host are believed (TRUSTED_PROXIES). */
  trustedProxies: string[];
  /**
   * The operator listener's port: /admin/v1 and /metrics are served there only, never on `port`
   * (0: any free port; null: the default, 8082).
   */
  adminPort: number | null;
  /** The address the operator listener binds (ADMIN_HOST; default 127.0.0.1, loopback only). */
  adminHost?: string;
  adminToken: string | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
  eventstoreUrl: string | undefined;
  jurisdiction: 'us' | 'ca';
  testClock: boolean;
  demo: boolean;
  logLevel: string;
  /** NODE_URL: the address other nodes forward writes to (default: a free port on 127.0.0.1). */
  nodeUrl?: string;
}

/** Tracks each account's last write, so its reads can wait for projections to pass it (the engine notes them). */
export type { WriteTracker } from '../engine/gateway.ts';

export interface ProjectionWaiter {
  /** Resolves once every projector has passed `position`; rejects with a clear error after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs?: number): Promise<void>;
  /** What projectors changed, announced after each commit (the runner implements it). Returns the unsubscribe. */
  onChange?(listener: (changes: ProjectionChange[]) => void): () => void;
  /** The position each projector has reached, as far as this process knows. */
  positions?(): Record<string, bigint>;
}

/** The controllable clock exists only with TEST_CLOCK=1. */
export interface ControllableClock extends Clock {
  set(us: number): void;
  advance(ms: number): void;
}

export interface AppContext {
  config: Config;
  logger: Logger;
  clock: Clock;
  testClock: ControllableClock | null;
  pool: pg.Pool;
  store: EventStore;
  engine: EngineGateway;
  writes: WriteTracker;
  projections: ProjectionWaiter;
  settings: SettingsStore;
  /** Idempotency keys of order writes (PostgreSQL adapter: cli/stores/idempotencyKeys.pg.ts). */
  idempotencyKeys: IdempotencyKeys;
  /** The credentials read model, for the credential index (PostgreSQL: projections/credentials/queries.ts). */
  credentialRows: CredentialRows;
  /** Credentials → Principal for every transport (REST, WebSocket handshake). */
  credentials: CredentialResolver;
}
