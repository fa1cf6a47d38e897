// The rules every browser-session store keeps (oauth/browserSession.ts), at small bounds: run
// against the in-memory table (limits.unit.spec.ts) and PostgreSQL (browserSessions.int.spec.ts).

import { expect } from 'chai';
import { sessionCookie, type BrowserSessionStore, type SessionBounds } from '../../oauth/browserSession.ts';

const cookieOf = (session: { id: string }) => sessionCookie(session as never, false).split(';')[0];

export function browserSessionRules(make: (bounds: SessionBounds) => Promise<BrowserSessionStore>, visitors: number) {
  it('anonymous visitors past the bound never evict signed-in browser sessions', async () => {
    const sessions = await make({ anonymousMax: 100, signedInMax: 100, perAccountMax: 10 });
    const member = await sessions.create(0);
    await sessions.signIn(member, 'account-1');
    for (let i = 0; i < visitors; i += 1) await sessions.create(i);
    const found = await sessions.find(cookieOf(member), visitors);
    expect(found?.account_id).to.equal('account-1');
    expect(await sessions.sizes()).to.deep.equal({ anonymous: 100, signed_in: 1 });
  });

  it('one account keeps at most its bound of signed-in sessions (its oldest sign-in signed out first)', async () => {
    const sessions = await make({ anonymousMax: 100, signedInMax: 100, perAccountMax: 3 });
    const signedIn = [];
    for (let i = 0; i < 5; i += 1) {
      const session = await sessions.create(i);
      await sessions.signIn(session, 'account-1');
      signedIn.push(session);
    }
    const live = [];
    for (const s of signedIn) if ((await sessions.find(cookieOf(s), 10))?.account_id === 'account-1') live.push(s);
    expect(live.map((s) => s.id)).to.deep.equal(signedIn.slice(2).map((s) => s.id));
  });

  it('a session idle past its bound is gone; what a request changed is there at the next one', async () => {
    const sessions = await make({});
    const session = await sessions.create(0);
    session.resume = 'response_type=code&client_id=x';
    session.flash = { note: 'Your account is created. Log in to continue.', email: 'a@example.com' };
    await sessions.save(session);
    const again = await sessions.find(cookieOf(session), 1_000);
    expect(again?.resume).to.equal('response_type=code&client_id=x');
    expect(again?.flash?.email).to.equal('a@example.com');
    expect(again?.csrf).to.equal(session.csrf);
    expect(await sessions.find(cookieOf(session), 1_000 + 60 * 60_000 + 1)).to.equal(undefined);
    expect(await sessions.find(cookieOf(session), 1_000)).to.equal(undefined);
  });
}
