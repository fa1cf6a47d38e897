// Handshake refusals (docs/REALTIME.md "Connecting", docs/TRADING.md "Credentials"): answered over HTTP before any upgrade,
// so the Phoenix client never opens; the status, headers and body are read with a raw handshake.

import { expect } from 'chai';
import { startWholeService, type Member, type WholeService } from '../api/v1/harness.ts';
import { connect, connectionRefused, join, rawHandshake } from './phoenix.ts';

describe('realtime: handshake', function () {
  let svc: WholeService;
  let alice: Member;

  before(async () => {
    svc = await startWholeService();
    alice = await svc.member();
  });
  after(async () => {
    await svc?.stop();
  });

  it('a valid signature over GET and the path with its query string upgrades', async () => {
    expect((await rawHandshake(svc.socketUrl, { key: alice.key })).status).to.equal(101);
    const socket = await connect(svc.socketUrl, { key: alice.key });
    expect((await join(socket, `orders:${alice.user_id}`)).response).to.have.property('orders');
    socket.close();
  });

  it('a bad signature, an unknown key or a timestamp outside 30 seconds is 401 with no upgrade', async () => {
    const forged = { ...alice.key, private_key: Buffer.alloc(32, 7).toString('base64') };
    const cases = [
      { key: forged },
      { key: { ...alice.key, key_id: 'no-such-key' } },
      { key: alice.key, nowMs: () => Date.now() - 31_000 },
      { key: alice.key, nowMs: () => Date.now() + 31_000 },
    ];
    for (const credentials of cases) {
      const answer = await rawHandshake(svc.socketUrl, credentials);
      expect(answer.status).to.equal(401);
      expect(JSON.parse(answer.body)).to.deep.equal({ error: 'Missing or invalid API key credentials' });
      await connectionRefused(svc.socketUrl, credentials);
    }
  });

  it('a signature over another path (the query string is signed too) is 401', async () => {
    const answer = await rawHandshake(
      svc.socketUrl,
      {
        key: alice.key,
        headers: {},
      },
      '/websocket?vsn=2.0.0&extra=1',
    );
    expect(answer.status).to.equal(101); // signed over what was sent: fine
    const { signedHeaders } = await import('../api/v1/harness.ts');
    const wrong = signedHeaders(alice.key, 'GET', '/socket/websocket?vsn=2.0.0', Date.now());
    const mismatch = await rawHandshake(svc.socketUrl, { headers: wrong }, '/websocket?vsn=2.0.0&extra=1');
    expect(mismatch.status).to.equal(401);
  });

  it('an inactive account is 403 naming its status', async () => {
    const carol = await svc.member();
    await svc.admin('PATCH', `/accounts/${carol.account_id}`, { status: 'suspended' });
    expect((await carol.call('GET', '/api/v1/me')).status).to.equal(403); // REST has seen it
    const answer = await rawHandshake(svc.socketUrl, { key: carol.key });
    expect(answer.status).to.equal(403);
    expect(JSON.parse(answer.body)).to.deep.equal({ error: 'Account is suspended' });
  });

  it('an OAuth token that is not live is 401', async () => {
    const answer = await rawHandshake(svc.socketUrl, { oauthToken: 'svc_at_not-a-token' });
    expect(answer.status).to.equal(401);
    expect(JSON.parse(answer.body)).to.deep.equal({ error: 'Missing or invalid OAuth access token' });
    await connectionRefused(svc.socketUrl, { oauthToken: 'svc_at_not-a-token' });
  });
});
