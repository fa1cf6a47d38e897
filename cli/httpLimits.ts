// Per-address bound on the public HTTP listener's connections (operator setting
// `http_limits.connections_per_address`), beside the listener's global cap: one client cannot hold
// every connection the service accepts. A connection past the bound is answered at once with 429
// and closed, before any request on it is read. Trusted proxies (TRUSTED_PROXIES) are exempt: they
// carry many clients. An IPv6 client counts by its /64.
//
// The table holds one entry per address with a connection open, so it is bounded by the global
// connection cap itself.

import type http from 'node:http';
import type { BlockList } from 'node:net';
import { listed } from '../commands/net/addressList.ts';
import { addressKeyOf } from '../commands/net/clientAddress.ts';
import { normalizeIp } from '../domain/address.ts';

const REFUSAL_BODY = JSON.stringify({
  error: 'Too many connections from this address; reuse an open one (keep-alive) or close some',
});
const REFUSAL = `HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(REFUSAL_BODY)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n${REFUSAL_BODY}`;

/** Counts each address's open connections on `server`; `limit` is read at every new connection (settings change live). */
export function limitConnectionsPerAddress(
  server: http.Server,
  limit: () => number,
  proxies: BlockList,
): { open(address: string): number } {
  const open = new Map<string, number>();
  // ahead of the HTTP server's own listener: a refused connection never gets a request read
  server.prependListener('connection', (socket) => {
    const ip = normalizeIp(socket.remoteAddress);
    if (ip === null || listed(proxies, ip)) return;
    const key = addressKeyOf(ip);
    const count = open.get(key) ?? 0;
    if (count >= limit()) {
      socket.end(REFUSAL, () => socket.destroy());
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
  return { open: (address) => open.get(addressKeyOf(address)) ?? 0 };
}
