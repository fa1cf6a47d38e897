// The authorization server's limits and protections (docs/OAUTH.md "Limits and protections"),
// black-box: concurrent requests over real sockets, a strict real client (oauth4webapi) for the
// token endpoint, several loopback source addresses for "another address".

import { expect } from 'chai';
import http from 'node:http';
import * as oauth from 'oauth4webapi';
import type { TestService } from '../support/service.ts';
import {
  adminOk,
  authorizedCode,
  exchangeCode,
  FormBrowser,
  insecure,
  logInThrough,
  newClient,
  newMember,
  refreshTokens,
  REDIRECT,
  memberWithNativeClient,
  useOAuthService,
} from './support.ts';
const hiddenValue = (html: string, name: string): string =>
  new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

/** A form POST from a chosen loopback source address (the service sees it as the peer). */
function postFrom(
  svc: TestService,
  localAddress: string,
  path: string,
  fields: Record<string, string>,
  cookie?: string,
): Promise<{ status: number; location: string | null; cookie: string | null; body: string }> {
  const url = new URL(path, svc.baseUrl);
  const body = new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress,
        agent: false,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'protections',
          ...(cookie ? { cookie } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const set =
            res.headers['set-cookie']?.map((h) => h.split(';')[0]!).find((p) => p.startsWith('svc_browser=')) ?? null;
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location ?? null,
            cookie: set,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A login from `localAddress` with the `form` fetched there, as `email` with `password`. */
function logInFrom(
  svc: TestService,
  localAddress: string,
  form: { cookie: string; csrf: string },
  email: string,
  password: string,
) {
  return postFrom(svc, localAddress, '/oauth/login', { csrf: form.csrf, email, password }, form.cookie);
}

/** A login form (cookie and CSRF token) fetched from `localAddress`. */
async function loginFormFrom(svc: TestService, localAddress: string): Promise<{ cookie: string; csrf: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL('/oauth/login', svc.baseUrl);
    http
      .get(
        {
          host: '127.0.0.1',
          port: url.port,
          path: url.pathname,
          localAddress,
          agent: false,
          headers: { 'user-agent': 'protections' },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const cookie = res.headers['set-cookie']!.map((h) => h.split(';')[0]!).find((p) =>
              p.startsWith('svc_browser='),
            )!;
            resolve({ cookie, csrf: hiddenValue(Buffer.concat(chunks).toString('utf8'), 'csrf') });
          });
        },
      )
      .on('error', reject);
  });
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((acc, s) => ({ ...acc, [s]: (acc[s] ?? 0) + 1 }), {});

describe('OAuth limits and protections', function () {
  this.timeout(120_000);
  const suite = useOAuthService();

  /** authorize → (login) → (consent) in `browser`; the callback's parameters and the verifier. */
  const codeFor = (
    client: oauth.Client,
    member: { email: string; password: string },
    browser: FormBrowser,
    scope = 'profile.read',
  ) => authorizedCode(suite.svc, suite.as, client, member, scope, browser);

  const exchange = (client: oauth.Client, params: URLSearchParams, verifier: string, redirect = REDIRECT) =>
    exchangeCode(suite.as, client, { params, verifier }, { redirect });

  /** The OAuth error a refused call raised (oauth4webapi throws ResponseBodyError). */
  async function refusal(call: () => Promise<unknown>): Promise<{ status: number; error: string }> {
    try {
      await call();
    } catch (err) {
      if (err instanceof oauth.ResponseBodyError) return { status: err.status, error: err.error };
      if (err instanceof oauth.WWWAuthenticateChallengeError)
        return { status: err.status, error: ((await err.response.json()) as { error: string }).error };
      // a status outside RFC 6749's error statuses (503): the client hands back the response
      if (err instanceof oauth.OperationProcessingError && err.cause instanceof Response) {
        return { status: err.cause.status, error: ((await err.cause.json()) as { error: string }).error };
      }
      throw err;
    }
    throw new Error('the call succeeded');
  }

  describe('attempt limits under concurrency', () => {
    it('25 concurrent wrong passwords from one address: at most 5 are judged (401), the rest are refused (429)', async () => {
      const member = await newMember(suite.svc);
      const form = await loginFormFrom(suite.svc, '127.0.0.11');
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => logInFrom(suite.svc, '127.0.0.11', form, member.email, 'wrong password')),
      );
      const counts = tally(answers.map((a) => a.status));
      expect(counts[401] ?? 0, JSON.stringify(counts)).to.be.at.most(5);
      expect(counts[429] ?? 0, JSON.stringify(counts)).to.be.at.least(20);
    });

    it('25 concurrent wrong two-factor codes on one login: at most 5 are judged, the rest are refused (429)', async () => {
      const member = await newMember(suite.svc);
      await adminOk(suite.svc, 'POST', `/accounts/${member.account_id}/totp`);
      const browser = new FormBrowser(suite.svc.baseUrl);
      await browser.visit('/oauth/login');
      const page = await logInThrough(browser, member);
      expect(page.html).to.include('Verify');
      const csrf = hiddenValue(page.html, 'csrf');
      const answers = await Promise.all(
        Array.from({ length: 25 }, () => browser.post('/oauth/login/totp', { csrf, code: '000000' })),
      );
      const counts = tally(answers.map((a) => a.status));
      expect(counts[401] ?? 0, JSON.stringify(counts)).to.be.at.most(5);
      // the rest: 429, which ends the two-factor step, then 303 back to the login page
      expect((counts[429] ?? 0) + (counts[303] ?? 0), JSON.stringify(counts)).to.be.at.least(20);
      expect(counts[429] ?? 0, JSON.stringify(counts)).to.be.at.least(1);
    });

    it('wrong passwords from other addresses do not lock the owner out: the owner logs in from their own address', async () => {
      const member = await newMember(suite.svc);
      for (const address of ['127.0.0.21', '127.0.0.22']) {
        const form = await loginFormFrom(suite.svc, address);
        for (let i = 0; i < 6; i += 1) {
          const answer = await logInFrom(suite.svc, address, form, member.email, 'guess');
          expect(answer.status).to.be.oneOf([401, 429]);
        }
      }
      const owner = await loginFormFrom(suite.svc, '127.0.0.23');
      const answer = await logInFrom(suite.svc, '127.0.0.23', owner, member.email, member.password);
      expect(answer.status, answer.body.slice(0, 300)).to.equal(200);
      expect(answer.body).to.include('signed in');
    });

    it('login limits follow the service clock: past the window (POST /admin/v1/clock) the address may try again', async () => {
      const member = await newMember(suite.svc);
      const form = await loginFormFrom(suite.svc, '127.0.0.31');
      for (let i = 0; i < 5; i += 1) await logInFrom(suite.svc, '127.0.0.31', form, member.email, 'guess');
      expect((await logInFrom(suite.svc, '127.0.0.31', form, member.email, member.password)).status).to.equal(429);
      await adminOk(suite.svc, 'POST', '/clock', { advance_ms: 15 * 60_000 + 1_000 });
      const again = await logInFrom(suite.svc, '127.0.0.31', form, member.email, member.password);
      expect(again.status).to.equal(200);
    });
  });

  describe('grants and single use', () => {
    it('a revoked grant revokes everything under it: a second code of the grant no longer exchanges after a replay', async () => {
      const { member, client } = await memberWithNativeClient(suite.svc, ['profile.read']);
      const browser = new FormBrowser(suite.svc.baseUrl);
      const first = await codeFor(client, member, browser);
      const second = await codeFor(client, member, browser); // silent: the grant covers it
      const tokens = await exchange(client, first.params, first.verifier);
      expect(tokens.access_token).to.match(/^svc_at_/);
      // the replay revokes the grant ...
      expect(await refusal(() => exchange(client, first.params, first.verifier))).to.deep.equal({
        status: 400,
        error: 'invalid_grant',
      });
      // ... and a code issued under it earlier is refused too
      expect(await refusal(() => exchange(client, second.params, second.verifier))).to.deep.equal({
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('a token issued while its grant was being revoked is refused: 401 on /api/v1, invalid_grant on refresh', async () => {
      const { member, client } = await memberWithNativeClient(suite.svc, ['profile.read']);
      const { params, verifier } = await codeFor(client, member, new FormBrowser(suite.svc.baseUrl));
      const tokens = await exchange(client, params, verifier);
      // a revocation racing the exchange: the grant is recorded revoked, the new token rows were not yet revoked
      const { rows } = await suite.svc.ctx.pool.query(
        'SELECT grant_id FROM oauth_tokens WHERE client_id = $1 LIMIT 1',
        [client.client_id],
      );
      await suite.svc.ctx.pool.query('INSERT INTO oauth_revoked_grants (grant_id, revoked_at_us) VALUES ($1, 0)', [
        rows[0].grant_id,
      ]);
      const me = await fetch(`${suite.svc.baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${tokens.access_token}`, 'user-agent': 't' },
      });
      expect(me.status).to.equal(401);
      expect(await refusal(async () => refreshTokens(suite.as, client, tokens.refresh_token!))).to.deep.equal({
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('only success consumes a code: a wrong code_verifier or redirect_uri leaves it usable, and the rightful exchange then works once', async () => {
      const { member, client } = await memberWithNativeClient(
        suite.svc,
        ['profile.read'],
        [REDIRECT, 'http://127.0.0.1:9/other'],
      );
      const { params, verifier } = await codeFor(client, member, new FormBrowser(suite.svc.baseUrl));
      expect(await refusal(() => exchange(client, params, oauth.generateRandomCodeVerifier()))).to.deep.equal({
        status: 400,
        error: 'invalid_grant',
      });
      expect(await refusal(() => exchange(client, params, verifier, 'http://127.0.0.1:9/other'))).to.deep.equal({
        status: 400,
        error: 'invalid_grant',
      });
      const tokens = await exchange(client, params, verifier);
      expect(tokens.access_token).to.match(/^svc_at_/);
      const me = await fetch(`${suite.svc.baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${tokens.access_token}`, 'user-agent': 't' },
      });
      expect(me.status).to.equal(200);
      // a replay is a second successful use
      expect(await refusal(() => exchange(client, params, verifier))).to.deep.equal({
        status: 400,
        error: 'invalid_grant',
      });
    });

    it('ten concurrent exchanges of one code: exactly one succeeds, and the replays revoke the grant', async () => {
      const { member, client } = await memberWithNativeClient(suite.svc, ['profile.read']);
      const { params, verifier } = await codeFor(client, member, new FormBrowser(suite.svc.baseUrl));
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () =>
          exchange(client, params, verifier).then(
            (tokens) => ({ ok: true as const, tokens }),
            async (err: unknown) => ({ ok: false as const, refusal: await refusal(() => Promise.reject(err)) }),
          ),
        ),
      );
      const won = outcomes.filter((o) => o.ok);
      expect(won).to.have.length(1);
      for (const lost of outcomes.filter((o) => !o.ok))
        expect(lost.refusal).to.deep.equal({ status: 400, error: 'invalid_grant' });
      const me = await fetch(`${suite.svc.baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${won[0]!.ok ? won[0]!.tokens.access_token : ''}`, 'user-agent': 't' },
      });
      expect(me.status).to.equal(401);
    });

    it('only success consumes a refresh token: a refresh refused for too much scope leaves it usable (no reuse, no revoked family)', async () => {
      const { member, client } = await memberWithNativeClient(suite.svc, ['profile.read', 'balance.read']);
      const { params, verifier } = await codeFor(client, member, new FormBrowser(suite.svc.baseUrl));
      const tokens = await exchange(client, params, verifier);
      const wider = await refusal(async () =>
        refreshTokens(suite.as, client, tokens.refresh_token!, { scope: 'profile.read balance.read' }),
      );
      expect(wider).to.deep.equal({ status: 400, error: 'invalid_scope' });
      const refreshed = await refreshTokens(suite.as, client, tokens.refresh_token!);
      expect(refreshed.refresh_token).to.match(/^svc_rt_/);
      const me = await fetch(`${suite.svc.baseUrl}/api/v1/me`, {
        headers: { authorization: `Bearer ${tokens.access_token}`, 'user-agent': 't' },
      });
      expect(me.status).to.equal(200);
    });

    it('a token row that cannot be saved consumes nothing: 503, and the retry of the same code or refresh token succeeds', async () => {
      const { member, client } = await memberWithNativeClient(suite.svc, ['profile.read']);
      const { params, verifier } = await codeFor(client, member, new FormBrowser(suite.svc.baseUrl));
      const pool = suite.svc.ctx.pool;
      const breakWrites = () =>
        pool.query(`
        CREATE OR REPLACE FUNCTION oauth_tokens_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$;
        CREATE TRIGGER oauth_tokens_refuse BEFORE INSERT ON oauth_tokens FOR EACH ROW EXECUTE FUNCTION oauth_tokens_refuse();`);
      const mendWrites = () => pool.query('DROP TRIGGER oauth_tokens_refuse ON oauth_tokens');
      await breakWrites();
      try {
        expect(await refusal(() => exchange(client, params, verifier))).to.deep.equal({
          status: 503,
          error: 'temporarily_unavailable',
        });
      } finally {
        await mendWrites();
      }
      const tokens = await exchange(client, params, verifier);
      await breakWrites();
      try {
        const failed = await refusal(async () => refreshTokens(suite.as, client, tokens.refresh_token!));
        expect(failed).to.deep.equal({ status: 503, error: 'temporarily_unavailable' });
      } finally {
        await mendWrites();
      }
      const refreshed = await refreshTokens(suite.as, client, tokens.refresh_token!);
      expect(refreshed.access_token).to.match(/^svc_at_/);
    });
  });

  describe('protocol details', () => {
    it('a client secret of the right length with a multibyte character: 401 invalid_client, never 500', async () => {
      const registered = await newClient(suite.svc, { app_type: 'server', scopes: ['market_data'] });
      const client: oauth.Client = { client_id: registered.client_id };
      const secret = registered.client_secret!;
      const ok = await oauth.processClientCredentialsResponse(
        suite.as,
        client,
        await oauth.clientCredentialsGrantRequest(
          suite.as,
          client,
          oauth.ClientSecretBasic(secret),
          new URLSearchParams(),
          insecure,
        ),
      );
      expect(ok.access_token).to.match(/^svc_at_/);
      const multibyte = `é${secret.slice(1)}`;
      expect(multibyte.length).to.equal(secret.length);
      const refused = await refusal(async () =>
        oauth.processClientCredentialsResponse(
          suite.as,
          client,
          await oauth.clientCredentialsGrantRequest(
            suite.as,
            client,
            oauth.ClientSecretBasic(multibyte),
            new URLSearchParams(),
            insecure,
          ),
        ),
      );
      expect(refused).to.deep.equal({ status: 401, error: 'invalid_client' });
    });

    it('prompt=login: the signed-in member logs in again, then the authorization completes', async () => {
      const { member, client } = await memberWithNativeClient(suite.svc, ['profile.read']);
      const browser = new FormBrowser(suite.svc.baseUrl);
      await codeFor(client, member, browser); // signed in, grant given
      const verifier = oauth.generateRandomCodeVerifier();
      const url = new URL(suite.as.authorization_endpoint!);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        scope: 'profile.read',
        state: 'p',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        prompt: 'login',
      }).toString();
      const page = await browser.visit(url.toString());
      expect(page.html).to.include('Log in');
      const after = await logInThrough(browser, member);
      expect(after.location, after.html.slice(0, 300)).to.be.a('string');
      const params = oauth.validateAuthResponse(suite.as, client, new URL(after.location!), 'p');
      expect((await exchange(client, params, verifier)).access_token).to.match(/^svc_at_/);
    });
  });

  describe('sign-up', () => {
    const signUpFields = (email: string) => ({
      first_name: 'New',
      last_name: 'Member',
      email,
      password: 'long enough password',
    });

    it('five concurrent sign-ups with one email open one account', async () => {
      const email = `race-${Date.now()}@example.com`;
      const browsers = [0, 1, 2, 3, 4].map(() => new FormBrowser(suite.svc.baseUrl));
      await Promise.all(browsers.map((b) => b.visit('/player/register')));
      const answers = await Promise.all(browsers.map((b) => b.submit('/player/register', signUpFields(email))));
      const created = answers.filter((a) => a.html.includes('Your account is created'));
      expect(created, JSON.stringify(answers.map((a) => a.status))).to.have.length(1);
      expect(answers.filter((a) => a.status === 409)).to.have.length(4);
      const accounts = await suite.svc.ctx.pool.query(
        "SELECT count(*)::int AS n FROM core_accounts WHERE lower(doc->>'email') = lower($1)",
        [email],
      );
      expect(accounts.rows[0].n).to.equal(1);
    });

    it('sign-up is limited per address: the sixth within the hour from one address is 429', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i += 1) {
        const form = await loginFormFrom(suite.svc, '127.0.0.41');
        statuses.push(
          (
            await postFrom(
              suite.svc,
              '127.0.0.41',
              '/player/register',
              { csrf: form.csrf, ...signUpFields(`limit-${i}-${Date.now()}@example.com`) },
              form.cookie,
            )
          ).status,
        );
      }
      expect(statuses.slice(0, 5), JSON.stringify(statuses)).to.deep.equal([303, 303, 303, 303, 303]);
      expect(statuses[5]).to.equal(429);
    });
  });

  describe('registration', () => {
    it('the hourly registration limit follows the service clock (POST /admin/v1/clock past the hour reopens it)', async () => {
      const reg = () =>
        fetch(`${suite.svc.baseUrl}/oauth/register`, {
          method: 'POST',
          body: JSON.stringify({ redirect_uris: ['https://app.example/cb'] }),
          headers: { 'content-type': 'application/json' },
        }).then((res) => res.status);
      await adminOk(suite.svc, 'PATCH', '/settings', { dynamic_registration: true, registration_limit_per_hour: 1 });
      try {
        expect(await reg()).to.equal(201);
        expect(await reg()).to.equal(429);
        await adminOk(suite.svc, 'POST', '/clock', { advance_ms: 3_600_000 + 1_000 });
        expect(await reg()).to.equal(201);
      } finally {
        await adminOk(suite.svc, 'PATCH', '/settings', { dynamic_registration: false });
      }
    });
  });
});
