// OAuth access tokens on the WebSocket feed: the handshake header x-svc-oauth-token yields the
// member (or the app) and the channels' scope rules apply (SPEC "Events"; issue of the feed).

import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { startTestService, type TestService } from '../support/service.ts';
import { connect, join, rawHandshake, refusedJoin, type Connected } from '../realtime/phoenix.ts';
import { FormBrowser, logInThrough, newClient, newMember } from './support.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

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

  async function memberToken(member: { email: string; password: string }, scope: string): Promise<string> {
    const client = await newClient(svc, { app_type: 'native', redirect_uris: [REDIRECT], scopes: scope.split(' ') });
    const verifier = randomBytes(32).toString('base64url');
    const browser = new FormBrowser(svc.baseUrl);
    await browser.visit(`/oauth/authorize?${new URLSearchParams({
      response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, scope, state: 's',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    }).toString()}`);
    await logInThrough(browser, member);
    const code = new URL((await browser.consent('allow')).location!).searchParams.get('code')!;
    const res = await fetch(`${svc.baseUrl}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: client.client_id, code, redirect_uri: REDIRECT, code_verifier: verifier }),
    });
    return ((await res.json()) as { access_token: string }).access_token;
  }

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
