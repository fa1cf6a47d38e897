// OAuth access tokens on the member routes: reads need the scope that covers them (403
// `insufficient scope for this operation` naming it otherwise); no scope covers profile changes.

import { expect } from 'chai';
import { openAccount } from '../../../projections/member/fixtures.ts';
import { startMemberService, type MemberService, type Who } from './harness.ts';

const ACCOUNT = '00000000-0000-4000-8000-0000000000c1';
const oauth = (scopes: string[]): Who => ({ account_id: ACCOUNT, method: 'bearer', source: 'oauth', scopes });

describe('member routes and OAuth scopes', () => {
  let svc: MemberService;
  before(async () => {
    svc = await startMemberService();
    await svc.engineStep(openAccount(ACCOUNT));
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
      const refused = await svc.call('GET', path, oauth(['orders.read']));
      expect(refused.status).to.equal(403);
      expect(refused.body).to.deep.equal({ error: 'insufficient scope for this operation', scope });
      expect(refused.headers.get('www-authenticate')).to.equal(`Bearer error="insufficient_scope", scope="${scope}"`);
      expect((await svc.call('GET', path, oauth([scope]))).status).to.equal(200);
    });
  }

  it('no scope covers PATCH /me/profile: 403 without a scope', async () => {
    const refused = await svc.call('PATCH', '/api/v1/me/profile', oauth(['profile.read', 'orders.write']), {
      leaderboard_opt_in: true,
    });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.deep.equal({ error: 'insufficient scope for this operation' });
  });
});
