// What the feed holds per open socket, shared by the transport (transport.ts), the socket router
// (router.ts) and the join lifecycle (joins.ts): who it is, the credential it connected with,
// its joins by Phoenix topic, and the feed topics it is subscribed to.

import type uWSTypes from 'uWebSockets.js';
import type { JoinSession } from './channels/channel.ts';
import type { SocketCredential } from './credential.ts';
import type { Holder } from './hub.ts';
import type { SocketIdentity } from './identity.ts';

export interface SocketState {
  id: number;
  identity: SocketIdentity;
  /** What the socket's identity rests on; null for an anonymous socket. */
  credential: SocketCredential | null;
  remoteAddress: string | null;
  /** The key the per-identity connection cap counts under; null for an anonymous socket. */
  identityKey: string | null;
  /** Clock time of the last frame from the client, ms. */
  lastHeardMs: number;
  joins: Map<string, JoinState>;
  /** Feed topics this socket is subscribed to, with how many of its joins hold each. */
  feedTopics: Map<string, number>;
  /** Joins the socket may still start now (refilled at the joins-per-second setting). */
  joinTokens: number;
  /** Service-clock ms when `joinTokens` was last refilled. */
  joinTokensAtMs: number;
  closed: boolean;
  closeReason: string | null;
  /** Since when (monotonic ms) the send buffer has been above SEND_BUFFER_BYTES_MAX. */
  slowSinceMs: number | null;
  ws: uWSTypes.WebSocket<SocketState> | null;
}

export interface JoinState extends Holder {
  topic: string;
  name: string;
  joinRef: string | null;
  joined: boolean;
  heldTopics: string[];
  topics: readonly string[];
  session: JoinSession | undefined;
  /** Resolves once this join's channel work has finished (answered, refused or abandoned). */
  settled: Promise<void>;
}

export interface SocketLifecycle {
  /** A join was answered ok. */
  joined?(socket: SocketState, channelName: string): void;
  /** A join ended while the socket stays open (leave, or replaced by a rejoin). */
  left?(socket: SocketState, channelName: string): void;
  /** The socket closed; `channels` are the names it still held. */
  closed?(socket: SocketState, channels: readonly string[], reason: string): void;
}

/** Close codes the server uses (4000–4999 are for applications). */
export const CLOSE_HEARTBEAT_TIMEOUT = 4001;
export const CLOSE_SLOW_CONSUMER = 4002;
export const CLOSE_BAD_FRAME = 4003;
export const CLOSE_CREDENTIAL_ENDED = 4004;
export const CLOSE_SHUTDOWN = 1001;
