// Boots the WHOLE service in-process (cli/buildService.ts, the composition root, as `exchange
// serve` does) on a free port against a fresh test database, with the test clock on and a known
// admin token. Every test harness of the service starts it here; none replaces a part of it
// (authentication is always the real credential check).

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import type { AppContext } from '../../commands/context.ts';
import { buildService, type ServiceOverrides } from '../../cli/buildService.ts';
import { loadConfig } from '../../cli/config.ts';
import type { RunningService } from '../../cli/serve.ts';
import { testDatabase } from './pg.ts';

export const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghij';

export interface TestService {
  baseUrl: string;
  /** The operator listener (/admin/v1, /metrics), on 127.0.0.1. */
  adminUrl: string;
  adminToken: string;
  ctx: AppContext;
  service: RunningService;
  stop(): Promise<void>;
}

/** What a test may set: the configuration variables, and the parts buildService lets a caller set. */
export type TestServiceOptions = {
  env?: Record<string, string>;
  onListening?: (baseUrl: string) => Promise<void> | void;
  logger?: Logger;
} & Pick<ServiceOverrides, 'progressStream' | 'bannerStream' | 'engine' | 'leaderboardScheduler'>;

/**
 * `env` overrides the defaults (PORT=0, WS_PORT=0, ADMIN_PORT=0, TEST_CLOCK=1, ADMIN_TOKEN, LOG_LEVEL=silent, a temp
 * DATA_DIR, DATABASE_URL of a fresh database), e.g. { JURISDICTION: 'ca' } or { DEMO: '1' };
 * `engine` (its bounds) and `leaderboardScheduler` are handed to buildService.
 */
export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'exchange-test-service-'));
  const db = opts.env?.DATABASE_URL ? undefined : await testDatabase();
  const config = loadConfig({
    PORT: '0',
    WS_PORT: '0',
    ADMIN_PORT: '0',
    TEST_CLOCK: '1',
    ADMIN_TOKEN: TEST_ADMIN_TOKEN,
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    ...(db ? { DATABASE_URL: db.connectionString } : {}),
    ...opts.env,
  });
  const logger = opts.logger ?? pino({ level: config.logLevel });
  let service: RunningService;
  try {
    service = await buildService({
      config,
      logger,
      ...(opts.progressStream ? { progressStream: opts.progressStream } : {}),
      ...(opts.bannerStream ? { bannerStream: opts.bannerStream } : {}),
      ...(opts.engine ? { engine: opts.engine } : {}),
      ...(opts.leaderboardScheduler === undefined ? {} : { leaderboardScheduler: opts.leaderboardScheduler }),
      ...(opts.onListening ? { onListening: (port: number) => opts.onListening!(`http://127.0.0.1:${port}`) } : {}),
      ...(db ? { database: { pool: db.pool, connectionString: db.connectionString, close: async () => {} } } : {}),
    });
  } catch (error) {
    await db?.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  return {
    baseUrl: service.baseUrl,
    adminUrl: service.adminUrl,
    adminToken: config.adminToken!,
    ctx: service.ctx,
    service,
    async stop() {
      await service.stop();
      await db?.drop().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Mocha hooks for a suite over the whole service: started (as startTestService does with `opts`)
 * before the suite's tests, stopped after them; `service` is set once `before` has run.
 */
export function useTestService(opts: TestServiceOptions = {}): { service: TestService } {
  const suite = {} as { service: TestService };
  before(async () => {
    suite.service = await startTestService(opts);
  });
  after(async () => suite.service?.stop());
  return suite;
}
