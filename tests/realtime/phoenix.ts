// Test clients of the WebSocket feed: the official `phoenix` client, unmodified, over the `ws`
// package with a transport that sends handshake headers (signed exactly as on REST: over GET and
// the path with its query string, the URL the client itself builds), and a raw `ws` handshake
// for asserting HTTP refusals the Phoenix client cannot see.

import { Socket, type Channel } from 'phoenix';
import WebSocket from 'ws';
import { signedHeaders, USER_AGENT, type ApiKey } from '../api/v1/harness.ts';

export interface Credentials {
  key?: Pick<ApiKey, 'key_id' | 'private_key'>;
  oauthToken?: string;
  /** Extra or replacement headers (null removes the User-Agent). */
  headers?: Record<string, string>;
  userAgent?: string | null;
  /** Clock for the signed timestamp, ms. */
  nowMs?: () => number;
}

export function handshakeHeaders(url: string, credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = {};
  if (credentials.userAgent !== null) headers['user-agent'] = credentials.userAgent ?? USER_AGENT;
  if (credentials.key) {
    const target = new URL(url);
    Object.assign(
      headers,
      signedHeaders(credentials.key, 'GET', `${target.pathname}${target.search}`, credentials.nowMs?.() ?? Date.now()),
    );
  }
  if (credentials.oauthToken !== undefined) headers['x-svc-oauth-token'] = credentials.oauthToken;
  Object.assign(headers, credentials.headers ?? {});
  return headers;
}

/** A transport class for `new Socket(url, {transport})`: the `ws` WebSocket with our headers. */
export function transportWith(credentials: Credentials): new (url: string, protocols?: string | string[]) => WebSocket {
  return class HeaderTransport extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers: handshakeHeaders(url, credentials) });
    }
  };
}

export interface Connected {
  socket: Socket;
  close(): void;
}

/** Opens a Phoenix socket and waits until it is connected. */
export async function connect(
  socketUrl: string,
  credentials: Credentials = {},
  options: { heartbeatIntervalMs?: number } = {},
): Promise<Connected> {
  const socket = new Socket(socketUrl, {
    transport: transportWith(credentials),
    heartbeatIntervalMs: options.heartbeatIntervalMs ?? 30_000,
    reconnectAfterMs: () => 60_000, // tests reconnect on purpose only
    rejoinAfterMs: () => 60_000,
  });
  await new Promise<void>((resolve, reject) => {
    const opened = socket.onOpen(() => {
      socket.off([opened, failed]);
      resolve();
    });
    const failed = socket.onError((error: unknown) => {
      socket.off([opened, failed]);
      socket.disconnect();
      reject(new Error(`socket failed to open: ${String((error as { message?: string })?.message ?? error)}`));
    });
    socket.connect();
  });
  return { socket, close: () => socket.disconnect() };
}

/** Resolves when the Phoenix client reports the connection failed (it never opened). */
export async function connectionRefused(socketUrl: string, credentials: Credentials): Promise<void> {
  const socket = new Socket(socketUrl, { transport: transportWith(credentials), reconnectAfterMs: () => 60_000 });
  await new Promise<void>((resolve, reject) => {
    socket.onOpen(() => {
      socket.disconnect();
      reject(new Error('the socket opened'));
    });
    socket.onError(() => {
      socket.disconnect();
      resolve();
    });
    socket.connect();
  });
}

export interface Joined {
  channel: Channel;
  response: any;
  /** Every push received on the channel since the join was sent, in order. */
  messages: Array<{ event: string; payload: any }>;
  /** Resolves with the first push (already received or next) of `event` matching `match`. */
  next(event: string, match?: (payload: any) => boolean): Promise<any>;
  leave(): Promise<void>;
}

const PUSH_EVENTS = ['update', 'delta', 'ticker', 'trade', 'market', 'volume', 'slip'];

/** Joins a topic; rejects with the error reply's response (an Error whose `response` is it). */
export function join(connected: Connected, topic: string, payload: object = {}): Promise<Joined> {
  const channel = connected.socket.channel(topic, payload);
  const messages: Array<{ event: string; payload: any }> = [];
  const waiters: Array<{ event: string; match: (p: any) => boolean; seen: number; resolve(p: any): void }> = [];
  for (const event of PUSH_EVENTS) {
    channel.on(event, (body) => {
      messages.push({ event, payload: body });
      for (const waiter of [...waiters]) {
        if (waiter.event === event && waiter.match(body)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(body);
        }
      }
    });
  }
  return new Promise<Joined>((resolve, reject) => {
    channel
      .join()
      .receive('ok', (response) => {
        resolve({
          channel,
          response,
          messages,
          next(event, match = () => true) {
            const found = messages.find((m) => m.event === event && match(m.payload));
            if (found) return Promise.resolve(found.payload);
            return new Promise((resolveNext) =>
              waiters.push({ event, match, seen: messages.length, resolve: resolveNext }),
            );
          },
          leave: () =>
            new Promise<void>((resolveLeave) => {
              channel
                .leave()
                .receive('ok', () => resolveLeave())
                .receive('timeout', () => resolveLeave());
            }),
        });
      })
      .receive('error', (response) => {
        channel.leave();
        reject(Object.assign(new Error(`join ${topic} refused: ${JSON.stringify(response)}`), { response }));
      })
      .receive('timeout', () => reject(new Error(`join ${topic} timed out`)));
  });
}

/** The join's error reply (fails the test if the join succeeds). */
export async function refusedJoin(connected: Connected, topic: string, payload: object = {}): Promise<any> {
  try {
    await join(connected, topic, payload);
  } catch (error) {
    const response = (error as { response?: unknown }).response;
    if (response !== undefined) return response;
    throw error;
  }
  throw new Error(`join ${topic} was accepted`);
}

/** A raw handshake: the HTTP status and headers of a refusal, or 101 when it upgraded. */
export function rawHandshake(
  socketUrl: string,
  credentials: Credentials,
  path = '/websocket?vsn=2.0.0',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = `${socketUrl}${path}`;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: handshakeHeaders(url, credentials) });
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    ws.on('open', () => {
      ws.close();
      resolve({ status: 101, headers: {}, body: '' });
    });
    ws.on('error', (error) => {
      if (!ws.listenerCount('unexpected-response')) reject(error);
    });
  });
}
