// HTTP helpers for the operator tests: admin calls with the admin token, member calls on /api/v1
// signed with an API key (Ed25519 over timestamp + METHOD + path) or with a session bearer token.

import { signRequest } from '../../../commands/demo/signing.ts';
import { startTestService, type TestService, type TestServiceOptions } from '../../support/service.ts';

export interface Answer {
  status: number;
  body: Record<string, any>;
}

export interface ApiKeyCredentials {
  key_id: string;
  private_key: string;
}

export const USER_AGENT = 'exchange-tests';

async function send(url: string, method: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const init: RequestInit = { method, headers: { 'user-agent': USER_AGENT, ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(url, init);
  const text = await response.text();
  let parsed: Record<string, unknown>;
  try {
    parsed = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
  } catch {
    parsed = { raw: text };
  }
  return { status: response.status, body: parsed };
}

export class ServiceClient {
  /** Service clock minus ours, learnt from the clock routes, so signatures stay in the window. */
  private clockOffsetMs = 0;

  /** `adminUrl`: the operator listener (the service's own; defaults to `baseUrl` for apps that serve both). */
  constructor(
    readonly baseUrl: string,
    readonly adminToken: string,
    readonly adminUrl: string = baseUrl,
  ) {}

  nowMs(): number {
    return Date.now() + this.clockOffsetMs;
  }

  async admin(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = { authorization: `Bearer ${this.adminToken}` },
  ): Promise<Answer> {
    const answer = await send(`${this.adminUrl}/admin/v1${path}`, method, headers, body);
    if (path === '/clock' && answer.status === 200 && typeof answer.body.now_us === 'number') {
      this.clockOffsetMs = Math.floor(answer.body.now_us / 1000) - Date.now();
    }
    return answer;
  }

  /** A signed /api/v1 call; `path` is relative to /api/v1 and may carry a query string. */
  signed(key: ApiKeyCredentials, method: string, path: string, body?: unknown): Promise<Answer> {
    const signedRequest = signRequest({
      baseUrl: this.baseUrl,
      keyId: key.key_id,
      privateKeyBase64: key.private_key,
      method,
      path: `/api/v1${path}`,
      nowMs: this.nowMs(),
    });
    const { 'User-Agent': _agent, 'Content-Type': _type, ...headers } = signedRequest.headers;
    return send(signedRequest.url, method, headers, body);
  }

  bearer(token: string, method: string, path: string, body?: unknown): Promise<Answer> {
    return send(`${this.baseUrl}/api/v1${path}`, method, { authorization: `Bearer ${token}` }, body);
  }

  raw(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<Answer> {
    return send(`${this.baseUrl}${path}`, method, headers, body);
  }

  /** Admin call that must succeed; returns the body. */
  async ok(method: string, path: string, body?: unknown): Promise<Record<string, any>> {
    const answer = await this.admin(method, path, body);
    if (answer.status !== 200) throw new Error(`${method} ${path} → ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** An operator lists a sport event (POST /events) and a market on it (POST /markets); both as answered. */
  async listEventAndMarket(
    event: Record<string, unknown>,
    market: Record<string, unknown>,
  ): Promise<{ event: Record<string, any>; market: Record<string, any> }> {
    const listed = (await this.ok('POST', '/events', event)).event;
    return {
      event: listed,
      market: (await this.ok('POST', '/markets', { event_id: listed.event_id, ...market })).market,
    };
  }
}

/** What `useServiceClient` hands a suite: the service and an operator client on it; set once the suite's `before` has run. */
export interface ServiceClientSuite {
  service: TestService;
  client: ServiceClient;
}

/**
 * Mocha hooks for a suite over the whole service (`options` as for startTestService): started, with
 * a client on it, before the suite's tests, stopped after them.
 */
export function useServiceClient(options: TestServiceOptions = {}): ServiceClientSuite {
  const suite = {} as ServiceClientSuite;
  before(async () => {
    suite.service = await startTestService(options);
    suite.client = new ServiceClient(suite.service.baseUrl, suite.service.adminToken, suite.service.adminUrl);
  });
  after(async () => suite.service?.stop());
  return suite;
}
