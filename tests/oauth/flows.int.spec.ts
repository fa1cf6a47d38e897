// The OAuth flows driven by a strict real client, oauth4webapi, unmodified: discovery, the code
// flow with PKCE (a client without a secret, and one with a secret over client_secret_basic),
// refresh with rotation, revocation, introspection, client_credentials; then the tokens on
// /api/v1 with the 401 and 403 answers.

import { expect } from 'chai';
import * as oauth from 'oauth4webapi';
import type { TestService } from '../support/service.ts';
import {
  admin,
  adminOk,
  authorizedCode,
  authorizeInBrowser,
  exchangeCode,
  insecure,
  newClient,
  newMember,
  refreshTokens,
  REDIRECT,
  memberWithNativeClient,
  useOAuthService,
} from './support.ts';

async function api(svc: TestService, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${svc.baseUrl}/api/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      'user-agent': 'oauth-tests',
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

describe('OAuth flows with oauth4webapi', function () {
  this.timeout(60_000);
  const suite = useOAuthService();

  it('discovery: the metadata a strict client needs', () => {
    expect(suite.as.token_endpoint).to.equal(`${suite.svc.baseUrl}/oauth/token`);
    expect(suite.as.code_challenge_methods_supported).to.deep.equal(['S256']);
  });

  it('code flow with PKCE for a client without a secret; refresh rotates; the token reads /api/v1', async () => {
    const { member, client } = await memberWithNativeClient(suite.svc, ['profile.read', 'balance.read', 'orders.read']);
    const { callback, verifier, state } = await authorizeInBrowser(
      suite.svc,
      suite.as,
      client,
      member,
      'profile.read balance.read',
    );
    expect(callback.searchParams.get('code')).to.match(/^svc_code_/);
    expect(callback.searchParams.get('iss')).to.equal(suite.svc.baseUrl);
    const params = oauth.validateAuthResponse(suite.as, client, callback, state);
    const tokens = await exchangeCode(suite.as, client, { params, verifier });
    expect(tokens.access_token).to.match(/^svc_at_/);
    expect(tokens.refresh_token).to.match(/^svc_rt_/);
    expect(tokens).to.include({ token_type: 'bearer', expires_in: 3600, scope: 'profile.read balance.read' });

    const me = await api(suite.svc, tokens.access_token, 'GET', '/me');
    expect(me.status).to.equal(200);
    expect(me.body.user_id ?? me.body.me?.user_id).to.equal(member.user_id);
    expect((await api(suite.svc, tokens.access_token, 'GET', '/account/balance')).status).to.equal(200);

    // a client without a secret introspects its own tokens with client_id alone
    const introspected = await oauth.processIntrospectionResponse(
      suite.as,
      client,
      await oauth.introspectionRequest(suite.as, client, oauth.None(), tokens.access_token, insecure),
    );
    expect(introspected).to.include({ active: true, client_id: client.client_id, sub: member.user_id });

    const refreshed = await refreshTokens(suite.as, client, tokens.refresh_token!);
    expect(refreshed.refresh_token)
      .to.match(/^svc_rt_/)
      .and.not.equal(tokens.refresh_token);
    expect(refreshed).to.include({ token_type: 'bearer', expires_in: 3600, scope: 'profile.read balance.read' });
    expect((await api(suite.svc, refreshed.access_token, 'GET', '/me')).status).to.equal(200);

    // the grant is listed for the operator
    const grants = await adminOk(suite.svc, 'GET', `/accounts/${member.account_id}/grants`);
    expect(grants.grants).to.have.length(1);
    expect(grants.grants[0]).to.include({ client_id: client.client_id, revoked_at: null });
    expect(grants.grants[0].scopes).to.have.members(['profile.read', 'balance.read']);
  });

  it('a client with a secret: client_secret_basic as strict clients encode it; introspect; revoke ends the tokens', async () => {
    const member = await newMember(suite.svc);
    const registered = await newClient(suite.svc, {
      app_type: 'web',
      redirect_uris: [REDIRECT],
      scopes: ['profile.read', 'market_data'],
    });
    const client: oauth.Client = { client_id: registered.client_id };
    const auth = oauth.ClientSecretBasic(registered.client_secret!);
    const tokens = await exchangeCode(
      suite.as,
      client,
      await authorizedCode(suite.svc, suite.as, client, member, 'profile.read'),
      { auth },
    );

    const active = await oauth.processIntrospectionResponse(
      suite.as,
      client,
      await oauth.introspectionRequest(suite.as, client, auth, tokens.access_token, insecure),
    );
    expect(active).to.include({
      active: true,
      client_id: client.client_id,
      token_type: 'bearer',
      scope: 'profile.read',
      sub: member.user_id,
    });
    expect(active.exp! - active.iat!).to.equal(3600);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(suite.as, client, auth, tokens.refresh_token!, insecure),
    );
    const after = await oauth.processIntrospectionResponse(
      suite.as,
      client,
      await oauth.introspectionRequest(suite.as, client, auth, tokens.access_token, insecure),
    );
    expect(after).to.deep.equal({ active: false });
    const me = await api(suite.svc, tokens.access_token, 'GET', '/me');
    expect(me.status).to.equal(401);
    expect(me.body.error).to.equal('Missing or invalid OAuth access token');
    expect(me.headers.get('www-authenticate')).to.equal(
      `Bearer error="invalid_token", error_description="The access token is unknown, expired or revoked", resource_metadata="${suite.svc.baseUrl}/.well-known/oauth-protected-resource"`,
    );
  });

  it('client_credentials: app scopes only, no refresh token; the app token reads the catalogue and nothing of a member', async () => {
    const registered = await newClient(suite.svc, {
      app_type: 'server',
      scopes: ['market_data', 'events', 'profile.read'],
    });
    const client: oauth.Client = { client_id: registered.client_id };
    const auth = oauth.ClientSecretBasic(registered.client_secret!);
    const all = await oauth.processClientCredentialsResponse(
      suite.as,
      client,
      await oauth.clientCredentialsGrantRequest(suite.as, client, auth, new URLSearchParams(), insecure),
    );
    expect(all).to.include({ token_type: 'bearer', expires_in: 3600, scope: 'market_data events' });
    expect(all).to.not.have.property('refresh_token');
    expect((await api(suite.svc, all.access_token, 'GET', '/markets')).status).to.equal(200);
    const me = await api(suite.svc, all.access_token, 'GET', '/me');
    expect(me.status).to.equal(403);
    expect(me.body).to.deep.equal({ error: 'insufficient scope for this operation', scope: 'profile.read' });
    expect(me.headers.get('www-authenticate')).to.equal('Bearer error="insufficient_scope", scope="profile.read"');

    for (const scope of ['profile.read', 'nonsense']) {
      const res = await oauth.clientCredentialsGrantRequest(
        suite.as,
        client,
        auth,
        new URLSearchParams({ scope }),
        insecure,
      );
      expect(res.status).to.equal(400);
      expect((await res.json()).error).to.equal('invalid_scope');
    }
  });

  it('scopes on /api/v1: the route → scope table, catalogue for any member token, no scope covers PATCH /me/profile', async () => {
    const { member, client } = await memberWithNativeClient(suite.svc, ['profile.read']);
    const tokens = await exchangeCode(
      suite.as,
      client,
      await authorizedCode(suite.svc, suite.as, client, member, 'profile.read'),
    );
    const t = tokens.access_token;
    expect((await api(suite.svc, t, 'GET', '/markets')).status).to.equal(200);
    expect((await api(suite.svc, t, 'GET', '/leaderboard')).status).to.equal(200); // enabled by default
    const table: [string, string, string][] = [
      ['GET', '/account/balance', 'balance.read'],
      ['GET', '/fills', 'portfolio.read'],
      ['GET', '/positions', 'portfolio.read'],
      ['GET', '/account/market_stats', 'portfolio.read'],
      ['GET', '/portfolio/loyalty', 'portfolio.read'],
      ['GET', '/portfolio/fees', 'portfolio.read'],
      ['GET', '/portfolio/adjustments', 'portfolio.read'],
      ['GET', '/portfolio/withdrawals', 'transfers.read'],
      ['GET', '/orders', 'orders.read'],
      ['GET', '/orders/00000000-0000-4000-8000-000000000000', 'orders.read'],
      ['POST', '/orders', 'orders.write'],
      ['POST', '/orders/batched', 'orders.write'],
      ['DELETE', '/orders/batched', 'orders.write'],
    ];
    for (const [method, path, scope] of table) {
      const res = await api(suite.svc, t, method, path, method === 'GET' ? undefined : {});
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body, `${method} ${path}`).to.deep.equal({ error: 'insufficient scope for this operation', scope });
    }
    const profile = await api(suite.svc, t, 'PATCH', '/me/profile', { handle: 'someone' });
    expect(profile.status).to.equal(403);
    expect(profile.body).to.deep.equal({ error: 'insufficient scope for this operation' });
    expect((await api(suite.svc, t, 'GET', '/no-such-route')).status).to.equal(404);
  });

  it('the operator turns two-factor on: answers a base32 secret and an otpauth URL', async () => {
    const member = await newMember(suite.svc);
    const { totp } = await adminOk(suite.svc, 'POST', `/accounts/${member.account_id}/totp`);
    expect(totp.secret).to.match(/^[A-Z2-7]{32}$/);
    expect(totp.otpauth_url).to.match(/^otpauth:\/\/totp\/.+\?secret=[A-Z2-7]{32}&/);
    expect((await admin(suite.svc, 'POST', '/accounts/00000000-0000-4000-8000-000000000000/totp')).status).to.equal(
      404,
    );
    expect((await admin(suite.svc, 'GET', '/accounts/00000000-0000-4000-8000-000000000000/grants')).status).to.equal(
      404,
    );
  });
});
