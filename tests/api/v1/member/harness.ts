// The member routers in isolation over HTTP: real routes, schemas, commands and projectors,
// the memory event store, a fresh PostgreSQL database, the controllable clock and the settings
// store. Authentication is stood in for by a header naming the principal (`x-test-principal`:
// JSON of account_id, method, key_scope, key_id, source) because these tests are about the
// member rules, not the credential checks; a mini runner feeds every projector on waitFor.

import { withCredentials } from '../../../../cli/credentials.ts';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { pino } from 'pino';
import { setPrincipal, type Principal } from '../../../../api/auth/principal.ts';
import { errorHandler, notFound } from '../../../../api/errors.ts';
import { publicRouter } from '../../../../api/public/router.ts';
import { memberRouter } from '../../../../api/v1/member/router.ts';
import { requireRouteScope } from '../../../../api/auth/guards.ts';
import { createTestClock } from '../../../../commands/clock/clock.ts';
import type { AppContext, Config } from '../../../../commands/context.ts';
import type { EngineGateway } from '../../../../engine/gateway.ts';
import { loadSettingsStore } from '../../../../commands/settings/store.ts';
import type { EngineEvent } from '../../../../domain/engine/events.ts';
import type { EngineInput } from '../../../../domain/engine/inputs.ts';
import { Desk } from '../../../projections/core/fixtures.ts';
import { MemoryEventStore } from '../../../../eventstore/memory.ts';
import { coreProjector } from '../../../../projections/core/projector.ts';
import { MEMBER_PROJECTORS } from '../../../../projections/member/index.ts';
import { MiniRunner } from '../../../support/miniRunner.ts';
import { testDatabase, type TestDatabase } from '../../../support/pg.ts';
import { postgresStores } from '../../../../cli/stores/index.ts';

export interface Who {
  account_id: string;
  method?: 'api_key' | 'bearer';
  key_scope?: 'read_only' | 'read_write' | null;
  key_id?: string | null;
  source?: 'api_key' | 'session' | 'oauth';
  scopes?: string[];
}

function principalFrom(req: Request, _res: Response, next: NextFunction): void {
  const raw = req.headers['x-test-principal'];
  if (typeof raw !== 'string') throw new Error('test request without x-test-principal');
  const who = JSON.parse(raw) as Who;
  const method = who.method ?? 'bearer';
  const principal: Principal = {
    kind: 'member',
    account_id: who.account_id,
    user_id: who.account_id.replace(/^0/, '1'),
    method,
    source: who.source ?? (method === 'api_key' ? 'api_key' : 'session'),
    scopes: new Set(who.scopes ?? []),
    key_scope: method === 'api_key' ? (who.key_scope ?? 'read_write') : null,
    key_id: method === 'api_key' ? (who.key_id ?? 'key-1') : null,
    client_id: null,
    token_id: null,
  };
  setPrincipal(req, principal);
  next();
}

export interface MemberService {
  ctx: AppContext;
  db: TestDatabase;
  store: MemoryEventStore;
  clock: ReturnType<typeof createTestClock>;
  /**
   * Runs inputs through an engine of its own (every one must be accepted), journals them as one
   * record (as the engine would), and lets the projectors see it. Answers the facts they produced.
   */
  engineStep(inputs: EngineInput | EngineInput[], nowUs?: number): Promise<EngineEvent[]>;
  call(
    method: string,
    path: string,
    who: Who | null,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers; text: string }>;
  stop(): Promise<void>;
}

export async function startMemberService(options: { jurisdiction?: 'us' | 'ca' } = {}): Promise<MemberService> {
  const db = await testDatabase();
  const store = new MemoryEventStore();
  const clock = createTestClock();
  const logger = pino({ level: 'silent' });
  const settings = await loadSettingsStore({ store, logger });
  // the core read models too: the ledger lists read them
  const runner = new MiniRunner(db, store, [coreProjector(), ...MEMBER_PROJECTORS]);
  await runner.init();
  const writes = new Map<string, bigint>();
  const desk = new Desk();
  const engine: EngineGateway = {
    submit: async () => {
      throw new Error('the member tests do not use the engine');
    },
  };
  const config: Config = {
    port: 0,
    wsPort: 0,
    adminPort: null,
    trustedProxies: [],
    adminToken: 'admin',
    dataDir: '',
    databaseUrl: undefined,
    eventstoreUrl: undefined,
    jurisdiction: options.jurisdiction ?? 'us',
    testClock: true,
    demo: false,
    logLevel: 'silent',
  };
  const wiring: Omit<AppContext, 'credentials'> = {
    config,
    logger,
    clock,
    testClock: clock,
    pool: db.pool,
    store,
    engine,
    settings,
    ...postgresStores(db.pool, clock),
    writes: { note: (account, position) => writes.set(account, position), lastFor: (account) => writes.get(account) },
    projections: { waitFor: async () => runner.catchUp() },
  };
  const ctx: AppContext = withCredentials(wiring);

  const app = express();
  app.use(publicRouter(ctx));
  const v1 = express.Router();
  v1.use(principalFrom);
  v1.use(async (req, _res, next) => {
    await runner.catchUp(); // read-your-writes, as the auth middleware does
    next();
  });
  v1.use(requireRouteScope()); // the route → scope guard, as the v1 router runs it
  v1.use(express.json());
  v1.use(memberRouter(ctx));
  v1.use(() => {
    throw notFound('Not found');
  });
  app.use('/api/v1', v1);
  app.use(errorHandler);
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    ctx,
    db,
    store,
    clock,
    async engineStep(inputs, nowUs) {
      const record = desk.record(inputs, { nowUs: nowUs ?? clock.nowUs() });
      await store.append('engine', [{ id: record.id, type: record.type, data: record.data }], 'any');
      await runner.catchUp();
      return desk.facts;
    },
    async call(method, path, who, body, headers = {}) {
      const init: RequestInit = {
        method,
        headers: {
          ...headers,
          'content-type': 'application/json',
          ...(who ? { 'x-test-principal': JSON.stringify(who) } : {}),
        },
      };
      if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
      const response = await fetch(`${base}${path}`, init);
      const text = await response.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = null;
      }
      return { status: response.status, body: parsed, headers: response.headers, text };
    },
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await db.drop();
    },
  };
}
