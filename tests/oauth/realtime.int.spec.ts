// OAuth access tokens on the WebSocket feed: the handshake header x-svc-oauth-token yields the
// member (or the app) and the channels' scope rules apply (docs/REALTIME.md "Who may join").

import { expect } from 'chai';
import { startTestService, type TestService } from '../support/service.ts';
import { connect, join, rawHandshake, refusedJoin, type Connected } from '../realtime/phoenix.ts';
import { memberAccessToken, newMember } from './support.ts';

describe('OAuth tokens on the WebSocket feed', function () {
  this.timeout(60_000);
  let svc: TestService;
  let socketUrl: string;
  const sockets: Connected[] = [];

  before(async () => {
    svc = await startTestService();
    socketUrl = `ws://127.0.0.1:${svc.service.wsPort}/socket`;
  });
  after(async () => {
    for (const socket of sockets) socket.close();
    await svc?.stop();
  });

  const memberToken = async (member: { email: string; password: string }, scope: string) =>
    (await memberAccessToken(svc, member, scope)).token;

  it('a member token joins the channels its scopes cover and gets insufficient_scope on the others', async () => {
    const member = await newMember(svc);
    const token = await memberToken(member, 'orders.read balance.read');
    const socket = await connect(socketUrl, { oauthToken: token });
    sockets.push(socket);
    const orders = await join(socket, `orders:${member.user_id}`);
    expect(orders.response).to.have.property('orders');
    const balances = await join(socket, `balances:${member.user_id}`);
    expect(balances.response).to.have.property('balance');
    expect(await refusedJoin(socket, `fills:${member.user_id}`)).to.include({ reason: 'insufficient_scope' });
    expect(await refusedJoin(socket, `account:${member.user_id}`)).to.include({ reason: 'insufficient_scope' });
    const other = await newMember(svc);
    expect(await refusedJoin(socket, `orders:${other.user_id}`)).to.deep.equal({ reason: 'unauthorized' });
  });

  it('a token that is not live: 401 at the handshake, no upgrade', async () => {
    const refused = await rawHandshake(socketUrl, { oauthToken: 'svc_at_not-a-live-token' });
    expect(refused.status).to.equal(401);
  });
});
