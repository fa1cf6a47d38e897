// Two services on one database, as two nodes: every copy a node keeps in memory follows a write
// made through the other (settings, API keys issued and revoked, OAuth clients and their secret
// key, OAuth token revocations), and a browser whose requests alternate between the two nodes
// completes the authorization-code flow.

import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestService, type TestService } from '../support/service.ts';
import { signedHeaders } from '../api/v1/harness.ts';
import { adminOk, FormBrowser, newClient, newMember, REDIRECT } from '../oauth/support.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `read` until `done` holds (bounded: the write reaches the other node within the projection lag). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`);
    await sleep(50);
  }
}

/** A browser behind a load balancer without stickiness: each request goes to the next node. */
class AlternatingBrowser extends FormBrowser {
  private turn = 0;
  constructor(private readonly bases: string[]) {
    super(bases[0]!);
  }
  private next(pathOrUrl: string): string {
    const url = new URL(pathOrUrl, this.bases[0]);
    const base = new URL(this.bases[this.turn++ % this.bases.length]!);
    url.protocol = base.protocol;
    url.host = base.host;
    return url.toString();
  }
  override get(pathOrUrl: string): Promise<Response> {
    return super.get(this.next(pathOrUrl));
  }
  override post(path: string, fields: Record<string, string>): Promise<Response> {
    return super.post(this.next(path), fields);
  }
}

describe('two nodes on one database: what each keeps in memory follows the other', function () {
  this.timeout(120_000);
  let a: TestService;
  let b: TestService;

  before(async () => {
    a = await startTestService();
    b = await startTestService({ env: { DATABASE_URL: a.ctx.config.databaseUrl! } });
  });
  after(async () => {
    await b?.stop();
    await a?.stop();
  });

  const tokenAt = (node: TestService, clientId: string, secret: string) =>
    fetch(`${node.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
  const bearerGet = (node: TestService, token: string, path: string) =>
    fetch(`${node.baseUrl}/api/v1${path}`, {
      headers: { authorization: `Bearer ${token}`, 'user-agent': 'nodes-tests' },
    });

  it('settings changed through one node are the other node’s settings', async () => {
    const before = b.ctx.settings.get().batch_limit;
    await adminOk(a, 'PATCH', '/settings', { batch_limit: before + 7 });
    await eventually(
      async () => (await adminOk(b, 'GET', '/settings')).settings.batch_limit as number,
      (limit) => limit === before + 7,
      'batch_limit on the other node',
    );
  });

  it('an API key issued through one node signs at once on the other; revoked through the first, it stops working there', async () => {
    const member = await newMember(a);
    const { api_key: key } = await adminOk(a, 'POST', `/accounts/${member.account_id}/api_keys`, {
      scope: 'read_only',
    });
    const me = () =>
      fetch(`${b.baseUrl}/api/v1/me`, {
        headers: { ...signedHeaders(key, 'GET', '/api/v1/me', Date.now()), 'user-agent': 'nodes-tests' },
      });
    expect((await me()).status).to.equal(200);
    await adminOk(a, 'DELETE', `/api_keys/${key.key_id}`);
    await eventually(
      async () => (await me()).status,
      (status) => status === 401,
      'the revoked key on the other node',
    );
  });

  it('an OAuth client registered through one node authenticates at the other; a token revoked through the first is refused at the other; a client suspended through the first is refused at the other', async () => {
    const client = await newClient(a, { app_type: 'server', scopes: ['market_data'] });
    const issued = await tokenAt(b, client.client_id, client.client_secret!);
    expect(issued.status, await issued.clone().text()).to.equal(200);
    const { access_token: token } = (await issued.json()) as { access_token: string };
    expect((await bearerGet(b, token, '/markets?limit=1')).status).to.equal(200); // cached at b now
    const revoked = await fetch(`${a.baseUrl}/oauth/revoke`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token }).toString(),
    });
    expect(revoked.status).to.equal(200);
    await eventually(
      async () => (await bearerGet(b, token, '/markets?limit=1')).status,
      (status) => status === 401,
      'the revoked token on the other node',
    );
    await adminOk(a, 'PATCH', `/oauth/clients/${client.client_id}`, { status: 'suspended' });
    await eventually(
      async () => (await tokenAt(b, client.client_id, client.client_secret!)).status,
      (status) => status === 401,
      'the suspended client on the other node',
    );
  });

  it('a browser whose requests alternate between the nodes completes the authorization-code flow', async () => {
    const member = await newMember(a);
    const client = await newClient(a, { app_type: 'web', redirect_uris: [REDIRECT], scopes: ['profile.read'] });
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const browser = new AlternatingBrowser([a.baseUrl, b.baseUrl]);
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      scope: 'profile.read',
      state: 'alternating',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    let page = await browser.visit(`/oauth/authorize?${query.toString()}`);
    expect(page.html).to.include('Log in');
    page = await browser.submit('/oauth/login', { email: member.email, password: member.password });
    expect(page.html, page.html).to.include('Allow');
    page = await browser.consent('allow');
    expect(page.location, page.html).to.be.a('string');
    const callback = new URL(page.location!);
    expect(callback.searchParams.get('state')).to.equal('alternating');
    const code = callback.searchParams.get('code')!;
    const exchanged = await fetch(`${b.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }).toString(),
    });
    expect(exchanged.status, await exchanged.clone().text()).to.equal(200);
    const { access_token: token } = (await exchanged.json()) as { access_token: string };
    const me = await bearerGet(a, token, '/me');
    expect(me.status).to.equal(200);
    const body = (await me.json()) as { user_id?: string; me?: { user_id?: string } };
    expect(body.user_id ?? body.me?.user_id).to.equal(member.user_id);
  });
});
