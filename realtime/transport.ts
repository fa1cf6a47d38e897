// The transport: uWebSockets.js on WS_PORT, path /socket/websocket. It owns the sockets' lives:
// the upgrade (connection caps, then credentials → identity; every refusal is an HTTP answer
// before any upgrade), open and close, and two sweeps: sockets silent longer than the heartbeat
// timeout are closed, and so are sockets whose send buffer stays above SEND_BUFFER_BYTES_MAX (a
// slow reader never holds up the engine, the projections or the other readers: publishing only
// appends to buffers); the same sweep ends sockets whose credential expired on the service clock.
//
// Connection caps, each counted from the moment a handshake starts (a burst of concurrent
// handshakes cannot pass a cap that is judged only once they finish):
//   CONNECTIONS_MAX sockets in all (503), `connections_per_address` per peer address and
//   `connections_per_identity` per member account or OAuth application (429).

import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type uWSTypes from 'uWebSockets.js';
import { normalizeIp } from '../domain/address.ts';
import type { Clock } from '../domain/clock.ts';
import { CredentialHolders, type CredentialEnd } from './credential.ts';
import { httpRefusalOf, identify, type HandshakeRequest, type IdentityResolver } from './handshake.ts';
import type { Hub } from './hub.ts';
import type { SocketIdentity } from './identity.ts';
import type { JoinLifecycle } from './joins.ts';
import type { RealtimeMetrics } from './metrics.ts';
import { PROTOCOL_VSN } from './protocol.ts';
import type { SocketRouter } from './router.ts';
import {
  CLOSE_HEARTBEAT_TIMEOUT,
  CLOSE_SHUTDOWN,
  CLOSE_SLOW_CONSUMER,
  type SocketLifecycle,
  type SocketState,
} from './socket.ts';

const SOCKET_PATH = '/socket/websocket';
/** Largest inbound frame; a bigger one closes the socket (a join naming 1,000 markets is ~40 KB). */
const INBOUND_FRAME_BYTES_MAX = 64 * 1024;
/** Open sockets (and handshakes under way); past this a handshake is answered 503. */
const CONNECTIONS_MAX = 20_000;
/** Bytes waiting in a socket's send buffer above which it counts as slow. */
const SEND_BUFFER_BYTES_MAX = 1024 * 1024;
/** How long a socket may stay slow before it is closed. */
const SEND_BUFFER_OVER_BOUND_MS_MAX = 2_000;
/**
 * Hard ceiling handed to uWebSockets: a frame that would push a buffer past it closes the socket
 * at once (a message is never silently dropped: a gap in a private channel would go unnoticed).
 */
const SEND_BUFFER_BYTES_HARD_MAX = 16 * 1024 * 1024;
/** How often the heartbeat, back-pressure and expiry sweeps run. */
const SWEEP_INTERVAL_MS = 250;

type UWS = typeof uWSTypes;

/** The operator's per-client socket caps (settings `websocket_limits`). */
export interface ConnectionLimits {
  connections_per_address: number;
  connections_per_identity: number;
}

interface TransportOptions {
  port: number;
  logger: Logger;
  clock: Clock;
  hub: Hub;
  resolver: IdentityResolver | undefined;
  heartbeatTimeoutMs(): number;
  limits(): ConnectionLimits;
  metrics: RealtimeMetrics;
  router: SocketRouter;
  joins: JoinLifecycle;
  lifecycle?: SocketLifecycle;
}

export interface Transport {
  port: number;
  /** Open sockets (tests, diagnostics). */
  connections(): number;
  /** Runs the sweeps now (tests drive them after moving the test clock). */
  sweep(): void;
  /** Ends every socket whose credential is named `key`; with a null reason they check it again (see credential.ts). */
  credentialChanged(key: string, reason: CredentialEnd | null): void;
  stop(): Promise<void>;
}

/** The native addon, or a clear failure: the package silently falls back to a slow `ws` shim. */
function loadNativeUws(): UWS {
  const require = createRequire(import.meta.url);
  const previousWarn = console.warn;
  let uWS: UWS;
  try {
    console.warn = () => undefined; // the fallback announces itself on stderr; the check below says it plainly
    uWS = require('uWebSockets.js') as UWS;
  } finally {
    console.warn = previousWarn;
  }
  if (typeof (uWS as { getParts?: unknown }).getParts !== 'function') {
    throw new Error(
      `uWebSockets.js did not load its native addon (Node ${process.versions.node}, ABI ${process.versions.modules}, ` +
        `${process.platform}-${process.arch}); only its slow fallback is available. Run the service on Node 20 on linux x64/arm64 ` +
        '(see package.json engines), and reinstall dependencies with `npm ci`.',
    );
  }
  return uWS;
}

const nowMonotonicMs = () => performance.now();

function selectProtocol(offered: string): string {
  const protocols = offered.split(',').map((p) => p.trim());
  return protocols.includes('phoenix') ? 'phoenix' : '';
}

/** Who the per-identity cap counts a socket as: the member's account, or the OAuth application. */
function identityKeyOf(identity: SocketIdentity): string | null {
  if (identity.kind === 'member') return `account:${identity.account_id}`;
  if (identity.kind === 'app') return `client:${identity.client_id ?? ''}`;
  return null;
}

/** Counts per key (address, identity), entries dropped at zero. */
class Counts {
  private readonly counts = new Map<string, number>();

  of(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string): void {
    this.counts.set(key, this.of(key) + 1);
  }

  remove(key: string): void {
    const left = this.of(key) - 1;
    if (left > 0) this.counts.set(key, left);
    else this.counts.delete(key);
  }
}

export async function startTransport(options: TransportOptions): Promise<Transport> {
  const uWS = loadNativeUws();
  const { logger, clock, hub, metrics, router, joins, lifecycle } = options;
  const sockets = new Set<SocketState>();
  const holders = new CredentialHolders<SocketState>();
  const byAddress = new Counts();
  const byIdentity = new Counts();
  /** Handshakes between their start and their upgrade or refusal. */
  let handshaking = 0;
  let nextSocketId = 1;
  let stopping = false;
  const clockMs = () => clock.nowUs() / 1000;
  const addressKey = (address: string | null) => address ?? '';

  const app = uWS.App();
  app.ws<SocketState>(SOCKET_PATH, {
    maxPayloadLength: INBOUND_FRAME_BYTES_MAX,
    maxBackpressure: SEND_BUFFER_BYTES_HARD_MAX,
    closeOnBackpressureLimit: 1,
    idleTimeout: 0, // silence is judged by the heartbeat sweep, on the service clock
    sendPingsAutomatically: false,
    upgrade(res, req, context) {
      // the request object is valid only now: copy what the handshake needs
      const headers = new Map<string, string>();
      req.forEach((key, value) => headers.set(key.toLowerCase(), value));
      const query = req.getQuery();
      const pathWithQuery = query ? `${req.getUrl()}?${query}` : req.getUrl();
      const vsn = req.getQuery('vsn');
      const secKey = headers.get('sec-websocket-key') ?? '';
      const protocol = selectProtocol(headers.get('sec-websocket-protocol') ?? '');
      const extensions = headers.get('sec-websocket-extensions') ?? '';
      const remoteAddress = normalizeIp(Buffer.from(res.getRemoteAddressAsText()).toString());
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      const refuse = (status: string, extra: Array<[string, string]>, body: unknown, reason: string): void => {
        metrics.handshakeRefusals.inc({ reason });
        res.cork(() => {
          res.writeStatus(status);
          for (const [name, value] of extra) res.writeHeader(name, value);
          res.writeHeader('content-type', 'application/json').end(JSON.stringify(body), true);
        });
      };
      if (stopping) {
        refuse(
          '503 Service Unavailable',
          [['retry-after', '1']],
          { error: 'Service shutting down; reconnect shortly' },
          'shutting_down',
        );
        return;
      }
      if (vsn && vsn !== PROTOCOL_VSN) {
        refuse(
          '400 Bad Request',
          [],
          { error: `vsn ${vsn} is not supported; connect with vsn=${PROTOCOL_VSN}` },
          'vsn',
        );
        return;
      }
      if (sockets.size + handshaking >= CONNECTIONS_MAX) {
        refuse(
          '503 Service Unavailable',
          [['retry-after', '5']],
          { error: 'Too many connections; retry shortly' },
          'capacity',
        );
        return;
      }
      const limits = options.limits();
      const address = addressKey(remoteAddress);
      if (byAddress.of(address) >= limits.connections_per_address) {
        refuse(
          '429 Too Many Requests',
          [['retry-after', '5']],
          {
            error: `Too many connections from this address (at most ${limits.connections_per_address}); close one before opening another`,
          },
          'address_cap',
        );
        return;
      }
      // reserved now, judged after the credential check: concurrent handshakes count at once
      byAddress.add(address);
      handshaking += 1;
      let reserved = true;
      const unreserve = (): void => {
        if (!reserved) return;
        reserved = false;
        handshaking -= 1;
        byAddress.remove(address);
      };
      const request: HandshakeRequest = {
        method: 'GET',
        pathWithQuery,
        header: (name) => headers.get(name.toLowerCase()),
        remoteAddress,
      };
      identify(request, options.resolver).then(
        (result) => {
          if (aborted) return unreserve();
          if (!result.ok) {
            unreserve();
            const answer = httpRefusalOf(result.refusal);
            refuse(answer.status, answer.headers, answer.body, result.refusal.code);
            return;
          }
          const identityKey = identityKeyOf(result.identity);
          if (identityKey !== null && byIdentity.of(identityKey) >= options.limits().connections_per_identity) {
            unreserve();
            refuse(
              '429 Too Many Requests',
              [['retry-after', '5']],
              {
                error: `Too many connections for this credential's account or application (at most ${options.limits().connections_per_identity}); close one before opening another`,
              },
              'identity_cap',
            );
            return;
          }
          const now = clockMs();
          const state: SocketState = {
            id: nextSocketId++,
            identity: result.identity,
            credential: result.credential ?? null,
            remoteAddress,
            identityKey,
            lastHeardMs: now,
            joins: new Map(),
            feedTopics: new Map(),
            joinTokens: router.initialJoinTokens(),
            joinTokensAtMs: now,
            closed: false,
            closeReason: null,
            slowSinceMs: null,
            ws: null,
          };
          // the address slot passes to the socket; `open` counts it under its identity
          reserved = false;
          handshaking -= 1;
          if (identityKey !== null) byIdentity.add(identityKey);
          res.cork(() => res.upgrade(state, secKey, protocol, extensions, context));
        },
        (error: unknown) => {
          unreserve();
          if (aborted) return;
          logger.error({ err: error }, 'handshake failed');
          refuse(
            '503 Service Unavailable',
            [['retry-after', '1']],
            { error: 'Service temporarily unavailable; retry shortly' },
            'error',
          );
        },
      );
    },
    open(ws) {
      const socket = ws.getUserData();
      socket.ws = ws;
      socket.lastHeardMs = clockMs();
      sockets.add(socket);
      holders.add(socket, socket.credential);
      metrics.connections.set(sockets.size);
    },
    message(ws, message) {
      router.onMessage(ws.getUserData(), Buffer.from(message).toString('utf8'));
    },
    close(ws, code) {
      const socket = ws.getUserData();
      socket.closed = true;
      const held = joins.closeAll(socket);
      socket.ws = null;
      sockets.delete(socket);
      holders.remove(socket, socket.credential);
      byAddress.remove(addressKey(socket.remoteAddress));
      if (socket.identityKey !== null) byIdentity.remove(socket.identityKey);
      metrics.connections.set(sockets.size);
      const reason = socket.closeReason ?? (code === 1006 ? 'abnormal' : 'client');
      lifecycle?.closed?.(socket, held, reason);
    },
  });
  app.any('/*', (res) => {
    res
      .writeStatus('404 Not Found')
      .writeHeader('content-type', 'application/json')
      .end(JSON.stringify({ error: `Not found: the WebSocket endpoint is ${SOCKET_PATH}?vsn=${PROTOCOL_VSN}` }));
  });

  const sweep = (): void => {
    const now = clockMs();
    const nowUs = now * 1000;
    const monotonic = nowMonotonicMs();
    const timeoutMs = options.heartbeatTimeoutMs();
    for (const socket of sockets) {
      const ws = socket.ws;
      if (!ws || socket.closed) continue;
      const expiresAtUs = socket.credential?.expiresAtUs ?? null;
      if (expiresAtUs !== null && nowUs >= expiresAtUs) {
        logger.info({ socket: socket.id }, 'closing a socket whose credential expired');
        joins.endCredential(socket, 'credential_expired');
        continue;
      }
      if (now - socket.lastHeardMs > timeoutMs) {
        socket.closeReason = 'heartbeat_timeout';
        metrics.heartbeatTimeouts.inc();
        logger.info(
          { socket: socket.id, silentMs: Math.round(now - socket.lastHeardMs), timeoutMs },
          'closing a socket that missed its heartbeats',
        );
        ws.end(CLOSE_HEARTBEAT_TIMEOUT, 'heartbeat timeout');
        continue;
      }
      const buffered = ws.getBufferedAmount();
      if (buffered <= SEND_BUFFER_BYTES_MAX) {
        socket.slowSinceMs = null;
      } else if (socket.slowSinceMs === null) {
        socket.slowSinceMs = monotonic;
      } else if (monotonic - socket.slowSinceMs >= SEND_BUFFER_OVER_BOUND_MS_MAX) {
        socket.closeReason = 'slow_consumer';
        metrics.slowConsumerCloses.inc();
        logger.warn(
          {
            socket: socket.id,
            bufferedBytes: buffered,
            boundBytes: SEND_BUFFER_BYTES_MAX,
            overForMs: Math.round(monotonic - socket.slowSinceMs),
          },
          'closing a slow socket: its send buffer stayed above the bound',
        );
        ws.end(CLOSE_SLOW_CONSUMER, 'too slow: send buffer stayed full');
      }
    }
  };
  /** Something the socket's credential rests on changed: judged again, ended if it no longer holds. */
  const recheck = async (socket: SocketState): Promise<void> => {
    let ended: CredentialEnd | null = null;
    try {
      ended = (await socket.credential?.check()) ?? null;
    } catch (error) {
      logger.warn({ err: error, socket: socket.id }, 'credential check failed after a change; judged at the next join');
    }
    if (ended) joins.endCredential(socket, ended);
  };

  const sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
  sweeper.unref();

  const listenSocket = await new Promise<uWSTypes.us_listen_socket>((resolve, reject) => {
    app.listen('0.0.0.0', options.port, (token) =>
      token ? resolve(token) : reject(new Error(`WebSocket server could not listen on port ${options.port} (WS_PORT)`)),
    );
  });
  const port = uWS.us_socket_local_port(listenSocket);
  hub.attach({
    publish: (topic, message) => app.publish(topic, message, false, false),
    numSubscribers: (topic) => app.numSubscribers(topic),
  });
  logger.info({ port, path: SOCKET_PATH }, 'WebSocket feed listening');

  return {
    port,
    connections: () => sockets.size,
    sweep,
    credentialChanged(key, reason) {
      const holding = holders.holding(key);
      if (holding.length === 0) return;
      if (reason === null) {
        for (const socket of holding) void recheck(socket);
        return;
      }
      logger.info(
        { credential: key.slice(0, key.indexOf(':')), sockets: holding.length, reason },
        'closing sockets whose credential ended',
      );
      for (const socket of holding) joins.endCredential(socket, reason);
    },
    async stop() {
      stopping = true;
      clearInterval(sweeper);
      uWS.us_listen_socket_close(listenSocket);
      for (const socket of [...sockets]) {
        socket.closeReason = 'shutdown';
        socket.ws?.end(CLOSE_SHUTDOWN, 'server shutting down');
      }
      hub.attach(undefined);
    },
  };
}
