// OAuth access tokens on the WebSocket feed: the handshake header x-svc-oauth-token yields the
// member (or the app) and the channels' scope rules apply (docs/REALTIME.md "Who may join").

import { expect } from 'chai';
import { useWholeService } from '../api/v1/harness.ts';
import { connect, join, rawHandshake, refusedJoin } from '../realtime/phoenix.ts';
import { memberAccessToken, newMember } from './support.ts';

describe('OAuth tokens on the WebSocket feed', function () {
  this.timeout(60_000);
  const suite = useWholeService([], { market: false });

  const memberToken = async (member: { email: string; password: string }, scope: string) =>
    (await memberAccessToken(suite.svc, member, scope)).token;

  it('a member token joins the channels its scopes cover and gets insufficient_scope on the others', async () => {
    const member = await newMember(suite.svc);
    const token = await memberToken(member, 'orders.read balance.read');
    const socket = await connect(suite.svc.socketUrl, { oauthToken: token });
    suite.sockets.push(socket);
    const orders = await join(socket, `orders:${member.user_id}`);
    expect(orders.response).to.have.property('orders');
    const balances = await join(socket, `balances:${member.user_id}`);
    expect(balances.response).to.have.property('balance');
    expect(await refusedJoin(socket, `fills:${member.user_id}`)).to.include({ reason: 'insufficient_scope' });
    expect(await refusedJoin(socket, `account:${member.user_id}`)).to.include({ reason: 'insufficient_scope' });
    const other = await newMember(suite.svc);
    expect(await refusedJoin(socket, `orders:${other.user_id}`)).to.deep.equal({ reason: 'unauthorized' });
  });

  it('a token that is not live: 401 at the handshake, no upgrade', async () => {
    const refused = await rawHandshake(suite.svc.socketUrl, { oauthToken: 'svc_at_not-a-live-token' });
    expect(refused.status).to.equal(401);
  });
});
