// Revocation reaches open sockets: when the credential a socket connected with stops being
// valid (its API key deleted, its account suspended, its OAuth token revoked, its grant revoked,
// its OAuth client suspended, its token expired on the service clock), every join on it is closed with `phx_close`
// `{reason}` and the socket is closed with code 4004; a join in the moment between a revocation
// and its notice is refused too. Over real sockets with the official Phoenix client.

import { expect } from 'chai';
import { useWholeService, type Member } from '../api/v1/harness.ts';
import { memberAccessToken, newMember } from '../oauth/support.ts';
import { connect, join, type Connected, type Joined } from './phoenix.ts';

const CLOSE_CREDENTIAL_ENDED = 4004;

/** Resolves with the close code once the server closes the socket. */
function closed(connected: Connected): Promise<number> {
  return new Promise((resolve) => connected.socket.onClose((event: { code: number }) => resolve(event.code)));
}

/** Resolves with the payload of the server's `phx_close` on this join. */
function channelClosed(joined: Joined): Promise<{ reason?: string }> {
  return new Promise((resolve) => joined.channel.onClose((payload: { reason?: string }) => resolve(payload)));
}

describe('realtime: revocation reaches open sockets', function () {
  this.timeout(60_000);
  const suite = useWholeService([], { market: false });

  const open = async (credentials: Parameters<typeof connect>[1]) => {
    const socket = await connect(suite.svc.socketUrl, credentials);
    suite.sockets.push(socket);
    return socket;
  };

  const memberToken = (member: { email: string; password: string }, scope: string) =>
    memberAccessToken(suite.svc, member, scope);

  it("an operator deleting the socket's API key closes its joins (credential_revoked) and the socket (4004)", async () => {
    const carol: Member = await suite.svc.member();
    const socket = await open({ key: carol.key });
    const orders = await join(socket, `orders:${carol.user_id}`);
    const balances = await join(socket, `balances:${carol.user_id}`);
    const ordersClosed = channelClosed(orders);
    const balancesClosed = channelClosed(balances);
    const socketClosed = closed(socket);
    await suite.svc.admin('DELETE', `/api_keys/${carol.key.key_id}`);
    expect(await ordersClosed).to.deep.equal({ reason: 'credential_revoked' });
    expect(await balancesClosed).to.deep.equal({ reason: 'credential_revoked' });
    expect(await socketClosed).to.equal(CLOSE_CREDENTIAL_ENDED);
    expect(await suite.svc.service.registry.getSingleMetricAsString('ws_credential_closes_total')).to.match(
      /ws_credential_closes_total\{reason="credential_revoked"\} [1-9]/,
    );
  });

  it('a join right after the key is deleted is never answered with data', async () => {
    const dave = await suite.svc.member();
    const socket = await open({ key: dave.key });
    const socketClosed = closed(socket);
    await suite.svc.admin('DELETE', `/api_keys/${dave.key.key_id}`);
    // the join races the notice: either the join is refused, or the socket is already closing
    const outcome = await Promise.race([
      join(socket, `balances:${dave.user_id}`).then(
        () => 'joined',
        (error: { response?: { reason?: string } }) => error.response?.reason ?? 'refused',
      ),
      socketClosed.then((code) => `closed ${code}`),
    ]);
    expect(outcome).to.be.oneOf(['credential_revoked', `closed ${CLOSE_CREDENTIAL_ENDED}`]);
    expect(await socketClosed).to.equal(CLOSE_CREDENTIAL_ENDED);
  });

  it('suspending the account ends the sockets of every credential of it (account_inactive)', async () => {
    const erin = await suite.svc.member();
    const viaKey = await open({ key: erin.key });
    const viaOtherKey = await open({ key: erin.readOnlyKey });
    const orders = await join(viaKey, `orders:${erin.user_id}`);
    const account = await join(viaOtherKey, `account:${erin.user_id}`);
    const ordersClosed = channelClosed(orders);
    const accountClosed = channelClosed(account);
    const closes = [closed(viaKey), closed(viaOtherKey)];
    await suite.svc.admin('PATCH', `/accounts/${erin.account_id}`, { status: 'suspended' });
    expect(await ordersClosed).to.deep.equal({ reason: 'account_inactive' });
    expect(await accountClosed).to.deep.equal({ reason: 'account_inactive' });
    expect(await Promise.all(closes)).to.deep.equal([CLOSE_CREDENTIAL_ENDED, CLOSE_CREDENTIAL_ENDED]);
  });

  /** Three ways an OAuth credential is revoked; each ends the joins and the socket made on its token. */
  const revocations: Array<[string, string, (issued: Awaited<ReturnType<typeof memberToken>>) => Promise<void>]> = [
    [
      "POST /oauth/revoke of the socket's access token ends its joins",
      'orders.read balance.read',
      async ({ token, clientId }) => {
        const revoked = await fetch(`${suite.svc.base}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'revocation-tests' },
          body: new URLSearchParams({ token, client_id: clientId }),
        });
        expect(revoked.status).to.equal(200);
      },
    ],
    [
      'a grant revoked (its code presented twice) ends the sockets of its tokens',
      'orders.read',
      async ({ exchange }) => {
        expect((await exchange()).status).to.equal(400); // the replay revokes the grant and its tokens
      },
    ],
    [
      "the operator suspending the token's OAuth client ends the sockets of its tokens",
      'orders.read',
      async ({ clientId }) => {
        await suite.svc.admin('PATCH', `/oauth/clients/${clientId}`, { status: 'suspended' });
      },
    ],
  ];
  for (const [name, scope, revoke] of revocations) {
    it(name, async () => {
      const member = await newMember(suite.svc);
      const issued = await memberToken(member, scope);
      const socket = await open({ oauthToken: issued.token });
      const orders = await join(socket, `orders:${member.user_id}`);
      const ordersClosed = channelClosed(orders);
      const socketClosed = closed(socket);
      await revoke(issued);
      expect(await ordersClosed).to.deep.equal({ reason: 'credential_revoked' });
      expect(await socketClosed).to.equal(CLOSE_CREDENTIAL_ENDED);
    });
  }

  it('a socket whose credential is still live keeps its joins', async () => {
    const frank = await suite.svc.member();
    const other = await suite.svc.member();
    const socket = await open({ key: frank.key });
    const orders = await join(socket, `orders:${frank.user_id}`);
    await suite.svc.admin('DELETE', `/api_keys/${other.key.key_id}`); // someone else's key
    await suite.svc.admin('PATCH', `/accounts/${other.account_id}`, { status: 'suspended' });
    const placed = await frank.call('POST', '/api/v1/orders', {
      body: {
        market_id: (await suite.svc.market()).market_id,
        action: 'buy',
        order_type: 'limit',
        price: '0.10',
        quantity: '1',
      },
    });
    expect(placed.status).to.equal(200);
    const update = await orders.next('update', (payload) => payload.order?.id === placed.body.order.id);
    expect(update.order.status).to.equal('open');
  });
});

// On a service of its own: it moves the service clock an hour on, which would expire every other
// test's tokens and sessions.
describe('realtime: revocation reaches open sockets, expiry on the service clock', function () {
  this.timeout(60_000);
  const suite = useWholeService([], { market: false });

  const open = (credentials: Parameters<typeof connect>[1]): Promise<Connected> =>
    connect(suite.svc.socketUrl, credentials);
  const memberToken = (member: { email: string; password: string }, scope: string) =>
    memberAccessToken(suite.svc, member, scope);

  it('an OAuth token or a member session expiring on the service clock ends its joins (credential_expired)', async () => {
    const member = await newMember(suite.svc);
    const { token } = await memberToken(member, 'orders.read');
    const socket = await open({ oauthToken: token });
    const orders = await join(socket, `orders:${member.user_id}`);
    const ordersClosed = channelClosed(orders);
    const socketClosed = closed(socket);
    const { session } = await suite.svc.admin('POST', `/accounts/${member.account_id}/sessions`, { expires_in: 3_600 });
    const viaSession = await open({ oauthToken: session.token });
    const balances = await join(viaSession, `balances:${member.user_id}`);
    const balancesClosed = channelClosed(balances);
    const sessionClosed = closed(viaSession);
    const heartbeat = (await suite.svc.admin('GET', '/settings')).settings.ws_heartbeat_timeout_ms;
    await suite.svc.admin('PATCH', '/settings', { ws_heartbeat_timeout_ms: 86_400_000 }); // silence is not what ends it here
    try {
      await suite.svc.admin('POST', '/clock', { advance_ms: 3_601_000 }); // past the token's 3,600 s
      expect(await ordersClosed).to.deep.equal({ reason: 'credential_expired' });
      expect(await socketClosed).to.equal(CLOSE_CREDENTIAL_ENDED);
      expect(await balancesClosed).to.deep.equal({ reason: 'credential_expired' });
      expect(await sessionClosed).to.equal(CLOSE_CREDENTIAL_ENDED);
    } finally {
      await suite.svc.admin('PATCH', '/settings', { ws_heartbeat_timeout_ms: heartbeat });
    }
  });
});
