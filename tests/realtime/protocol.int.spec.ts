// The Phoenix V2 protocol as the official client and a raw socket see it: path, vsn, heartbeat,
// join/leave replies, unknown and retired topics, malformed frames, the events channel without
// credentials.

import { expect } from 'chai';
import WebSocket from 'ws';
import { startWholeService, USER_AGENT, type WholeService } from '../api/v1/harness.ts';
import { connect, join, rawHandshake, refusedJoin, type Connected } from './phoenix.ts';

/** Sends raw frames and collects what comes back. */
async function rawSocket(url: string): Promise<{ ws: WebSocket; next(): Promise<unknown>; closed: Promise<number> }> {
  const ws = new WebSocket(`${url}/websocket?vsn=2.0.0`, { headers: { 'user-agent': USER_AGENT } });
  const inbox: unknown[] = [];
  const waiting: Array<(frame: unknown) => void> = [];
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data));
    const waiter = waiting.shift();
    if (waiter) waiter(frame);
    else inbox.push(frame);
  });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
  });
  return {
    ws,
    closed,
    next: () => (inbox.length > 0 ? Promise.resolve(inbox.shift()) : new Promise((resolve) => waiting.push(resolve))),
  };
}

describe('realtime: Phoenix Channels V2 protocol', function () {
  let svc: WholeService;
  let anonymous: Connected;

  before(async () => {
    svc = await startWholeService();
    anonymous = await connect(svc.socketUrl);
  });
  after(async () => {
    anonymous?.close();
    await svc?.stop();
  });

  it('the official client connects anonymously and joins `events` (no authentication needed)', async () => {
    const events = await join(anonymous, 'events');
    expect(events.response).to.have.property('events').that.is.an('array');
    await events.leave();
  });

  it('an unknown topic, and every retired name, is refused with reason "unmatched topic"', async () => {
    for (const topic of [
      'nonsense',
      'active_orders:u',
      'active_trades:u',
      'active_positions:u',
      'active_settlements:u',
      'portfolio:u',
    ]) {
      expect(await refusedJoin(anonymous, topic)).to.deep.equal({ reason: 'unmatched topic' });
    }
  });

  it('heartbeat on topic phoenix is answered; frames are [join_ref, ref, topic, event, payload]', async () => {
    const raw = await rawSocket(svc.socketUrl);
    raw.ws.send(JSON.stringify([null, '7', 'phoenix', 'heartbeat', {}]));
    expect(await raw.next()).to.deep.equal([null, '7', 'phoenix', 'phx_reply', { status: 'ok', response: {} }]);
    raw.ws.send(JSON.stringify(['1', '1', 'events', 'phx_join', {}]));
    const reply = (await raw.next()) as unknown[];
    expect(reply.slice(0, 4)).to.deep.equal(['1', '1', 'events', 'phx_reply']);
    expect((reply[4] as { status: string }).status).to.equal('ok');
    raw.ws.send(JSON.stringify(['1', '2', 'events', 'phx_leave', {}]));
    expect(await raw.next()).to.deep.equal(['1', '2', 'events', 'phx_reply', { status: 'ok', response: {} }]);
    expect(await raw.next()).to.deep.equal(['1', '1', 'events', 'phx_close', {}]);
    raw.ws.send(JSON.stringify([null, '3', 'events', 'whatever', {}]));
    expect(await raw.next()).to.deep.equal([
      null,
      '3',
      'events',
      'phx_reply',
      { status: 'error', response: { reason: 'unmatched topic' } },
    ]);
    raw.ws.close();
  });

  it('a malformed frame closes the socket', async () => {
    const raw = await rawSocket(svc.socketUrl);
    raw.ws.send('{"not":"a frame"}');
    expect(await raw.closed).to.equal(4003);
  });

  it('only /socket/websocket upgrades, and only vsn 2.0.0', async () => {
    expect((await rawHandshake(svc.socketUrl, {}, '/websocket?vsn=2.0.0')).status).to.equal(101);
    expect((await rawHandshake(svc.socketUrl, {}, '/websocket?vsn=1.0.0')).status).to.equal(400);
    expect(
      (await rawHandshake(svc.socketUrl.replace('/socket', '/elsewhere'), {}, '/websocket?vsn=2.0.0')).status,
    ).to.equal(404);
  });

  it('a handshake without User-Agent is refused with 403 and never upgrades', async () => {
    const answer = await rawHandshake(svc.socketUrl, { userAgent: null });
    expect(answer.status).to.equal(403);
    expect(JSON.parse(answer.body)).to.deep.equal({ error: 'User-Agent header is required' });
  });
});
