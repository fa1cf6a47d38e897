// The in-memory tables behind the authorization server's limits, at small bounds: browser
// sessions (anonymous visitors never push a signed-in member out) and the registration limiter
// (a full table of addresses refuses new ones rather than forgetting the ones it counts).

import { expect } from 'chai';
import { RegistrationLimiter } from '../../commands/oauth/register.ts';
import { BrowserSessions, sessionCookie } from '../../oauth/browserSession.ts';

const cookieOf = (session: { id: string }) => sessionCookie(session as never, false).split(';')[0];

describe('OAuth limit tables', () => {
  it('anonymous visitors past the bound never evict signed-in browser sessions', () => {
    const sessions = new BrowserSessions({ anonymousMax: 100, signedInMax: 100, perAccountMax: 10 });
    const member = sessions.create(0);
    sessions.signIn(member, 'account-1');
    for (let i = 0; i < 10_000; i += 1) sessions.create(i);
    const found = sessions.find(cookieOf(member), 10_000);
    expect(found?.account_id).to.equal('account-1');
    expect(sessions.sizes()).to.deep.equal({ anonymous: 100, signed_in: 1 });
  });

  it('one account keeps at most its bound of signed-in sessions (its idlest signed out first)', () => {
    const sessions = new BrowserSessions({ anonymousMax: 100, signedInMax: 100, perAccountMax: 3 });
    const signedIn = Array.from({ length: 5 }, (_, i) => {
      const session = sessions.create(i);
      sessions.signIn(session, 'account-1');
      return session;
    });
    const live = signedIn.filter((s) => sessions.find(cookieOf(s), 10)?.account_id === 'account-1');
    expect(live.map((s) => s.id)).to.deep.equal(signedIn.slice(2).map((s) => s.id));
  });

  it('the registration limiter, full of open windows, refuses a new address and keeps counting the old ones', () => {
    const limiter = new RegistrationLimiter(3);
    for (const address of ['a', 'b', 'c']) expect(limiter.take(address, 1, 0)).to.equal(0);
    expect(limiter.take('d', 1, 1_000)).to.be.greaterThan(0); // full: refused, nothing forgotten
    expect(limiter.take('a', 1, 1_000)).to.be.greaterThan(0); // 'a' is still counted
    expect(limiter.take('d', 1, 3_600_000)).to.equal(0); // the hour passed: room again
  });
});
