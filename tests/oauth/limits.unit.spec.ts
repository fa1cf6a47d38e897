// The in-memory tables behind the authorization server's limits, at small bounds: browser
// sessions (anonymous visitors never push a signed-in member out) and the registration limiter
// (a full table of addresses refuses new ones rather than forgetting the ones it counts).

import { expect } from 'chai';
import { RegistrationLimiter } from '../../commands/oauth/register.ts';
import { BrowserSessions } from '../../oauth/browserSession.ts';
import { browserSessionRules } from './sessionRules.ts';

describe('OAuth limit tables', () => {
  browserSessionRules(async (bounds) => new BrowserSessions(bounds), 10_000);

  it('the registration limiter, full of open windows, refuses a new address and keeps counting the old ones', () => {
    const limiter = new RegistrationLimiter(3);
    for (const address of ['a', 'b', 'c']) expect(limiter.take(address, 1, 0)).to.equal(0);
    expect(limiter.take('d', 1, 1_000)).to.be.greaterThan(0); // full: refused, nothing forgotten
    expect(limiter.take('a', 1, 1_000)).to.be.greaterThan(0); // 'a' is still counted
    expect(limiter.take('d', 1, 3_600_000)).to.equal(0); // the hour passed: room again
  });
});
