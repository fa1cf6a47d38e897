// The trading API over real HTTP against the whole service started in-process
// (tests/support/service.ts: the composition root with the PostgreSQL event store, the engine,
// the projection runner and a fresh database), set up through the admin API. Clients sign with
// @noble/curves exactly as the README shows. Every JSON answer under /api/v1 is validated
// against the OpenAPI document the service publishes.

import http, { type IncomingHttpHeaders } from 'node:http';
import { buildOpenApiDocument, memberFragment } from '../../../api/openapi/document.ts';
import { tradingRoutes } from '../../../api/v1/routes.ts';
import type { AppContext } from '../../../commands/context.ts';
import { signingString, signWithNoble } from '../../../commands/credentials/ed25519.ts';
import { startTestService } from '../../support/service.ts';
import { OpenApiChecker } from './openapi.ts';

export const USER_AGENT = 'trading-tests/1.0';
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
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

export interface TradingService {
  ctx: AppContext;
  base: string;
  admin(method: string, route: string, body?: unknown): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  adminRaw(method: string, route: string, body?: unknown): Promise<Answer>;
  call(method: string, pathWithQuery: string, options?: CallOptions): Promise<Answer>;
  /** A funded active account with a read_write key, a read_only key and a session token. */
  member(deposit?: string): Promise<Member>;
  /** An event starting tomorrow and a market on it (open and trading by default). */
  market(fields?: Record<string, unknown>, eventFields?: Record<string, unknown>): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  stop(): Promise<void>;
}

export interface Member {
  account_id: string;
  user_id: string;
  key: ApiKey;
  readOnlyKey: ApiKey;
  session: string;
  call(method: string, pathWithQuery: string, options?: CallOptions): Promise<Answer>;
}

export function signedHeaders(key: Pick<ApiKey, 'key_id' | 'private_key'>, method: string, pathWithQuery: string, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs));
  const seed = new Uint8Array(Buffer.from(key.private_key, 'base64'));
  const signature = signWithNoble(seed, new TextEncoder().encode(signingString(timestamp, method, pathWithQuery)));
  return {
    'X-SVC-ACCESS-KEY': key.key_id,
    'X-SVC-ACCESS-TIMESTAMP': timestamp,
    'X-SVC-ACCESS-SIGNATURE': Buffer.from(signature).toString('base64'),
  };
}

/** node:http, so that no header is added behind the test's back (fetch adds a User-Agent). */
function fetchAnswer(url: string, init: { method: string; headers: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const headers = { ...init.headers };
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const req = http.request({ host: target.hostname, port: target.port, method: init.method, path: url.slice(target.origin.length), headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
        resolve({ status: res.statusCode ?? 0, body, headers: res.headers, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}

export async function startTradingService(): Promise<TradingService> {
  const started = await startTestService();
  const ctx = started.ctx;
  const clock = ctx.clock;
  const base = started.baseUrl.replace(/\/+$/, '');
  const adminToken = started.adminToken;

  const adminRaw = (method: string, route: string, body?: unknown) => fetchAnswer(`${base}/admin/v1${route}`, {
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
    if (opts.key) Object.assign(headers, signedHeaders(opts.key, method, pathWithQuery, clock.nowUs() / 1000 + (opts.skewMs ?? 0)));
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
    const { api_key: readOnlyKey } = await admin('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_only' });
    const { session } = await admin('POST', `/accounts/${account.account_id}/sessions`, {});
    return {
      account_id: account.account_id, user_id: account.user_id, key, readOnlyKey, session: session.token,
      call: (method, pathWithQuery, opts = {}) => call(method, pathWithQuery, { key: opts.bearer !== undefined ? undefined : key, ...opts }),
    };
  };

  const market = async (fields: Record<string, unknown> = {}, eventFields: Record<string, unknown> = {}) => {
    const start = new Date(clock.nowUs() / 1000 + 86_400_000).toISOString();
    const { event } = await admin('POST', '/events', { title: 'Lions v Tigers', start, sport: 'Soccer', competition: 'EPL', ...eventFields });
    const { market: listed } = await admin('POST', '/markets', { event_id: event.event_id, title: 'Lions to win', status: 'open', ...fields });
    return listed;
  };

  return {
    ctx, base, admin, adminRaw, call, member, market,
    async stop() {
      await started.stop();
    },
  };
}
