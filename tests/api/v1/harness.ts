// Test harnesses of the trading API over real HTTP, clients signing with @noble/curves exactly
// as the README shows, setup through the admin API, every JSON answer under /api/v1 validated
// against the OpenAPI document the service publishes. startWholeService() runs the whole service
// in-process (tests/support/service.ts: the composition root's buildService, PostgreSQL event
// store, engine, projection worker, real authentication, a fresh database).

import http, { type IncomingHttpHeaders } from 'node:http';
import { expect } from 'chai';
import { buildOpenApiDocument, memberFragment } from '../../../api/openapi/document.ts';
import { tradingRoutes } from '../../../api/v1/routes.ts';
import type { AppContext } from '../../../commands/context.ts';
import { createSigner } from '@event-exchange/client';
import { startTestService, type TestService, type TestServiceOptions } from '../../support/service.ts';
import type { EventStore } from '../../../eventstore/port.ts';
import { OpenApiChecker } from '../openapi/openapi.ts';

export const USER_AGENT = 'trading-tests/1.0';
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export interface Answer {
  status: number;
  body: any;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface ApiKey {
  key_id: string;
  scope: 'read_only' | 'read_write';
  public_key: string;
  private_key: string;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** Sign with this key (default: the client's key). */
  key?: ApiKey | null;
  bearer?: string;
  userAgent?: string | null;
  /** Milliseconds added to the signed timestamp. */
  skewMs?: number;
}

/** What every harness offers. */
export interface ServiceClients {
  ctx: AppContext;
  base: string;
  admin(method: string, route: string, body?: unknown): Promise<any>;
  adminRaw(method: string, route: string, body?: unknown): Promise<Answer>;
  call(method: string, pathWithQuery: string, options?: CallOptions): Promise<Answer>;
  /** A funded active account with a read_write key, a read_only key and a session token. */
  member(deposit?: string): Promise<Member>;
  /** An event starting tomorrow and a market on it (open and trading by default). */
  market(fields?: Record<string, unknown>, eventFields?: Record<string, unknown>): Promise<any>;
  stop(): Promise<void>;
}

/** The whole service: its event store is the service's own; it serves where a TestService is asked for. */
export interface WholeService extends ServiceClients, TestService {
  store: EventStore;
  /** The WebSocket feed's endpoint, e.g. ws://127.0.0.1:PORT/socket (Phoenix appends /websocket). */
  socketUrl: string;
}

export interface Member {
  account_id: string;
  user_id: string;
  key: ApiKey;
  readOnlyKey: ApiKey;
  session: string;
  call(method: string, pathWithQuery: string, options?: CallOptions): Promise<Answer>;
}

export function signedHeaders(
  key: Pick<ApiKey, 'key_id' | 'private_key'>,
  method: string,
  pathWithQuery: string,
  nowMs: number,
): Record<string, string> {
  return {
    ...createSigner(key.key_id, key.private_key, { implementation: 'noble' }).headers(method, pathWithQuery, nowMs),
  };
}

/** node:http, so that no header is added behind the test's back (fetch adds a User-Agent). */
function fetchAnswer(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const req = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: init.method,
        path: url.slice(target.origin.length),
        headers,
        agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = null;
          }
          resolve({ status: res.statusCode ?? 0, body, headers: res.headers, text });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

/** The whole service, started in-process by the test support (`overrides` go to buildService). */
export async function startWholeService(
  env: Record<string, string> = {},
  overrides: Omit<TestServiceOptions, 'env'> = {},
): Promise<WholeService> {
  const started = await startTestService({ ...overrides, env });
  const base = started.baseUrl.replace(/\/+$/, '');
  const clients = clientsOf(started.ctx, base, started.adminToken, started.adminUrl);
  return {
    ctx: started.ctx,
    baseUrl: started.baseUrl,
    base,
    store: started.ctx.store,
    ...clients,
    socketUrl: `ws://127.0.0.1:${started.service.wsPort}/socket`,
    service: started.service,
    adminToken: started.adminToken,
    adminUrl: started.adminUrl,
    stop: () => started.stop(),
  };
}

/**
 * What `useWholeService` hands a suite: the service, its funded members by name, one open market,
 * and the OpenAPI document the service publishes. The fields are set once the suite's `before` has run.
 */
export type WholeServiceSuite<Name extends string> = {
  svc: WholeService;
  marketId: string;
  openapi: OpenApiChecker;
  /** Sockets the suite opens: closed after its tests, before the service stops. */
  sockets: Array<{ close(): void }>;
} & Record<Name, Member>;

/**
 * Mocha hooks for a suite over the whole service: started (with a funded member for each of
 * `members`, in that order, each with its `deposits` entry or the default, and one open market
 * unless `market` is false) before the suite's tests, stopped after them.
 */
export function useWholeService<Name extends string = 'alice'>(
  members: readonly Name[] = ['alice' as Name],
  { market = true, deposits = {} }: { market?: boolean; deposits?: Partial<Record<Name, string>> } = {},
): WholeServiceSuite<Name> {
  const suite = { sockets: [] as Array<{ close(): void }> } as WholeServiceSuite<Name>;
  before(async () => {
    suite.svc = await startWholeService();
    for (const name of members) (suite as Record<Name, Member>)[name] = await suite.svc.member(deposits[name]);
    if (market) suite.marketId = (await suite.svc.market()).market_id;
    suite.openapi = new OpenApiChecker((await suite.svc.call('GET', '/api/v1/openapi.json')).body);
  });
  after(async () => {
    for (const socket of suite.sockets.splice(0)) socket.close();
    await suite.svc?.stop();
  });
  return suite;
}

/** The body of a limit buy of one contract on `marketId` at `price`, with `extra` fields over it. */
export function limitBuyOfOne(
  marketId: string,
  price: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { action: 'buy', market_id: marketId, order_type: 'limit', price, quantity: '1', ...extra };
}

/**
 * Places a limit order for `who` (`order`: market_id, action, price, quantity and any other field)
 * and returns it; fails the test with the answer's text unless it is accepted.
 */
export async function placeLimit(who: Member, order: Record<string, unknown>): Promise<any> {
  const answer = await who.call('POST', '/api/v1/orders', { body: { order_type: 'limit', ...order } });
  expect(answer.status, answer.text).to.equal(200);
  return answer.body.order;
}

type Clients = Pick<ServiceClients, 'admin' | 'adminRaw' | 'call' | 'member' | 'market'>;

/** `adminBase`: where /admin/v1 is served (the service's operator listener; `base` for an app serving both). */
function clientsOf(ctx: AppContext, base: string, adminToken: string, adminBase = base): Clients {
  const clock = ctx.clock;
  const adminRaw = (method: string, route: string, body?: unknown) =>
    fetchAnswer(`${adminBase}/admin/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const admin = async (method: string, route: string, body?: unknown) => {
    const answer = await adminRaw(method, route, body);
    if (answer.status !== 200) throw new Error(`admin ${method} ${route}: ${answer.status} ${answer.text}`);
    return answer.body;
  };

  // Every JSON answer under /api/v1 is checked against the service's OpenAPI document.
  const openapi = new OpenApiChecker(buildOpenApiDocument(tradingRoutes(ctx), [memberFragment()]));
  const checked = async (method: string, pathWithQuery: string, answer: Promise<Answer>): Promise<Answer> => {
    const received = await answer;
    if (pathWithQuery.startsWith('/api/v1/') && received.headers['content-type']?.startsWith('application/json')) {
      openapi.checkIfDocumented(method, pathWithQuery, received.status, received.body);
    }
    return received;
  };

  const call = (method: string, pathWithQuery: string, opts: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (opts.userAgent !== null) headers['user-agent'] = opts.userAgent ?? USER_AGENT;
    if (opts.key)
      Object.assign(headers, signedHeaders(opts.key, method, pathWithQuery, clock.nowUs() / 1000 + (opts.skewMs ?? 0)));
    if (opts.bearer !== undefined) headers.authorization = `Bearer ${opts.bearer}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      body = typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, opts.headers ?? {});
    return checked(method, pathWithQuery, fetchAnswer(`${base}${pathWithQuery}`, { method, headers, body }));
  };

  const member = async (deposit = '10000'): Promise<Member> => {
    const { account } = await admin('POST', '/accounts', { first_name: 'Test', last_name: 'Trader' });
    if (deposit !== '0') await admin('POST', `/accounts/${account.account_id}/deposits`, { amount: deposit });
    const { api_key: key } = await admin('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_write' });
    const { api_key: readOnlyKey } = await admin('POST', `/accounts/${account.account_id}/api_keys`, {
      scope: 'read_only',
    });
    const { session } = await admin('POST', `/accounts/${account.account_id}/sessions`, {});
    return {
      account_id: account.account_id,
      user_id: account.user_id,
      key,
      readOnlyKey,
      session: session.token,
      call: (method, pathWithQuery, opts = {}) =>
        call(method, pathWithQuery, { key: opts.bearer !== undefined ? undefined : key, ...opts }),
    };
  };

  const market = async (fields: Record<string, unknown> = {}, eventFields: Record<string, unknown> = {}) => {
    const start = new Date(clock.nowUs() / 1000 + 86_400_000).toISOString();
    const { event } = await admin('POST', '/events', {
      title: 'Lions v Tigers',
      start,
      sport: 'Soccer',
      competition: 'EPL',
      ...eventFields,
    });
    const { market: listed } = await admin('POST', '/markets', {
      event_id: event.event_id,
      title: 'Lions to win',
      status: 'open',
      ...fields,
    });
    return listed;
  };

  return { admin, adminRaw, call, member, market };
}
