// Helpers for the client's tests: a real service (started in-process with its operator API on its
// own loopback port, ADMIN_PORT, as tests outside the project run it), operator calls to set up
// members, keys and markets, and fault-injecting proxies (HTTP and WebSocket) placed between the
// client and the service to lose answers, refuse with 503/429 and drop feed frames.

import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { OAuthTokens } from '@event-exchange/client';
import { FormBrowser, logInThrough } from '../oauth/support.ts';
import { startTestService, type TestService } from '../support/service.ts';

export interface Service {
  svc: TestService;
  baseUrl: string;
  wsUrl: string;
  adminUrl: string;
  /** The operator, on the service's operator listener. */
  admin: Admin;
}

export async function startService(env: Record<string, string> = {}): Promise<Service> {
  const svc = await startTestService({ env: { ADMIN_PORT: '0', ...env } });
  const adminPort = svc.service.adminPort;
  const adminUrl = adminPort === null ? svc.baseUrl : `http://127.0.0.1:${adminPort}`;
  return {
    svc,
    baseUrl: svc.baseUrl,
    wsUrl: `ws://127.0.0.1:${svc.service.wsPort}/socket`,
    adminUrl,
    admin: new Admin(adminUrl, svc.adminToken),
  };
}

/**
 * Mocha hooks for a suite over one service (started with `env`): `suite.service` is started before
 * the suite's tests and stopped after them.
 */
export function useService(env: Record<string, string> = {}): { service: Service } {
  const suite = {} as { service: Service };
  before(async () => {
    suite.service = await startService(env);
  });
  after(async () => suite.service?.svc.stop());
  return suite;
}

export class Admin {
  constructor(
    readonly adminUrl: string,
    readonly token: string,
  ) {}

  async call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.adminUrl}/admin/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.token}`,
        'user-agent': 'client-tests',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  }

  async ok(method: string, path: string, body?: unknown): Promise<any> {
    const answer = await this.call(method, path, body);
    if (answer.status !== 200) throw new Error(`${method} ${path} → ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** An open market on a fresh event. */
  async market(title = 'Harbour City to win'): Promise<string> {
    const { event } = await this.ok('POST', '/events', {
      title: `${title} event`,
      start: new Date(Date.now() + 24 * 3_600_000).toISOString(),
      sport: 'soccer',
      competition: 'LEAGUE',
      participants: ['Harbour City', 'River Town'],
    });
    const { market } = await this.ok('POST', '/markets', { event_id: event.event_id, title, status: 'open' });
    return market.market_id as string;
  }

  /** An active member without fees, with cash and a read-write API key. */
  async member(
    options: { deposit?: string; email?: string; password?: string } = {},
  ): Promise<{ accountId: string; userId: string; keyId: string; privateKey: string }> {
    const { account } = await this.ok('POST', '/accounts', {
      first_name: 'Ada',
      fee_schedule: 'fixed_percent',
      base_fee_percent: 0,
      ...(options.email ? { email: options.email, password: options.password } : {}),
    });
    await this.ok('POST', `/accounts/${account.account_id}/deposits`, { amount: options.deposit ?? '1000.00' });
    const { api_key } = await this.ok('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_write' });
    return {
      accountId: account.account_id,
      userId: account.user_id,
      keyId: api_key.key_id,
      privateKey: api_key.private_key,
    };
  }
}

const OAUTH_REDIRECT = 'http://127.0.0.1:9/callback';
const LOGIN_ATTEMPTS_MAX = 5;

/**
 * A member's OAuth tokens for a fresh public (native) app: the code flow with PKCE driven through
 * the login and consent pages by a form browser, then the code exchanged at /oauth/token.
 */
export async function oauthMemberTokens(
  service: Service,
  admin: Admin,
  scopes: string[],
): Promise<{ clientId: string; tokens: OAuthTokens; accountId: string; userId: string }> {
  const email = `oauth-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = 'correct horse battery';
  const member = await admin.member({ email, password });
  const { client } = await admin.ok('POST', '/oauth/clients', {
    name: 'Client tests',
    app_type: 'native',
    redirect_uris: [OAUTH_REDIRECT],
    scopes,
  });
  const verifier = 'v'.repeat(64);
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: OAUTH_REDIRECT,
    scope: scopes.join(' '),
    state: 'state-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  const browser = new FormBrowser(service.baseUrl);
  let page = await browser.visit(`/oauth/authorize?${query}`);
  // the login page finds a new member through a read model: an instant after the account was
  // created it may not know the email yet ("Email or password is incorrect"), so try again
  for (let attempt = 0; attempt < LOGIN_ATTEMPTS_MAX && page.html.includes('<title>Log in</title>'); attempt += 1) {
    if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 200));
    page = await logInThrough(browser, { email, password });
  }
  if (page.html.includes('Allow')) page = await browser.consent('allow');
  const code = new URL(page.location!).searchParams.get('code')!;
  const response = await fetch(`${service.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'client-tests' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: OAUTH_REDIRECT,
      client_id: client.client_id,
      code_verifier: verifier,
    }),
  });
  const body = (await response.json()) as { access_token: string; refresh_token: string };
  return {
    clientId: client.client_id,
    tokens: { accessToken: body.access_token, refreshToken: body.refresh_token },
    accountId: member.accountId,
    userId: member.userId,
  };
}

export type HttpFault = 'lose-answer-503' | 'refuse-429' | 'reset-after-forward' | 'refuse-503';

/**
 * An HTTP proxy to the service. Queued faults apply to the next matching requests:
 * `lose-answer-503` forwards the request (the service acts on it) and answers 503 instead of the
 * service's answer, `reset-after-forward` forwards it and then drops the connection, `refuse-*`
 * answer without forwarding. Every request is counted.
 */
export class FaultProxy {
  readonly seen: { method: string; url: string; idempotencyKey: string | undefined; forwarded: boolean }[] = [];
  private readonly faults: { match: (req: IncomingMessage) => boolean; fault: HttpFault }[] = [];
  private server!: http.Server;
  url = '';

  constructor(private readonly upstream: string) {}

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  inject(fault: HttpFault, match: (req: IncomingMessage) => boolean = () => true): void {
    this.faults.push({ fault, match });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const index = this.faults.findIndex((entry) => entry.match(req));
    const fault = index === -1 ? undefined : this.faults.splice(index, 1)[0]!.fault;
    const forward = fault !== 'refuse-429' && fault !== 'refuse-503';
    this.seen.push({
      method: req.method!,
      url: req.url!,
      idempotencyKey: req.headers['idempotency-key'] as string | undefined,
      forwarded: forward,
    });
    if (!forward) {
      res.writeHead(fault === 'refuse-429' ? 429 : 503, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(
        JSON.stringify({
          error:
            fault === 'refuse-429'
              ? 'Too many requests; retry after Retry-After seconds'
              : 'Service temporarily unavailable; retry shortly',
        }),
      );
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string' && name !== 'host' && name !== 'connection' && name !== 'content-length')
        headers[name] = value;
    const answer = await fetch(`${this.upstream}${req.url}`, {
      method: req.method!,
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = Buffer.from(await answer.arrayBuffer());
    if (fault === 'reset-after-forward') {
      req.socket.destroy();
      return;
    }
    if (fault === 'lose-answer-503') {
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '0' });
      res.end(JSON.stringify({ error: 'Service temporarily unavailable; retry shortly' }));
      return;
    }
    const out: Record<string, string> = {};
    answer.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'transfer-encoding' && name !== 'connection' && name !== 'keep-alive')
        out[name] = value;
    });
    res.writeHead(answer.status, out);
    res.end(body);
  }
}

/**
 * A WebSocket proxy to the feed that passes the handshake headers on unchanged (the signature
 * covers only the path and query, which stay the same) and frames both ways; `dropNext` drops
 * the next service frame that matches.
 */
export class FeedProxy {
  private readonly drops: ((frame: unknown[]) => boolean)[] = [];
  private server!: WebSocketServer;
  dropped = 0;
  url = '';

  constructor(private readonly upstreamWsUrl: string) {}

  async start(): Promise<this> {
    this.server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => this.server.once('listening', () => resolve()));
    this.url = `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/socket`;
    this.server.on('connection', (client, request) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers))
        if (
          typeof value === 'string' &&
          !name.startsWith('sec-websocket') &&
          !['host', 'connection', 'upgrade'].includes(name)
        )
          headers[name] = value;
      const upstream = new WebSocket(`${this.upstreamWsUrl.replace(/\/socket$/, '')}${request.url}`, { headers });
      const pending: RawData[] = [];
      upstream.on('open', () => pending.splice(0).forEach((frame) => upstream.send(frame.toString())));
      client.on('message', (data) =>
        upstream.readyState === WebSocket.OPEN ? upstream.send(data.toString()) : pending.push(data),
      );
      upstream.on('message', (data) => {
        const text = data.toString();
        const index = this.drops.findIndex((match) => match(JSON.parse(text) as unknown[]));
        if (index !== -1) {
          this.drops.splice(index, 1);
          this.dropped += 1;
          return;
        }
        if (client.readyState === WebSocket.OPEN) client.send(text);
      });
      upstream.on('close', () => client.close());
      upstream.on('error', () => client.terminate());
      client.on('close', () => upstream.close());
    });
    return this;
  }

  dropNext(match: (frame: unknown[]) => boolean): void {
    this.drops.push(match);
  }

  async stop(): Promise<void> {
    for (const client of this.server.clients) client.terminate();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
