// Every authorize, token and registration error answer (docs/OAUTH.md), and the attacks: code
// replay, refresh reuse, PKCE downgrade or mismatch, redirect_uri mismatch at token time, another
// client's code, a secret in the form body, an open redirect through an unregistered redirect_uri,
// and an IP allowlist bypass through X-Forwarded-For. Also fuzzed form bodies: never a 500.

import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { admin, adminOk, FormBrowser, logInThrough, newClient, newMember } from './support.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';
const b64url = (buf: Buffer) => buf.toString('base64url');

function pkce() {
  const verifier = b64url(randomBytes(32));
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) };
}

describe('OAuth error tables and attacks', function () {
  this.timeout(60_000);
  let svc: TestService;
  let member: Awaited<ReturnType<typeof newMember>>;
  let pub: { client_id: string };
  let web: { client_id: string; client_secret?: string };

  before(async () => {
    svc = await startTestService();
    member = await newMember(svc);
    pub = await newClient(svc, {
      app_type: 'native',
      redirect_uris: [REDIRECT],
      scopes: ['profile.read', 'orders.read', 'orders.write'],
    });
    web = await newClient(svc, { app_type: 'web', redirect_uris: [REDIRECT], scopes: ['profile.read', 'market_data'] });
  });
  after(async () => svc?.stop());

  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

  async function token(fields: Record<string, string>, headers: Record<string, string> = {}) {
    const res = await fetch(`${svc.baseUrl}/oauth/token`, {
      method: 'POST',
      body: new URLSearchParams(fields),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
    expect(res.headers.get('content-type')).to.match(/^application\/json/);
    return { status: res.status, headers: res.headers, body: await res.json() };
  }

  /** The code exchange for `clientId` (named in the form, no secret) of `code` with `verifier`, to `redirect`. */
  function exchange(clientId: string, code: string, verifier: string, redirect = REDIRECT) {
    return token({
      grant_type: 'authorization_code',
      client_id: clientId,
      code,
      redirect_uri: redirect,
      code_verifier: verifier,
    });
  }

  function authorizeUrl(params: Record<string, string>) {
    return `/oauth/authorize?${new URLSearchParams(params).toString()}`;
  }

  /** A fresh code for `client` (signed-in browser, consent given). */
  async function codeFor(clientId: string, scope = 'profile.read', browser = new FormBrowser(svc.baseUrl)) {
    const { verifier, challenge } = pkce();
    const url = authorizeUrl({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT,
      scope,
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    let page = await browser.visit(url);
    if (page.html.includes('Log in')) page = await logInThrough(browser, member);
    if (page.html.includes('Allow')) page = await browser.consent('allow');
    const location = new URL(page.location!);
    return { code: location.searchParams.get('code')!, verifier, browser };
  }

  describe('authorize', () => {
    const base = () => {
      const { challenge } = pkce();
      return {
        response_type: 'code',
        client_id: pub.client_id,
        redirect_uri: REDIRECT,
        scope: 'profile.read',
        state: 'st',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      };
    };
    const errorOf = async (params: Record<string, string>, browser = new FormBrowser(svc.baseUrl)) => {
      const res = await browser.get(authorizeUrl(params));
      expect(res.status).to.equal(302);
      const location = new URL(res.headers.get('location')!);
      expect(location.origin + location.pathname).to.equal(REDIRECT);
      expect(location.searchParams.get('state')).to.equal('st');
      expect(location.searchParams.get('iss')).to.equal(svc.baseUrl);
      return location.searchParams.get('error');
    };

    it('unknown or suspended client, missing or unregistered redirect_uri: an error page (400), never a redirect', async () => {
      const suspended = await newClient(svc, {
        app_type: 'native',
        redirect_uris: [REDIRECT],
        scopes: ['profile.read'],
      });
      await adminOk(svc, 'PATCH', `/oauth/clients/${suspended.client_id}`, { status: 'suspended' });
      const browser = new FormBrowser(svc.baseUrl);
      for (const params of [
        { ...base(), client_id: '00000000-0000-4000-8000-000000000000' },
        { ...base(), client_id: suspended.client_id },
        { ...base(), redirect_uri: 'https://attacker.example/steal' },
        { ...base(), redirect_uri: `${REDIRECT}/extra` },
        (() => {
          const p: Record<string, string> = base();
          delete p.redirect_uri;
          return p;
        })(),
      ]) {
        const res = await browser.get(authorizeUrl(params));
        expect(res.status).to.equal(400);
        expect(res.headers.get('location')).to.equal(null);
        expect(res.headers.get('content-type')).to.match(/^text\/html/);
        expect(res.headers.get('x-frame-options')).to.equal('DENY');
      }
    });

    it('unsupported_response_type, invalid_request (PKCE missing or plain, scope missing), invalid_scope (unknown, nothing left)', async () => {
      expect(await errorOf({ ...base(), response_type: 'token' })).to.equal('unsupported_response_type');
      const noPkce: Record<string, string> = base();
      delete noPkce.code_challenge;
      expect(await errorOf(noPkce)).to.equal('invalid_request');
      expect(await errorOf({ ...base(), code_challenge_method: 'plain' })).to.equal('invalid_request');
      const noScope: Record<string, string> = base();
      delete noScope.scope;
      expect(await errorOf(noScope)).to.equal('invalid_request');
      expect(await errorOf({ ...base(), scope: 'profile.read launch_missiles' })).to.equal('invalid_scope');
      expect(await errorOf({ ...base(), scope: 'balance.read' })).to.equal('invalid_scope');
      // a write scope counts only for a client with an IP allowlist: nothing left
      expect(await errorOf({ ...base(), scope: 'orders.write' })).to.equal('invalid_scope');
    });

    it('prompt=none: login_required, consent_required, then a silent code once a grant covers the request', async () => {
      expect(await errorOf({ ...base(), prompt: 'none' })).to.equal('login_required');
      const browser = new FormBrowser(svc.baseUrl);
      await browser.visit('/oauth/login');
      await logInThrough(browser, member);
      const fresh = await newClient(svc, {
        app_type: 'native',
        redirect_uris: [REDIRECT],
        scopes: ['profile.read', 'orders.read'],
      });
      expect(await errorOf({ ...base(), client_id: fresh.client_id, prompt: 'none' }, browser)).to.equal(
        'consent_required',
      );
      await codeFor(fresh.client_id, 'profile.read', browser);
      const silent = await browser.get(authorizeUrl({ ...base(), client_id: fresh.client_id, prompt: 'none' }));
      expect(new URL(silent.headers.get('location')!).searchParams.get('code')).to.match(/^svc_code_/);
      // a wider request is not covered: consent again
      expect(
        await errorOf(
          { ...base(), client_id: fresh.client_id, scope: 'profile.read orders.read', prompt: 'none' },
          browser,
        ),
      ).to.equal('consent_required');
    });

    it('Deny: access_denied with state and iss', async () => {
      const browser = new FormBrowser(svc.baseUrl);
      await browser.visit(authorizeUrl(base()));
      await logInThrough(browser, member);
      const denied = await browser.consent('deny');
      const location = new URL(denied.location!);
      expect(location.searchParams.get('error')).to.equal('access_denied');
      expect(location.searchParams.get('state')).to.equal('st');
      expect(location.searchParams.get('iss')).to.equal(svc.baseUrl);
    });
  });

  describe('token', () => {
    it('invalid_request for each missing parameter; unsupported_grant_type; invalid_client with WWW-Authenticate: Basic', async () => {
      expect((await token({ client_id: pub.client_id })).body.error).to.equal('invalid_request');
      for (const missing of ['code', 'redirect_uri', 'code_verifier']) {
        const fields: Record<string, string> = {
          grant_type: 'authorization_code',
          client_id: pub.client_id,
          code: 'svc_code_x',
          redirect_uri: REDIRECT,
          code_verifier: 'v'.repeat(43),
        };
        delete fields[missing];
        const res = await token(fields);
        expect(res.status, missing).to.equal(400);
        expect(res.body.error, missing).to.equal('invalid_request');
      }
      expect((await token({ grant_type: 'refresh_token', client_id: pub.client_id })).body.error).to.equal(
        'invalid_request',
      );
      const unsupported = await token({ grant_type: 'password', client_id: pub.client_id });
      expect(unsupported).to.deep.include({ status: 400 });
      expect(unsupported.body.error).to.equal('unsupported_grant_type');
      for (const headers of [
        {},
        { authorization: basic(web.client_id, 'wrong') },
        { authorization: 'Basic !!!' },
      ] as Record<string, string>[]) {
        const res = await token({ grant_type: 'client_credentials' }, headers);
        expect(res.status).to.equal(401);
        expect(res.body.error).to.equal('invalid_client');
        expect(res.headers.get('www-authenticate')).to.match(/^Basic/);
      }
    });

    it('a secret in the form body is refused; a confidential client is never accepted on PKCE alone', async () => {
      const inBody = await token({
        grant_type: 'client_credentials',
        client_id: web.client_id,
        client_secret: web.client_secret!,
      });
      expect(inBody.status).to.equal(401);
      expect(inBody.body.error).to.equal('invalid_client');
      const { code, verifier } = await codeFor(web.client_id);
      const pkceOnly = await exchange(web.client_id, code, verifier);
      expect(pkceOnly.status).to.equal(401);
      const ok = await token(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: verifier },
        { authorization: basic(web.client_id, web.client_secret!) },
      );
      expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    });

    it('code replay: invalid_grant and the grant with every token from it is revoked', async () => {
      const { code, verifier } = await codeFor(pub.client_id);
      const first = await exchange(pub.client_id, code, verifier);
      expect(first.status).to.equal(200);
      const again = await exchange(pub.client_id, code, verifier);
      expect(again.status).to.equal(400);
      expect(again.body.error).to.equal('invalid_grant');
      const me = await fetch(`${svc.baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${first.body.access_token}`, 'user-agent': 't' },
      });
      expect(me.status).to.equal(401);
      const refresh = await token({
        grant_type: 'refresh_token',
        client_id: pub.client_id,
        refresh_token: first.body.refresh_token,
      });
      expect(refresh.body.error).to.equal('invalid_grant');
      const grants = (await adminOk(svc, 'GET', `/accounts/${member.account_id}/grants`)).grants.filter(
        (g: { client_id: string }) => g.client_id === pub.client_id,
      );
      expect(grants.some((g: { revoked_at: string | null }) => g.revoked_at !== null)).to.equal(true);
    });

    it('refresh reuse: invalid_grant and the whole token family is revoked', async () => {
      const { code, verifier } = await codeFor(pub.client_id);
      const first = (await exchange(pub.client_id, code, verifier)).body;
      const second = await token({
        grant_type: 'refresh_token',
        client_id: pub.client_id,
        refresh_token: first.refresh_token,
      });
      expect(second.status).to.equal(200);
      expect(Object.keys(second.body).sort()).to.deep.equal(Object.keys(first).sort());
      const reused = await token({
        grant_type: 'refresh_token',
        client_id: pub.client_id,
        refresh_token: first.refresh_token,
      });
      expect(reused.status).to.equal(400);
      expect(reused.body.error).to.equal('invalid_grant');
      const rotatedToo = await token({
        grant_type: 'refresh_token',
        client_id: pub.client_id,
        refresh_token: second.body.refresh_token,
      });
      expect(rotatedToo.body.error).to.equal('invalid_grant');
    });

    it('PKCE mismatch, redirect_uri mismatch at token time, another client’s code: invalid_grant', async () => {
      const a = await codeFor(pub.client_id);
      expect((await exchange(pub.client_id, a.code, pkce().verifier)).body.error).to.equal('invalid_grant');
      const b = await codeFor(pub.client_id);
      const mismatch = await exchange(pub.client_id, b.code, b.verifier, 'http://127.0.0.1:9/other');
      expect(mismatch.body.error).to.equal('invalid_grant');
      const other = await newClient(svc, { app_type: 'native', redirect_uris: [REDIRECT], scopes: ['profile.read'] });
      const c = await codeFor(pub.client_id);
      expect((await exchange(other.client_id, c.code, c.verifier)).body.error).to.equal('invalid_grant');
      // the rightful client may still use it
      expect((await exchange(pub.client_id, c.code, c.verifier)).status).to.equal(200);
    });

    it('invalid_scope on client_credentials; ip_not_allowed after client authentication, X-Forwarded-For not believed', async () => {
      const fenced = await newClient(svc, {
        app_type: 'server',
        scopes: ['market_data'],
        ip_allowlist: ['192.0.2.0/24'],
      });
      const auth = { authorization: basic(fenced.client_id, fenced.client_secret!) };
      const refused = await token({ grant_type: 'client_credentials' }, { ...auth, 'x-forwarded-for': '192.0.2.7' });
      expect(refused.status).to.equal(403);
      expect(refused.body.error).to.equal('ip_not_allowed');
      expect(
        (await token({ grant_type: 'client_credentials' }, { authorization: basic(fenced.client_id, 'wrong') })).status,
      ).to.equal(401);
      expect(
        (
          await token(
            { grant_type: 'client_credentials', scope: 'events' },
            { authorization: basic(web.client_id, web.client_secret!) },
          )
        ).body.error,
      ).to.equal('invalid_scope');
    });

    it('client_credentials: the token body, the scopes granted, and every malformed or refused scope', async () => {
      const app = await newClient(svc, { app_type: 'server', scopes: ['market_data', 'events', 'profile.read'] });
      const auth = { authorization: basic(app.client_id, app.client_secret!) };
      const all = await token({ grant_type: 'client_credentials' }, auth);
      expect(all.status).to.equal(200);
      expect(Object.keys(all.body)).to.deep.equal(['access_token', 'token_type', 'expires_in', 'scope']);
      expect(all.body.access_token).to.match(/^svc_at_[A-Za-z0-9_-]{43}$/);
      expect(all.body).to.include({ token_type: 'bearer', expires_in: 3600, scope: 'market_data events' });
      expect(all.headers.get('cache-control')).to.equal('no-store');
      expect(all.headers.get('pragma')).to.equal('no-cache');
      const narrowed = await token({ grant_type: 'client_credentials', scope: ' events  events ' }, auth);
      expect(narrowed.body.scope).to.equal('events');
      const introspected = await fetch(`${svc.baseUrl}/oauth/introspect`, {
        method: 'POST',
        body: new URLSearchParams({ token: narrowed.body.access_token }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
      });
      expect(await introspected.json()).to.include({ active: true, scope: 'events', client_id: app.client_id });
      for (const scope of [
        '',
        '   ',
        'events "x"',
        'events\\x',
        'profile.read',
        'orders.write',
        'market_data nonsense',
      ]) {
        const refused = await token({ grant_type: 'client_credentials', scope }, auth);
        expect(refused.status, scope).to.equal(400);
        expect(refused.body.error, scope).to.equal('invalid_scope');
        expect(refused.body.error_description, scope).to.be.a('string').and.not.equal('');
      }
    });

    it('tokens of a client whose allowlist changes stop working at once (403 ip_not_allowed on /api/v1)', async () => {
      const app = await newClient(svc, { app_type: 'server', scopes: ['market_data'] });
      const issued = await token(
        { grant_type: 'client_credentials' },
        { authorization: basic(app.client_id, app.client_secret!) },
      );
      const get = () =>
        fetch(`${svc.baseUrl}/api/v1/markets`, {
          headers: { authorization: `Bearer ${issued.body.access_token}`, 'user-agent': 't' },
        });
      expect((await get()).status).to.equal(200);
      await adminOk(svc, 'PATCH', `/oauth/clients/${app.client_id}`, { ip_allowlist: ['192.0.2.0/24'] });
      const res = await get();
      expect(res.status).to.equal(403);
      expect((await res.json()).error).to.equal('ip_not_allowed');
    });

    it('oauth_unavailable: 503 temporarily_unavailable with Retry-After, and the code still works afterwards', async () => {
      const { code, verifier } = await codeFor(pub.client_id);
      await adminOk(svc, 'PATCH', '/settings', { oauth_unavailable: true });
      const fields = {
        grant_type: 'authorization_code',
        client_id: pub.client_id,
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      };
      const res = await token(fields);
      expect(res.status).to.equal(503);
      expect(res.body.error).to.equal('temporarily_unavailable');
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      await adminOk(svc, 'PATCH', '/settings', { oauth_unavailable: false });
      expect((await token(fields)).status).to.equal(200);
    });

    it('revoke answers 200 for unknown and other clients’ tokens; introspect answers exactly {active:false}; fuzzed bodies never 500', async () => {
      const auth = { authorization: basic(web.client_id, web.client_secret!) };
      for (const path of ['/oauth/revoke', '/oauth/introspect']) {
        const res = await fetch(`${svc.baseUrl}${path}`, {
          method: 'POST',
          body: 'token=svc_at_nothing',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
        });
        expect(res.status).to.equal(200);
        if (path === '/oauth/introspect') expect(await res.json()).to.deep.equal({ active: false });
        const missing = await fetch(`${svc.baseUrl}${path}`, {
          method: 'POST',
          body: '',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...auth },
        });
        expect(missing.status).to.equal(400);
        expect((await missing.json()).error).to.equal('invalid_request');
      }
      const junk = [
        '%',
        'a=%zz',
        '&&&',
        'grant_type=authorization_code&grant_type=refresh_token',
        'x'.repeat(20000),
        'code=\u0000',
        'grant_type[]=x',
      ];
      for (const path of ['/oauth/token', '/oauth/revoke', '/oauth/introspect', '/oauth/register']) {
        for (const body of junk) {
          for (const type of ['application/x-www-form-urlencoded', 'application/json', 'text/plain']) {
            const res = await fetch(`${svc.baseUrl}${path}`, {
              method: 'POST',
              body,
              headers: { 'content-type': type, ...auth },
            });
            expect(res.status, `${path} ${type} ${body.slice(0, 20)}`).to.be.below(500);
            expect(res.headers.get('content-type'), path).to.match(/^application\/json/);
          }
        }
      }
    });
  });

  describe('registration', () => {
    const reg = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${svc.baseUrl}/oauth/register`, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: { 'content-type': 'application/json', ...headers },
      }).then(async (res) => ({ status: res.status, headers: res.headers, body: await res.json() }));

    it('404 while off; then 201 with client metadata and a secret that never expires; every error row; the hourly limit', async () => {
      expect((await reg({ redirect_uris: ['https://app.example/cb'] })).status).to.equal(404);
      await adminOk(svc, 'PATCH', '/settings', { dynamic_registration: true, registration_limit_per_hour: 6 });
      const ok = await reg({
        client_name: 'Dyn',
        redirect_uris: ['https://app.example/cb'],
        scope: 'profile.read market_data',
      });
      expect(ok.status).to.equal(201);
      expect(ok.body).to.include({
        client_name: 'Dyn',
        client_secret_expires_at: 0,
        token_endpoint_auth_method: 'client_secret_basic',
        scope: 'profile.read market_data',
      });
      expect(ok.body.client_secret).to.be.a('string');
      const publicClient = await reg({
        redirect_uris: ['com.example.app:/cb', 'http://localhost:8765/cb'],
        token_endpoint_auth_method: 'none',
      });
      expect(publicClient.status).to.equal(201);
      expect(publicClient.body).to.not.have.property('client_secret');
      for (const body of [
        {},
        { redirect_uris: [] },
        { redirect_uris: ['http://app.example/cb'] },
        { redirect_uris: ['https://app.example/cb#frag'] },
        { redirect_uris: ['myapp:/cb'] },
      ]) {
        const res = await reg(body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.error, JSON.stringify(body)).to.equal('invalid_redirect_uri');
      }
      const writeScope = await reg({ redirect_uris: ['https://app.example/cb'], scope: 'orders.write' });
      expect(writeScope.status).to.equal(400);
      expect(writeScope.body.error).to.equal('invalid_client_metadata');
      // 2 registered so far; 4 more fit the limit of 6, the next is 429
      for (let i = 0; i < 4; i += 1)
        expect((await reg({ redirect_uris: ['https://app.example/cb'] })).status).to.equal(201);
      const limited = await reg({ redirect_uris: ['https://app.example/cb'] });
      expect(limited.status).to.equal(429);
      expect(limited.body.error).to.equal('rate_limited');
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
      await adminOk(svc, 'PATCH', '/settings', { dynamic_registration: false });
      expect((await admin(svc, 'GET', '/settings')).status).to.equal(200);
    });
  });
});
