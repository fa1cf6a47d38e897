// The feed's metrics, registered on the service's /metrics registry.

import { Counter, Gauge, type Registry } from 'prom-client';

export interface RealtimeMetrics {
  connections: Gauge;
  framesPublished: Counter;
  handshakeRefusals: Counter<'reason'>;
  heartbeatTimeouts: Counter;
  slowConsumerCloses: Counter;
  credentialCloses: Counter<'reason'>;
  cancelOnDisconnect: Counter<'outcome'>;
}

export function createRealtimeMetrics(registry: Registry): RealtimeMetrics {
  const registers = [registry];
  return {
    connections: new Gauge({ name: 'ws_connections', help: 'Open WebSocket connections', registers }),
    framesPublished: new Counter({
      name: 'ws_frames_published_total',
      help: 'Frames published on feed topics (each serialised once, copied to every subscriber)',
      registers,
    }),
    handshakeRefusals: new Counter({
      name: 'ws_handshake_refusals_total',
      help: 'WebSocket handshakes refused, by reason',
      labelNames: ['reason'],
      registers,
    }),
    heartbeatTimeouts: new Counter({
      name: 'ws_heartbeat_timeouts_total',
      help: 'Sockets closed for missing heartbeats (ws_heartbeat_timeout_ms)',
      registers,
    }),
    slowConsumerCloses: new Counter({
      name: 'ws_slow_consumer_closes_total',
      help: 'Sockets closed because their send buffer stayed above the bound',
      registers,
    }),
    credentialCloses: new Counter({
      name: 'ws_credential_closes_total',
      help: 'Sockets closed because their credential ended, by reason',
      labelNames: ['reason'],
      registers,
    }),
    cancelOnDisconnect: new Counter({
      name: 'ws_cancel_on_disconnect_total',
      help: 'Cancel-on-disconnect requests sent to the engine, by outcome',
      labelNames: ['outcome'],
      registers,
    }),
  };
}
