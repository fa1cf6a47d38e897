// Authentication (docs/TRADING.md "Credentials") and its 401/403 answers, over HTTP: signed API keys,
// bearer session tokens, the User-Agent requirement, key scopes and account status.

import { expect } from 'chai';
import { CredentialIndex } from '../../../commands/credentials/index.ts';
import { hashToken } from '../../../commands/credentials/sessions.ts';
import { limitBuyOfOne, signedHeaders, useWholeService } from '../v1/harness.ts';

const API_KEY_ERROR = 'Missing or invalid API key credentials';
const BALANCE = '/api/v1/account/balance';

describe('authentication (/api/v1)', () => {
  const suite = useWholeService();

  const order = () => limitBuyOfOne(suite.marketId, '0.10');
  const expectError = (answer: { status: number; body: unknown }, status: number, error?: string) => {
    expect(answer.status, JSON.stringify(answer.body)).to.equal(status);
    if (error !== undefined) expect(answer.body).to.deep.include({ error });
    suite.openapi.check('GET', BALANCE, status === 401 || status === 403 ? status : 200, answer.body);
  };

  describe('signed API key', () => {
    it('a correctly signed request is answered', async () => {
      const answer = await suite.alice.call('GET', BALANCE);
      expect(answer.status).to.equal(200);
      expect(answer.body.balance.account_id).to.equal(suite.alice.account_id);
      suite.openapi.check('GET', BALANCE, 200, answer.body);
    });

    it('the signed path includes the query string', async () => {
      const path = '/api/v1/orders?limit=5&status=open';
      expect((await suite.alice.call('GET', path)).status).to.equal(200);
      const headers = signedHeaders(suite.alice.key, 'GET', '/api/v1/orders', suite.svc.ctx.clock.nowUs() / 1000);
      expectError(await suite.svc.call('GET', path, { headers }), 401, API_KEY_ERROR);
    });

    it('a signature over another method or path is refused', async () => {
      const now = suite.svc.ctx.clock.nowUs() / 1000;
      expectError(
        await suite.svc.call('GET', BALANCE, { headers: signedHeaders(suite.alice.key, 'POST', BALANCE, now) }),
        401,
        API_KEY_ERROR,
      );
      expectError(
        await suite.svc.call('GET', BALANCE, { headers: signedHeaders(suite.alice.key, 'GET', '/api/v1/orders', now) }),
        401,
        API_KEY_ERROR,
      );
    });

    it("a tampered signature, an unknown key id or another key's signature is refused", async () => {
      const headers = signedHeaders(suite.alice.key, 'GET', BALANCE, suite.svc.ctx.clock.nowUs() / 1000);
      const signature = Buffer.from(headers['X-SVC-ACCESS-SIGNATURE'] as string, 'base64');
      signature[5] = (signature[5] as number) ^ 1;
      expectError(
        await suite.svc.call('GET', BALANCE, {
          headers: { ...headers, 'X-SVC-ACCESS-SIGNATURE': signature.toString('base64') },
        }),
        401,
        API_KEY_ERROR,
      );
      expectError(
        await suite.svc.call('GET', BALANCE, {
          headers: { ...headers, 'X-SVC-ACCESS-KEY': '00000000-0000-4000-8000-000000000000' },
        }),
        401,
        API_KEY_ERROR,
      );
      const other = signedHeaders(suite.alice.readOnlyKey, 'GET', BALANCE, suite.svc.ctx.clock.nowUs() / 1000);
      expectError(
        await suite.svc.call('GET', BALANCE, {
          headers: { ...headers, 'X-SVC-ACCESS-SIGNATURE': other['X-SVC-ACCESS-SIGNATURE'] as string },
        }),
        401,
        API_KEY_ERROR,
      );
    });

    it('any one signing header alone, or two of three, brings the API-key rules (401)', async () => {
      const headers = signedHeaders(suite.alice.key, 'GET', BALANCE, suite.svc.ctx.clock.nowUs() / 1000);
      for (const name of Object.keys(headers)) {
        expectError(
          await suite.svc.call('GET', BALANCE, { headers: { [name]: headers[name] as string } }),
          401,
          API_KEY_ERROR,
        );
        const rest = { ...headers };
        delete rest[name];
        expectError(await suite.svc.call('GET', BALANCE, { headers: rest }), 401, API_KEY_ERROR);
      }
    });

    it('the timestamp must fall inside the 30-second window of the service clock', async () => {
      expect((await suite.alice.call('GET', BALANCE, { skewMs: 25_000 })).status).to.equal(200);
      expect((await suite.alice.call('GET', BALANCE, { skewMs: -25_000 })).status).to.equal(200);
      expectError(await suite.alice.call('GET', BALANCE, { skewMs: 31_000 }), 401, API_KEY_ERROR);
      expectError(await suite.alice.call('GET', BALANCE, { skewMs: -31_000 }), 401, API_KEY_ERROR);
      const seconds = suite.svc.call('GET', BALANCE, {
        headers: signedHeaders(suite.alice.key, 'GET', BALANCE, suite.svc.ctx.clock.nowUs() / 1_000_000),
      });
      expectError(await seconds, 401, API_KEY_ERROR);
    });

    it('the window follows the service clock when an operator moves it', async () => {
      const realNow = Date.now();
      await suite.svc.admin('POST', '/clock', { advance_ms: 3_600_000 });
      try {
        expectError(
          await suite.svc.call('GET', BALANCE, { headers: signedHeaders(suite.alice.key, 'GET', BALANCE, realNow) }),
          401,
          API_KEY_ERROR,
        );
        expect((await suite.alice.call('GET', BALANCE)).status).to.equal(200);
      } finally {
        await suite.svc.admin('POST', '/clock', { advance_ms: -3_600_000 });
      }
    });

    it('unprefixed SVC-ACCESS-* headers are not recognised: 401 as with no credential', async () => {
      const headers = signedHeaders(suite.alice.key, 'GET', BALANCE, suite.svc.ctx.clock.nowUs() / 1000);
      const unprefixed = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.replace(/^X-/, ''), v]));
      expectError(await suite.svc.call('GET', BALANCE, { headers: unprefixed }), 401, 'Unauthorized');
    });

    it('a revoked key stops working at once', async () => {
      const bob = await suite.svc.member();
      expect((await bob.call('GET', BALANCE)).status).to.equal(200);
      const revoked = await suite.svc.admin('DELETE', `/api_keys/${bob.key.key_id}`);
      expect(revoked.api_key.key_id).to.equal(bob.key.key_id);
      expectError(await bob.call('GET', BALANCE), 401, API_KEY_ERROR);
      expect((await bob.call('GET', BALANCE, { key: bob.readOnlyKey })).status).to.equal(200);
    });

    it('the credential index is rebuilt from the read model at start (keys, revocations, sessions)', async () => {
      const dave = await suite.svc.member();
      await suite.svc.admin('DELETE', `/api_keys/${dave.readOnlyKey.key_id}`);
      const restarted = new CredentialIndex({ ...suite.svc.ctx }); // a fresh process's index over the same database
      await restarted.ready();
      expect(restarted.keyCached(dave.key.key_id)?.revoked_at_us).to.equal(null);
      expect(restarted.keyCached(dave.readOnlyKey.key_id)?.revoked_at_us).to.be.a('number');
      expect(await restarted.sessionByHash(hashToken(dave.session))).to.include({ account_id: dave.account_id });
      expect(await restarted.key('00000000-0000-4000-8000-000000000000')).to.equal(undefined);
    });

    it("a registered public key works with the client's own private key; small-order keys are refused", async () => {
      const { ed25519 } = await import('@noble/curves/ed25519.js');
      const { secretKey, publicKey } = ed25519.keygen();
      const registered = await suite.svc.admin('POST', `/accounts/${suite.alice.account_id}/api_keys`, {
        scope: 'read_only',
        public_key: Buffer.from(publicKey).toString('base64'),
      });
      expect(registered.api_key).to.not.have.property('private_key');
      const key = { ...registered.api_key, private_key: Buffer.from(secretKey).toString('base64') };
      expect((await suite.svc.call('GET', BALANCE, { key })).status).to.equal(200);
      const identity = Buffer.alloc(32);
      identity[0] = 1;
      const refused = await suite.svc.adminRaw('POST', `/accounts/${suite.alice.account_id}/api_keys`, {
        scope: 'read_only',
        public_key: identity.toString('base64'),
      });
      expect(refused.status).to.equal(400);
    });
  });

  describe('bearer session token', () => {
    it('is accepted in the Authorization header', async () => {
      const answer = await suite.svc.call('GET', BALANCE, { bearer: suite.alice.session });
      expect(answer.status).to.equal(200);
      expect(answer.body.balance.account_id).to.equal(suite.alice.account_id);
    });

    it('is never taken from the query string or the body', async () => {
      expectError(await suite.svc.call('GET', `${BALANCE}?access_token=${suite.alice.session}`), 401, 'Unauthorized');
      expectError(
        await suite.svc.call('POST', '/api/v1/orders', { body: { ...order(), access_token: suite.alice.session } }),
        401,
        'Unauthorized',
      );
    });

    it('no credential, an unknown token, another scheme or the admin token is 401 Unauthorized', async () => {
      expectError(await suite.svc.call('GET', BALANCE), 401, 'Unauthorized');
      expectError(await suite.svc.call('GET', BALANCE, { bearer: 'svc_st_nope' }), 401, 'Unauthorized');
      expectError(
        await suite.svc.call('GET', BALANCE, {
          headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` },
        }),
        401,
        'Unauthorized',
      );
      expectError(
        await suite.svc.call('GET', BALANCE, { bearer: suite.svc.ctx.config.adminToken as string }),
        401,
        'Unauthorized',
      );
    });

    it('an expired session is 401', async () => {
      const { session } = await suite.svc.admin('POST', `/accounts/${suite.alice.account_id}/sessions`, {
        expires_in: 60,
      });
      expect((await suite.svc.call('GET', BALANCE, { bearer: session.token })).status).to.equal(200);
      await suite.svc.admin('POST', '/clock', { advance_ms: 61_000 });
      try {
        expectError(await suite.svc.call('GET', BALANCE, { bearer: session.token }), 401, 'Unauthorized');
      } finally {
        await suite.svc.admin('POST', '/clock', { advance_ms: -61_000 });
      }
    });

    it('signing headers take precedence: a bad signature with a good bearer token is the API-key 401', async () => {
      const headers = { 'X-SVC-ACCESS-KEY': suite.alice.key.key_id };
      expectError(await suite.svc.call('GET', BALANCE, { bearer: suite.alice.session, headers }), 401, API_KEY_ERROR);
    });

    it('a session may place orders', async () => {
      const answer = await suite.svc.call('POST', '/api/v1/orders', { bearer: suite.alice.session, body: order() });
      expect(answer.status, answer.text).to.equal(200);
    });
  });

  describe('403s', () => {
    it('a request without User-Agent is refused before anything else', async () => {
      const answer = await suite.alice.call('GET', BALANCE, { userAgent: null });
      expectError(answer, 403, 'User-Agent header is required');
      expectError(await suite.svc.call('GET', BALANCE, { userAgent: null }), 403, 'User-Agent header is required');
    });

    it('a read_only key reads but may not place or cancel', async () => {
      const ro = { key: suite.alice.readOnlyKey };
      expect((await suite.alice.call('GET', '/api/v1/orders', ro)).status).to.equal(200);
      for (const [method, path, body] of [
        ['POST', '/api/v1/orders', order()],
        ['POST', '/api/v1/orders/batched', { orders: [order()] }],
        ['DELETE', '/api/v1/orders/batched', { orders: [{ order_id: '00000000-0000-4000-8000-000000000000' }] }],
      ] as const) {
        const answer = await suite.alice.call(method, path, { ...ro, body });
        expect(answer.status, `${method} ${path}`).to.equal(403);
        expect(answer.body.error).to.match(/read-only|read_write/);
        suite.openapi.check(method, path, 403, answer.body);
      }
    });

    it('an account that is not active gets 403 naming its status, on every credential', async () => {
      const carol = await suite.svc.member();
      await suite.svc.admin('PATCH', `/accounts/${carol.account_id}`, { status: 'suspended' });
      expectError(await carol.call('GET', BALANCE), 403, 'Account is suspended');
      expectError(await suite.svc.call('GET', BALANCE, { bearer: carol.session }), 403, 'Account is suspended');
      const placed = await carol.call('POST', '/api/v1/orders', { body: order() });
      expect(placed.status).to.equal(403);
      await suite.svc.admin('PATCH', `/accounts/${carol.account_id}`, { status: 'pending' });
      expectError(await carol.call('GET', BALANCE), 403, 'Account is pending approval');
      await suite.svc.admin('PATCH', `/accounts/${carol.account_id}`, { status: 'active' });
      expect((await carol.call('GET', BALANCE)).status).to.equal(200);
    });
  });

  describe('paths', () => {
    it('unknown paths and GET /trades are 404 (with credentials)', async () => {
      for (const path of ['/api/v1/trades', '/api/v1/nope', '/api/v1/orders/batched', '/api/v1/account']) {
        const answer = await suite.alice.call('GET', path);
        expect(answer.status, path).to.equal(404);
        expect(answer.body.error).to.be.a('string');
      }
    });

    it('every /api/v1 route needs credentials; the OpenAPI document alone is public documentation', async () => {
      for (const path of ['/api/v1/markets', '/api/v1/trades', '/api/v1/orders', '/api/v1/me']) {
        expect((await suite.svc.call('GET', path)).status, path).to.equal(401);
      }
      expect((await suite.svc.call('GET', '/api/v1/openapi.json')).status).to.equal(200);
    });
  });
});
