// The WebSocket server: uWebSockets.js on WS_PORT, path /socket/websocket, Phoenix Channels V2.
// It owns the sockets: the handshake (credentials → identity, refusals before any upgrade), the
// frame loop (heartbeat, join, leave, a channel's own events), the join lifecycle (hold, answer,
// subscribe), and two sweeps: sockets silent longer than the heartbeat timeout are closed, and so
// are sockets whose send buffer stays above SEND_BUFFER_BYTES_MAX (a slow reader never holds
// up the engine, the projections or the other readers: publishing only appends to buffers).

import { createRequire } from 'node:module';
import type { Logger } from 'pino';
import type uWSTypes from 'uWebSockets.js';
import type { Clock } from '../domain/clock.ts';
import type { Channel, JoinSession } from './channels/channel.ts';
import { httpRefusalOf, identify, type HandshakeRequest, type IdentityResolver } from './handshake.ts';
import type { Holder, Hub } from './hub.ts';
import type { SocketIdentity } from './identity.ts';
import type { RealtimeMetrics } from './metrics.ts';
import {
  EVENT_CLOSE, EVENT_HEARTBEAT, EVENT_JOIN, EVENT_LEAVE, PHOENIX_TOPIC, PROTOCOL_VSN, encodeFrame, encodeReply, parseFrame,
} from './protocol.ts';

const SOCKET_PATH = '/socket/websocket';
/** Largest inbound frame; a bigger one closes the socket (a join naming 1,000 markets is ~40 KB). */
const INBOUND_FRAME_BYTES_MAX = 64 * 1024;
/** Open sockets; past this a handshake is answered 503. */
const CONNECTIONS_MAX = 20_000;
/** Topics one socket may hold joined (or joining) at once. */
const CHANNELS_PER_SOCKET_MAX = 64;
/** Bytes waiting in a socket's send buffer above which it counts as slow. */
const SEND_BUFFER_BYTES_MAX = 1024 * 1024;
/** How long a socket may stay slow before it is closed. */
const SEND_BUFFER_OVER_BOUND_MS_MAX = 2_000;
/**
 * Hard ceiling handed to uWebSockets: a frame that would push a buffer past it closes the socket
 * at once (a message is never silently dropped: a gap in a private channel would go unnoticed).
 */
const SEND_BUFFER_BYTES_HARD_MAX = 16 * 1024 * 1024;
/** How often the heartbeat and back-pressure sweeps run. */
const SWEEP_INTERVAL_MS = 250;
/** Close codes the server uses (4000–4999 are for applications). */
const CLOSE_HEARTBEAT_TIMEOUT = 4001;
const CLOSE_SLOW_CONSUMER = 4002;
const CLOSE_BAD_FRAME = 4003;
const CLOSE_SHUTDOWN = 1001;

type UWS = typeof uWSTypes;

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

export interface SocketState {
  id: number;
  identity: SocketIdentity;
  remoteAddress: string | null;
  /** Clock time of the last frame from the client, ms. */
  lastHeardMs: number;
  joins: Map<string, JoinState>;
  closed: boolean;
  closeReason: string | null;
  /** Since when (monotonic ms) the send buffer has been above SEND_BUFFER_BYTES_MAX. */
  slowSinceMs: number | null;
  ws: uWSTypes.WebSocket<SocketState> | null;
}

interface JoinState extends Holder {
  topic: string;
  name: string;
  joinRef: string | null;
  joined: boolean;
  heldTopics: string[];
  topics: readonly string[];
  session: JoinSession | undefined;
}

export interface SocketLifecycle {
  /** A join was answered ok. */
  joined?(socket: SocketState, channelName: string): void;
  /** A join ended while the socket stays open (leave, or replaced by a rejoin). */
  left?(socket: SocketState, channelName: string): void;
  /** The socket closed; `channels` are the names it still held. */
  closed?(socket: SocketState, channels: readonly string[], reason: string): void;
}

interface RealtimeServerOptions {
  port: number;
  logger: Logger;
  clock: Clock;
  hub: Hub;
  channels: readonly Channel[];
  resolver: IdentityResolver | undefined;
  heartbeatTimeoutMs(): number;
  metrics: RealtimeMetrics;
  lifecycle?: SocketLifecycle;
}

export interface RealtimeServer {
  port: number;
  /** Open sockets (tests, diagnostics). */
  connections(): number;
  /** Runs both sweeps now (tests drive them after moving the test clock). */
  sweep(): void;
  stop(): Promise<void>;
}

const nowMonotonicMs = () => performance.now();

function normaliseAddress(text: string): string | null {
  if (text === '') return null;
  const mapped = /^(?:0{1,4}:){5}ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(text) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(text);
  if (mapped) {
    const high = parseInt(mapped[1]!, 16);
    const low = parseInt(mapped[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  return dotted ? dotted[1]! : text;
}

function selectProtocol(offered: string): string {
  const protocols = offered.split(',').map((p) => p.trim());
  return protocols.includes('phoenix') ? 'phoenix' : '';
}

export async function startRealtimeServer(options: RealtimeServerOptions): Promise<RealtimeServer> {
  const uWS = loadNativeUws();
  const { logger, clock, hub, metrics, lifecycle } = options;
  const channels = new Map(options.channels.map((channel) => [channel.name, channel]));
  const sockets = new Set<SocketState>();
  let nextSocketId = 1;
  let stopping = false;
  const clockMs = () => clock.nowUs() / 1000;

  const send = (socket: SocketState, frame: string): void => {
    if (!socket.closed && socket.ws) socket.ws.send(frame, false, false);
  };

  const endJoin = (socket: SocketState, join: JoinState, notify: boolean): void => {
    hub.release(join, join.heldTopics);
    join.heldTopics = [];
    if (socket.ws && !socket.closed) for (const topic of join.topics) socket.ws.unsubscribe(topic);
    try {
      join.session?.leave?.();
    } catch (error) {
      logger.warn({ err: error, topic: join.topic }, 'channel leave failed');
    }
    if (join.joined && notify) lifecycle?.left?.(socket, join.name);
    join.joined = false;
  };

  const handleJoin = async (socket: SocketState, joinRef: string | null, ref: string | null, topic: string, payload: Record<string, unknown>): Promise<void> => {
    const colon = topic.indexOf(':');
    const name = colon < 0 ? topic : topic.slice(0, colon);
    const suffix = colon < 0 ? null : topic.slice(colon + 1);
    const channel = channels.get(name);
    if (!channel) {
      send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched topic' }));
      return;
    }
    const previous = socket.joins.get(topic);
    // a second join of a topic replaces the first (how a client resynchronises); the socket is
    // not told it left until the new join is refused
    const replacedJoined = previous?.joined ?? false;
    if (previous) {
      socket.joins.delete(topic);
      endJoin(socket, previous, false);
      if (replacedJoined) send(socket, encodeFrame(previous.joinRef, previous.joinRef, topic, EVENT_CLOSE, {}));
    }
    if (socket.joins.size >= CHANNELS_PER_SOCKET_MAX) {
      if (replacedJoined) lifecycle?.left?.(socket, name);
      send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'too many channels', channels_max: CHANNELS_PER_SOCKET_MAX }));
      return;
    }
    const join: JoinState = { topic, name, joinRef, joined: false, held: [], overflowed: false, heldTopics: [], topics: [], session: undefined };
    socket.joins.set(topic, join);
    const current = () => !socket.closed && socket.joins.get(topic) === join;
    let outcome;
    try {
      outcome = await channel.join({
        identity: socket.identity,
        topic,
        name,
        suffix,
        payload,
        hold(topics) {
          if (!current()) return;
          hub.hold(join, topics);
          join.heldTopics.push(...topics);
        },
        push(event, body) {
          if (current() && join.joined) send(socket, encodeFrame(joinRef, null, topic, event, body));
        },
      });
    } catch (error) {
      logger.error({ err: error, topic }, 'channel join failed');
      outcome = { ok: false as const, refusal: { reason: 'unavailable' } };
    }
    if (!current()) {
      // closed meanwhile, or replaced by a newer join of the topic (which owns the lifecycle now)
      hub.release(join, join.heldTopics);
      if (outcome.ok) outcome.session?.leave?.();
      return;
    }
    hub.release(join, join.heldTopics);
    join.heldTopics = [];
    if (!outcome.ok || join.overflowed) {
      socket.joins.delete(topic);
      if (outcome.ok) outcome.session?.leave?.();
      const refusal = outcome.ok ? { reason: 'busy', detail: 'too many updates while reading the snapshot; join again' } : outcome.refusal;
      if (replacedJoined) lifecycle?.left?.(socket, name);
      send(socket, encodeReply(joinRef, ref, topic, 'error', refusal));
      return;
    }
    const response = outcome.response();
    const ws = socket.ws!;
    ws.cork(() => {
      ws.send(encodeReply(joinRef, ref, topic, 'ok', response), false, false);
      for (const frame of join.held) ws.send(frame, false, false);
      for (const feedTopic of outcome.topics) ws.subscribe(feedTopic);
    });
    join.held = [];
    join.topics = outcome.topics;
    join.session = outcome.session;
    join.joined = true;
    lifecycle?.joined?.(socket, name);
  };

  const handleLeave = (socket: SocketState, joinRef: string | null, ref: string | null, topic: string): void => {
    const join = socket.joins.get(topic);
    if (!join) {
      send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched topic' }));
      return;
    }
    socket.joins.delete(topic);
    endJoin(socket, join, true);
    send(socket, encodeReply(joinRef, ref, topic, 'ok', {}));
    send(socket, encodeFrame(join.joinRef, join.joinRef, topic, EVENT_CLOSE, {}));
  };

  const handleIn = async (socket: SocketState, joinRef: string | null, ref: string | null, topic: string, event: string, payload: Record<string, unknown>): Promise<void> => {
    const join = socket.joins.get(topic);
    if (!join || !join.joined) {
      send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched topic' }));
      return;
    }
    if (!join.session?.handleIn) {
      send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched event', event }));
      return;
    }
    let reply;
    try {
      reply = await join.session.handleIn(event, payload);
    } catch (error) {
      logger.error({ err: error, topic, event }, 'channel event failed');
      reply = { status: 'error' as const, response: { reason: 'unavailable' } };
    }
    if (socket.joins.get(topic) === join) send(socket, encodeReply(joinRef, ref, topic, reply.status, reply.response));
  };

  const onMessage = (socket: SocketState, text: string): void => {
    socket.lastHeardMs = clockMs();
    const frame = parseFrame(text);
    if (typeof frame === 'string') {
      logger.info({ socket: socket.id, problem: frame }, 'closing a socket that sent a malformed frame');
      socket.closeReason = 'bad_frame';
      socket.ws?.end(CLOSE_BAD_FRAME, 'frames must be [join_ref, ref, topic, event, payload] (vsn 2.0.0)');
      return;
    }
    const { joinRef, ref, topic, event, payload } = frame;
    if (topic === PHOENIX_TOPIC) {
      if (event === EVENT_HEARTBEAT) send(socket, encodeReply(null, ref, PHOENIX_TOPIC, 'ok', {}));
      else send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched topic' }));
      return;
    }
    if (event === EVENT_JOIN) void handleJoin(socket, joinRef, ref, topic, payload);
    else if (event === EVENT_LEAVE) handleLeave(socket, joinRef, ref, topic);
    else void handleIn(socket, joinRef, ref, topic, event, payload);
  };

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
      const remoteAddress = normaliseAddress(Buffer.from(res.getRemoteAddressAsText()).toString());
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
        refuse('503 Service Unavailable', [['retry-after', '1']], { error: 'Service shutting down; reconnect shortly' }, 'shutting_down');
        return;
      }
      if (vsn && vsn !== PROTOCOL_VSN) {
        refuse('400 Bad Request', [], { error: `vsn ${vsn} is not supported; connect with vsn=${PROTOCOL_VSN}` }, 'vsn');
        return;
      }
      if (sockets.size >= CONNECTIONS_MAX) {
        refuse('503 Service Unavailable', [['retry-after', '5']], { error: 'Too many connections; retry shortly' }, 'capacity');
        return;
      }
      const request: HandshakeRequest = { method: 'GET', pathWithQuery, header: (name) => headers.get(name.toLowerCase()), remoteAddress };
      identify(request, options.resolver).then(
        (result) => {
          if (aborted) return;
          if (!result.ok) {
            const answer = httpRefusalOf(result.refusal);
            refuse(answer.status, answer.headers, answer.body, result.refusal.code);
            return;
          }
          const state: SocketState = {
            id: nextSocketId++, identity: result.identity, remoteAddress, lastHeardMs: clockMs(), joins: new Map(),
            closed: false, closeReason: null, slowSinceMs: null, ws: null,
          };
          res.cork(() => res.upgrade(state, secKey, protocol, extensions, context));
        },
        (error: unknown) => {
          if (aborted) return;
          logger.error({ err: error }, 'handshake failed');
          refuse('503 Service Unavailable', [['retry-after', '1']], { error: 'Service temporarily unavailable; retry shortly' }, 'error');
        },
      );
    },
    open(ws) {
      const socket = ws.getUserData();
      socket.ws = ws;
      socket.lastHeardMs = clockMs();
      sockets.add(socket);
      metrics.connections.set(sockets.size);
    },
    message(ws, message) {
      onMessage(ws.getUserData(), Buffer.from(message).toString('utf8'));
    },
    close(ws, code) {
      const socket = ws.getUserData();
      const held = [...socket.joins.values()].filter((join) => join.joined).map((join) => join.name);
      socket.closed = true;
      for (const join of socket.joins.values()) endJoin(socket, join, false);
      socket.joins.clear();
      socket.ws = null;
      sockets.delete(socket);
      metrics.connections.set(sockets.size);
      const reason = socket.closeReason ?? (code === 1006 ? 'abnormal' : 'client');
      lifecycle?.closed?.(socket, held, reason);
    },
  });
  app.any('/*', (res) => {
    res.writeStatus('404 Not Found').writeHeader('content-type', 'application/json')
      .end(JSON.stringify({ error: `Not found: the WebSocket endpoint is ${SOCKET_PATH}?vsn=${PROTOCOL_VSN}` }));
  });

  const sweep = (): void => {
    const now = clockMs();
    const monotonic = nowMonotonicMs();
    const timeoutMs = options.heartbeatTimeoutMs();
    for (const socket of sockets) {
      const ws = socket.ws;
      if (!ws || socket.closed) continue;
      if (now - socket.lastHeardMs > timeoutMs) {
        socket.closeReason = 'heartbeat_timeout';
        metrics.heartbeatTimeouts.inc();
        logger.info({ socket: socket.id, silentMs: Math.round(now - socket.lastHeardMs), timeoutMs }, 'closing a socket that missed its heartbeats');
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
          { socket: socket.id, bufferedBytes: buffered, boundBytes: SEND_BUFFER_BYTES_MAX, overForMs: Math.round(monotonic - socket.slowSinceMs) },
          'closing a slow socket: its send buffer stayed above the bound',
        );
        ws.end(CLOSE_SLOW_CONSUMER, 'too slow: send buffer stayed full');
      }
    }
  };
  const sweeper = setInterval(sweep, SWEEP_INTERVAL_MS);
  sweeper.unref();

  const listenSocket = await new Promise<uWSTypes.us_listen_socket>((resolve, reject) => {
    app.listen('0.0.0.0', options.port, (token) => (token ? resolve(token) : reject(new Error(`WebSocket server could not listen on port ${options.port} (WS_PORT)`))));
  });
  const port = uWS.us_socket_local_port(listenSocket as uWSTypes.us_socket);
  hub.attach({ publish: (topic, message) => app.publish(topic, message, false, false), numSubscribers: (topic) => app.numSubscribers(topic) });
  logger.info({ port, path: SOCKET_PATH }, 'WebSocket feed listening');

  return {
    port,
    connections: () => sockets.size,
    sweep,
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
