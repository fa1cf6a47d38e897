// Helpers for the OAuth tests: the operator API, and a form-driving browser over fetch (a cookie
// jar, manual redirects) for flows where a real browser adds nothing (the Chromium test drives
// the pages for real).

import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import { createHash, randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';

/** Where the helpers below reach a service: its public and operator listeners and the operator's token. */
export type ServiceAddress = Pick<TestService, 'baseUrl' | 'adminUrl' | 'adminToken'>;

export async function admin(
  svc: ServiceAddress,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${svc.adminUrl}/admin/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${svc.adminToken}`,
      'content-type': 'application/json',
      'user-agent': 'oauth-tests',
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function adminOk(svc: ServiceAddress, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await admin(svc, method, path, body);
  expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
  return answer.body;
}

let members = 0;
/** An active member with a password and some cash. */
export async function newMember(
  svc: TestService,
  password = 'correct horse battery',
): Promise<{ account_id: string; user_id: string; email: string; password: string }> {
  members += 1;
  const email = `member${members}-${Date.now()}@example.com`;
  const { account } = await adminOk(svc, 'POST', '/accounts', {
    first_name: 'Ada',
    last_name: 'Member',
    email,
    password,
    status: 'active',
  });
  await adminOk(svc, 'POST', `/accounts/${account.account_id}/deposits`, { amount: '100.00' });
  // the login page finds members by email in the read models, which may trail an account just created
  await svc.ctx.projections.waitFor(await svc.ctx.store.headPosition(), 10_000);
  return { account_id: account.account_id, user_id: account.user_id, email, password };
}

export interface ClientSpec {
  name?: string;
  app_type: 'web' | 'server' | 'browser' | 'native';
  redirect_uris?: string[];
  scopes: string[];
  ip_allowlist?: string[];
}

export async function newClient(
  svc: ServiceAddress,
  spec: ClientSpec,
): Promise<{ client_id: string; client_secret?: string }> {
  const { client } = await adminOk(svc, 'POST', '/oauth/clients', { name: spec.name ?? 'Test app', ...spec });
  return client;
}

/** A new member, and a native client (public, PKCE) registered for `scopes` and `redirectUris`. */
export async function memberWithNativeClient(
  svc: TestService,
  scopes: string[],
  redirectUris = [REDIRECT],
): Promise<{ member: Awaited<ReturnType<typeof newMember>>; client: { client_id: string } }> {
  const member = await newMember(svc);
  const registered = await newClient(svc, { app_type: 'native', redirect_uris: redirectUris, scopes });
  return { member, client: { client_id: registered.client_id } };
}

const hiddenValue = (html: string, name: string): string | undefined =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];

/** A browser without JavaScript: cookies and forms. */
export class FormBrowser {
  private cookie: string | null = null;
  lastHtml = '';

  constructor(private readonly base: string) {}

  async get(pathOrUrl: string): Promise<Response> {
    const res = await fetch(new URL(pathOrUrl, this.base), { redirect: 'manual', headers: this.headers() });
    this.keepCookie(res);
    return res;
  }

  async post(path: string, fields: Record<string, string>): Promise<Response> {
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams(fields),
      headers: { ...this.headers(), 'content-type': 'application/x-www-form-urlencoded' },
    });
    this.keepCookie(res);
    return res;
  }

  /** Follows same-site redirects from `pathOrUrl`; stops at a page or at a redirect off the service. */
  async visit(pathOrUrl: string): Promise<{ status: number; location: string | null; html: string }> {
    if (!this.onService(pathOrUrl)) return { status: 303, location: pathOrUrl, html: '' };
    let res = await this.get(pathOrUrl);
    for (let hops = 0; hops < 10; hops += 1) {
      const location = res.headers.get('location');
      if (res.status < 300 || res.status >= 400 || location === null) break;
      if (!this.onService(location)) return { status: res.status, location, html: '' };
      res = await this.get(location);
    }
    this.lastHtml = await res.text();
    return { status: res.status, location: res.headers.get('location'), html: this.lastHtml };
  }

  /** Submits a form of the last page and follows same-site redirects. */
  async submit(
    path: string,
    fields: Record<string, string>,
  ): Promise<{ status: number; location: string | null; html: string }> {
    const csrf = hiddenValue(this.lastHtml, 'csrf') ?? '';
    const res = await this.post(path, { csrf, ...fields });
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location !== null) return this.visit(location);
    this.lastHtml = await res.text();
    return { status: res.status, location, html: this.lastHtml };
  }

  /** Consent: Allow or Deny on the consent page last shown. */
  consent(decision: 'allow' | 'deny') {
    return this.submit('/oauth/consent', { request: hiddenValue(this.lastHtml, 'request') ?? '', decision });
  }

  private onService(location: string): boolean {
    return location.startsWith('/') || new URL(location).origin === new URL(this.base).origin;
  }

  private headers(): Record<string, string> {
    return { 'user-agent': 'form-browser', ...(this.cookie ? { cookie: this.cookie } : {}) };
  }

  private keepCookie(res: Response): void {
    const set = res.headers.getSetCookie();
    for (const header of set) {
      const pair = header.split(';')[0];
      if (pair?.startsWith('svc_browser=')) this.cookie = pair;
    }
  }
}

/** Signs the browser in through the login page (and the two-factor page when `totp` is given). */
export async function logInThrough(
  browser: FormBrowser,
  member: { email: string; password: string },
  totp?: () => string,
) {
  let page = await browser.submit('/oauth/login', { email: member.email, password: member.password });
  if (totp) page = await browser.submit('/oauth/login/totp', { code: totp() });
  return page;
}

export const insecure = { [oauth.allowInsecureRequests]: true } as const;
export const REDIRECT = 'http://127.0.0.1:9/callback';

/** The service's authorization server metadata, as a strict client discovers it. */
export async function discover(svc: TestService): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(svc.baseUrl);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
}

/** Runs authorize → login → consent (Allow) in a form browser; returns the callback URL. */
export async function authorizeInBrowser(
  svc: TestService,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  member: { email: string; password: string },
  scope: string,
  extra: Record<string, string> = {},
  browser = new FormBrowser(svc.baseUrl),
) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...extra,
  }).toString();
  let page = await browser.visit(url.toString());
  if (page.html.includes('Log in')) page = await logInThrough(browser, member);
  if (page.html.includes('Allow')) page = await browser.consent('allow');
  expect(page.location, page.html).to.be.a('string');
  return { callback: new URL(page.location!), verifier, state, browser, url };
}

/**
 * Authorize in a form browser, as `authorizeInBrowser`; the callback's parameters as a strict
 * client validates them, and the verifier that goes with the code.
 */
export async function authorizedCode(
  svc: TestService,
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  member: { email: string; password: string },
  scope: string,
  browser?: FormBrowser,
): Promise<{ params: URLSearchParams; verifier: string }> {
  const { callback, state, verifier } = await authorizeInBrowser(svc, as, client, member, scope, {}, browser);
  return { params: oauth.validateAuthResponse(as, client, callback, state), verifier };
}

/** Exchanges a validated code at the token endpoint as oauth4webapi does: client auth none unless `auth` is given. */
export async function exchangeCode(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  code: { params: URLSearchParams; verifier: string },
  options: { auth?: oauth.ClientAuth; redirect?: string } = {},
): Promise<oauth.TokenEndpointResponse> {
  const { auth = oauth.None(), redirect = REDIRECT } = options;
  return oauth.processAuthorizationCodeResponse(
    as,
    client,
    await oauth.authorizationCodeGrantRequest(as, client, auth, code.params, redirect, code.verifier, insecure),
  );
}

/** Refreshes at the token endpoint as oauth4webapi does (client auth none), with any `additionalParameters`. */
export async function refreshTokens(
  as: oauth.AuthorizationServer,
  client: oauth.Client,
  refreshToken: string,
  additionalParameters?: Record<string, string>,
): Promise<oauth.TokenEndpointResponse> {
  return oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.None(),
      refreshToken,
      additionalParameters ? { ...insecure, additionalParameters } : insecure,
    ),
  );
}

/**
 * A member's access token through the authorization code flow (a fresh native client allowed
 * `scope`); `exchange` presents the same code again (a replay revokes the grant).
 */
export async function memberAccessToken(
  svc: ServiceAddress,
  member: { email: string; password: string },
  scope: string,
  redirectUri = 'http://127.0.0.1:9/callback',
): Promise<{ token: string; clientId: string; exchange(): Promise<Response> }> {
  const client = await newClient(svc, { app_type: 'native', redirect_uris: [redirectUri], scopes: scope.split(' ') });
  const verifier = randomBytes(32).toString('base64url');
  const browser = new FormBrowser(svc.baseUrl);
  await browser.visit(
    `/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope,
      state: 's',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString()}`,
  );
  const login = await logInThrough(browser, member);
  const consent = await browser.consent('allow');
  if (consent.location === null) {
    throw new Error(
      `consent did not redirect: login ${login.status}, consent ${consent.status}: ${consent.html
        .replace(/<[^>]*>/g, ' ')
        .replace(/\s+/g, ' ')
        .slice(0, 300)}`,
    );
  }
  const code = new URL(consent.location).searchParams.get('code')!;
  const fields = {
    grant_type: 'authorization_code',
    client_id: client.client_id,
    code,
    redirect_uri: redirectUri,
    code_verifier: verifier,
  };
  const exchange = () =>
    fetch(`${svc.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'oauth-tests' },
      body: new URLSearchParams(fields),
    });
  const answer = (await (await exchange()).json()) as { access_token: string };
  return { token: answer.access_token, clientId: client.client_id, exchange };
}

/** What `useOAuthService` hands a suite: the service and its authorization server as discovered; set once `before` has run. */
export interface OAuthSuite {
  svc: TestService;
  as: oauth.AuthorizationServer;
}

/** Mocha hooks: a service started and its OAuth metadata discovered before the suite's tests, stopped after them. */
export function useOAuthService(): OAuthSuite {
  const suite = {} as OAuthSuite;
  before(async () => {
    suite.svc = await startTestService();
    suite.as = await discover(suite.svc);
  });
  after(async () => suite.svc?.stop());
  return suite;
}
