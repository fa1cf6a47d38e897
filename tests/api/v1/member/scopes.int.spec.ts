// OAuth access tokens on the member routes: reads need the scope that covers them (403
// `insufficient scope for this operation` naming it otherwise); no scope covers profile changes.
// The tokens are real: an app registered for the scopes, the authorization code flow with PKCE,
// the member's login and consent.

import { expect } from 'chai';
import { startTestService, type TestService } from '../../../support/service.ts';
import { memberAccessToken, newMember } from '../../../oauth/support.ts';

describe('member routes and OAuth scopes', function () {
  this.timeout(60_000);
  let svc: TestService;
  let member: { email: string; password: string };
  const tokens = new Map<string, Promise<string>>();
  /** A token granted exactly these scopes (space-separated; one authorization per scope set). */
  const tokenFor = (scope: string): Promise<string> => {
    let token = tokens.get(scope);
    if (!token) {
      token = memberAccessToken(svc, member, scope).then((issued) => issued.token);
      tokens.set(scope, token);
    }
    return token;
  };
  const call = async (method: string, path: string, scope: string, body?: unknown) => {
    const res = await fetch(`${svc.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${await tokenFor(scope)}`,
        'user-agent': 'member-scope-tests',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
  };

  before(async () => {
    svc = await startTestService();
    member = await newMember(svc);
  });
  after(async () => svc?.stop());

  const table: Array<[string, string]> = [
    ['/api/v1/me', 'profile.read'],
    ['/api/v1/account/market_stats', 'portfolio.read'],
    ['/api/v1/portfolio/loyalty', 'portfolio.read'],
    ['/api/v1/portfolio/fees', 'portfolio.read'],
    ['/api/v1/portfolio/withdrawals', 'transfers.read'],
    ['/api/v1/portfolio/adjustments', 'portfolio.read'], // the table: adjustments are portfolio, withdrawals transfers
  ];
  for (const [path, scope] of table) {
    it(`GET ${path} needs ${scope}`, async () => {
      const refused = await call('GET', path, 'orders.read');
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.equal({ error: 'insufficient scope for this operation', scope });
      expect(refused.headers.get('www-authenticate')).to.equal(`Bearer error="insufficient_scope", scope="${scope}"`);
      expect((await call('GET', path, scope)).status).to.equal(200);
    });
  }

  it('no scope covers PATCH /me/profile: 403 without a scope', async () => {
    const refused = await call('PATCH', '/api/v1/me/profile', 'profile.read orders.write', {
      leaderboard_opt_in: true,
    });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal({ error: 'insufficient scope for this operation' });
  });
});
