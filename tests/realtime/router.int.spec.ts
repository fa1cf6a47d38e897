// The socket router, as Phoenix's socket routes: a frame whose join_ref is not the topic's
// current join (a client that raced its own rejoin) is ignored without an answer; a frame with
// the current join_ref, or none, reaches the join. Raw frames over a real socket.

import { expect } from 'chai';
import { startWholeService, type WholeService } from '../api/v1/harness.ts';
import { RawSocket } from './raw.ts';

describe('realtime: socket router', function () {
  let svc: WholeService;
  const sockets: RawSocket[] = [];

  before(async () => {
    svc = await startWholeService();
  });
  after(async () => {
    for (const socket of sockets) socket.close();
    await svc?.stop();
  });

  it("a leave carrying an earlier join's join_ref is ignored; the current join stays", async () => {
    const socket = await RawSocket.open(svc.socketUrl);
    sockets.push(socket);
    socket.send('1', '1', 'events', 'phx_join', {});
    expect((await socket.reply('1'))[4].status).to.equal('ok');
    socket.send('2', '2', 'events', 'phx_join', {}); // replaces join 1 (which gets phx_close)
    expect((await socket.reply('2'))[4].status).to.equal('ok');
    expect(socket.frames.some((frame) => frame[3] === 'phx_close' && frame[0] === '1')).to.equal(true);

    socket.send('1', '3', 'events', 'phx_leave', {}); // stale: for join 1
    await socket.sync('4');
    expect(socket.frames.filter((frame) => frame[1] === '3')).to.deep.equal([]);

    socket.send('2', '5', 'events', 'phx_leave', {}); // the current join: left
    expect((await socket.reply('5'))[4]).to.deep.equal({ status: 'ok', response: {} });
  });

  it('an event carrying an earlier join_ref is ignored; one with the current join_ref or none is answered', async () => {
    const socket = await RawSocket.open(svc.socketUrl);
    sockets.push(socket);
    socket.send('1', '1', 'events', 'phx_join', {});
    await socket.reply('1');
    socket.send('2', '2', 'events', 'phx_join', {});
    await socket.reply('2');
    socket.send('1', '3', 'events', 'ping', {});
    await socket.sync('4');
    expect(socket.frames.filter((frame) => frame[1] === '3')).to.deep.equal([]);
    socket.send('2', '5', 'events', 'ping', {});
    expect((await socket.reply('5'))[4]).to.deep.equal({
      status: 'error',
      response: { reason: 'unmatched event', event: 'ping' },
    });
    socket.send(null, '6', 'events', 'ping', {});
    expect((await socket.reply('6'))[4].response.reason).to.equal('unmatched event');
  });
});
