// Per-address connection caps on the public HTTP listener (settings http_limits): past
// connections_per_address open connections from one address, a new one is answered 429 and
// closed before a request is read; other addresses are not affected, and a closed connection
// makes room again. Real sockets against the whole service.

import { expect } from 'chai';
import net from 'node:net';
import { startTestService, type TestService } from '../support/service.ts';

/** Opens a connection from `localAddress` and resolves once it is up. */
function connect(port: number, localAddress = '127.0.0.1'): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends `request` (if any) on a new connection and collects everything until the server closes it or answers fully. */
function exchange(port: number, request: string | null, localAddress = '127.0.0.1'): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port, localAddress });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      if (/\r\n\r\n[\s\S]*\}$/.test(text)) socket.end();
    });
    socket.once('connect', () => {
      if (request !== null) socket.write(request);
    });
    socket.once('close', () => resolve(text));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve(text) : reject(error),
    );
  });
}

const LIVEZ = 'GET /livez HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n';

describe('HTTP connections per address', function () {
  this.timeout(120_000);
  let svc: TestService;
  const held: net.Socket[] = [];

  before(async () => {
    svc = await startTestService();
  });
  after(async () => {
    for (const socket of held) socket.destroy();
    await svc?.stop();
  });

  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${svc.adminUrl}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${svc.adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: answer.status, body: await answer.json() };
  };

  it('defaults to 256 per address; the operator changes it (1 to 10,000)', async () => {
    expect((await admin('GET', '/settings')).body.settings.http_limits).to.deep.equal({ connections_per_address: 256 });
    for (const bad of [0, 10_001, 2.5, '4']) {
      expect(
        (await admin('PATCH', '/settings', { http_limits: { connections_per_address: bad } })).status,
        String(bad),
      ).to.equal(400);
    }
    expect(
      (await admin('PATCH', '/settings', { http_limits: { connections_per_address: 4 } })).body.settings.http_limits,
    ).to.deep.equal({ connections_per_address: 4 });
  });

  it('past the cap a new connection from that address gets 429 and is closed; another address is served; closing one makes room', async () => {
    const port = svc.service.port;
    for (let i = 0; i < 4; i += 1) held.push(await connect(port));
    const refused = await Promise.all(Array.from({ length: 8 }, () => exchange(port, LIVEZ)));
    for (const text of refused) {
      expect(text).to.match(/^HTTP\/1\.1 429 /);
      expect(text).to.include('Too many connections from this address');
      expect(text).to.not.include('"status":"ok"');
    }
    // 127.0.0.2 is another address (loopback /8): it has its own count
    expect(await exchange(port, LIVEZ, '127.0.0.2')).to.match(/^HTTP\/1\.1 200 [\s\S]*"status":"ok"/);

    held.pop()!.destroy();
    let answer = '';
    for (let attempt = 0; attempt < 100 && !answer.startsWith('HTTP/1.1 200'); attempt += 1) {
      // the server learns of the close asynchronously
      answer = await exchange(port, LIVEZ);
      if (!answer.startsWith('HTTP/1.1 200')) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(answer).to.match(/^HTTP\/1\.1 200 /);
  });
});
