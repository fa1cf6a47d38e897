// The WebSocket server, Phoenix Channels V2 at ws://HOST:WS_PORT/socket/websocket, in three parts:
//   transport.ts  uWebSockets.js: upgrade (caps, credentials), open/close, sweeps
//   router.ts     each frame to where it belongs (heartbeat, join rate, current join_ref)
//   joins.ts      the join lifecycle (hold, answer, subscribe; leave, replace, credential end)
// This file assembles them.

import type { Logger } from 'pino';
import type { Clock } from '../domain/clock.ts';
import type { Channel } from './channels/channel.ts';
import type { IdentityResolver } from './handshake.ts';
import type { Hub } from './hub.ts';
import { JoinLifecycle } from './joins.ts';
import type { RealtimeMetrics } from './metrics.ts';
import { SocketRouter } from './router.ts';
import type { SocketLifecycle } from './socket.ts';
import { startTransport, type ConnectionLimits, type Transport } from './transport.ts';

export type { SocketLifecycle, SocketState } from './socket.ts';

/** The operator setting `websocket_limits`: per-client socket caps and the join rate. */
export interface WebsocketLimits extends ConnectionLimits {
  joins_per_second: number;
}

interface RealtimeServerOptions {
  port: number;
  logger: Logger;
  clock: Clock;
  hub: Hub;
  channels: readonly Channel[];
  resolver: IdentityResolver | undefined;
  heartbeatTimeoutMs(): number;
  limits(): WebsocketLimits;
  metrics: RealtimeMetrics;
  lifecycle?: SocketLifecycle;
}

/** The running feed: the transport's handle (its port, open sockets, sweeps, credential changes, stop). */
export type RealtimeServer = Transport;

export async function startRealtimeServer(options: RealtimeServerOptions): Promise<RealtimeServer> {
  const { logger, clock } = options;
  const joins = new JoinLifecycle({
    logger,
    hub: options.hub,
    channels: options.channels,
    metrics: options.metrics,
    lifecycle: options.lifecycle,
  });
  const router = new SocketRouter({
    logger,
    joins,
    clockMs: () => clock.nowUs() / 1000,
    joinsPerSecond: () => options.limits().joins_per_second,
  });
  return startTransport({
    port: options.port,
    logger,
    clock,
    hub: options.hub,
    resolver: options.resolver,
    heartbeatTimeoutMs: options.heartbeatTimeoutMs,
    limits: options.limits,
    metrics: options.metrics,
    router,
    joins,
    lifecycle: options.lifecycle,
  });
}
