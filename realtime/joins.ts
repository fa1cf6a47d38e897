// The join lifecycle: a join is decided by its channel, held while its snapshot is read, answered,
// and subscribed in one synchronous step (channels/channel.ts); it ends by leave, by a newer join
// of the same topic, by its credential ending, or by the socket closing.
//
// - One topic, one join: a second join of a topic replaces the first (how a client
//   resynchronises). The newer join starts its channel work only once the one it replaced has
//   settled, and a join replaced before it started reads nothing: a burst of joins of one topic
//   costs the reads of two joins, not of every frame.
// - Public topics take no suffix (`events:abc` is an unmatched topic); private ones are suffixed
//   with the member's user id (their channels check it).
// - Feed topics are counted per socket: two joins holding one feed topic keep the socket
//   subscribed until the last of them ends.
// - Every join of a socket with a credential first checks it is still live.

import type { Logger } from 'pino';
import type { Channel, JoinOutcome } from './channels/channel.ts';
import type { CredentialEnd } from './credential.ts';
import type { Hub } from './hub.ts';
import type { RealtimeMetrics } from './metrics.ts';
import { EVENT_CLOSE, encodeFrame, encodeReply } from './protocol.ts';
import { CLOSE_CREDENTIAL_ENDED, type JoinState, type SocketLifecycle, type SocketState } from './socket.ts';

/** Topics one socket may hold joined (or joining) at once. */
export const CHANNELS_PER_SOCKET_MAX = 64;

interface JoinLifecycleOptions {
  logger: Logger;
  hub: Hub;
  channels: readonly Channel[];
  metrics: RealtimeMetrics;
  lifecycle?: SocketLifecycle;
}

const settledAlready: Promise<void> = Promise.resolve();

export class JoinLifecycle {
  private readonly channels: Map<string, Channel>;
  private readonly logger: Logger;
  private readonly hub: Hub;
  private readonly lifecycle: SocketLifecycle | undefined;
  private readonly metrics: RealtimeMetrics;

  constructor(options: JoinLifecycleOptions) {
    this.metrics = options.metrics;
    this.channels = new Map(options.channels.map((channel) => [channel.name, channel]));
    this.logger = options.logger;
    this.hub = options.hub;
    this.lifecycle = options.lifecycle;
  }

  send(socket: SocketState, frame: string): void {
    if (!socket.closed && socket.ws) socket.ws.send(frame, false, false);
  }

  /** The channel a topic names, or null when no channel takes it (unknown name, or a suffix on a public topic). */
  channelOf(topic: string): { channel: Channel; name: string; suffix: string | null } | null {
    const colon = topic.indexOf(':');
    const name = colon < 0 ? topic : topic.slice(0, colon);
    const suffix = colon < 0 ? null : topic.slice(colon + 1);
    const channel = this.channels.get(name);
    if (!channel) return null;
    if (suffix !== null && !channel.suffixed) return null;
    return { channel, name, suffix };
  }

  async join(
    socket: SocketState,
    joinRef: string | null,
    ref: string | null,
    topic: string,
    payload: Record<string, unknown>,
  ): Promise<void> {
    const route = this.channelOf(topic);
    if (!route) {
      this.send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched topic' }));
      return;
    }
    const { channel, name, suffix } = route;
    const previous = socket.joins.get(topic);
    // a second join of a topic replaces the first; the socket is not told it left until the new
    // join is refused
    const replacedJoined = previous?.joined ?? false;
    if (previous) {
      socket.joins.delete(topic);
      this.endJoin(socket, previous, false);
      if (replacedJoined) this.send(socket, encodeFrame(previous.joinRef, previous.joinRef, topic, EVENT_CLOSE, {}));
    }
    if (socket.joins.size >= CHANNELS_PER_SOCKET_MAX) {
      if (replacedJoined) this.lifecycle?.left?.(socket, name);
      this.send(
        socket,
        encodeReply(joinRef, ref, topic, 'error', {
          reason: 'too many channels',
          channels_max: CHANNELS_PER_SOCKET_MAX,
        }),
      );
      return;
    }
    let settle!: () => void;
    const join: JoinState = {
      topic,
      name,
      joinRef,
      joined: false,
      held: [],
      overflowed: false,
      heldTopics: [],
      topics: [],
      session: undefined,
      settled: new Promise<void>((resolve) => (settle = resolve)),
    };
    socket.joins.set(topic, join);
    const current = () => !socket.closed && socket.joins.get(topic) === join;
    try {
      // the replaced join's reads finish first; a join replaced meanwhile reads nothing
      await (previous?.settled ?? settledAlready);
      if (!current()) return;
      if (socket.credential) {
        const ended = await this.credentialEnded(socket);
        if (!current()) return;
        if (ended) {
          socket.joins.delete(topic);
          if (replacedJoined) this.lifecycle?.left?.(socket, name);
          this.send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: ended }));
          this.endCredential(socket, ended);
          return;
        }
      }
      const outcome = await this.decide(socket, join, channel, suffix, payload, current);
      this.answer(socket, join, ref, outcome, replacedJoined, current);
    } finally {
      settle();
    }
  }

  private async credentialEnded(socket: SocketState): Promise<CredentialEnd | null> {
    try {
      return await socket.credential!.check();
    } catch (error) {
      this.logger.warn({ err: error, socket: socket.id }, 'credential check failed at a join; judged at the next join');
      return null;
    }
  }

  private async decide(
    socket: SocketState,
    join: JoinState,
    channel: Channel,
    suffix: string | null,
    payload: Record<string, unknown>,
    current: () => boolean,
  ): Promise<JoinOutcome> {
    const { topic, name, joinRef } = join;
    try {
      return await channel.join({
        identity: socket.identity,
        topic,
        name,
        suffix,
        payload,
        current,
        hold: (topics) => {
          if (!current()) return;
          this.hub.hold(join, topics);
          join.heldTopics.push(...topics);
        },
        push: (event, body) => {
          if (current() && join.joined) this.send(socket, encodeFrame(joinRef, null, topic, event, body));
        },
      });
    } catch (error) {
      if (!current()) return { ok: false, refusal: { reason: 'unavailable' } }; // abandoned: nobody hears it
      this.logger.error({ err: error, topic }, 'channel join failed');
      return { ok: false, refusal: { reason: 'unavailable' } };
    }
  }

  private answer(
    socket: SocketState,
    join: JoinState,
    ref: string | null,
    outcome: JoinOutcome,
    replacedJoined: boolean,
    current: () => boolean,
  ): void {
    const { topic, name, joinRef } = join;
    if (!current()) {
      // closed meanwhile, or replaced by a newer join of the topic (which owns the lifecycle now)
      this.hub.release(join, join.heldTopics);
      if (outcome.ok) outcome.session?.leave?.();
      return;
    }
    this.hub.release(join, join.heldTopics);
    join.heldTopics = [];
    if (!outcome.ok || join.overflowed || outcome.overflowed?.()) {
      socket.joins.delete(topic);
      if (outcome.ok) outcome.session?.leave?.();
      const refusal = outcome.ok
        ? { reason: 'busy', detail: 'too many updates while reading the snapshot; join again' }
        : outcome.refusal;
      if (replacedJoined) this.lifecycle?.left?.(socket, name);
      this.send(socket, encodeReply(joinRef, ref, topic, 'error', refusal));
      return;
    }
    const response = outcome.response();
    const ws = socket.ws!;
    ws.cork(() => {
      ws.send(encodeReply(joinRef, ref, topic, 'ok', response), false, false);
      for (const frame of join.held) ws.send(frame, false, false);
      for (const feedTopic of outcome.topics) {
        const holders = socket.feedTopics.get(feedTopic) ?? 0;
        if (holders === 0) ws.subscribe(feedTopic);
        socket.feedTopics.set(feedTopic, holders + 1);
      }
    });
    join.held = [];
    join.topics = outcome.topics;
    join.session = outcome.session;
    join.joined = true;
    if (outcome.afterReply) ws.cork(() => outcome.afterReply?.());
    this.lifecycle?.joined?.(socket, name);
  }

  /** `phx_leave` of the topic's current join. */
  leave(socket: SocketState, join: JoinState, ref: string | null, joinRef: string | null): void {
    socket.joins.delete(join.topic);
    this.endJoin(socket, join, true);
    this.send(socket, encodeReply(joinRef, ref, join.topic, 'ok', {}));
    this.send(socket, encodeFrame(join.joinRef, join.joinRef, join.topic, EVENT_CLOSE, {}));
  }

  /** A client event on the topic's current join (answered only while that join is still current). */
  async handleIn(
    socket: SocketState,
    join: JoinState,
    joinRef: string | null,
    ref: string | null,
    event: string,
    payload: Record<string, unknown>,
  ): Promise<void> {
    const { topic } = join;
    if (!join.joined) {
      this.send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched topic' }));
      return;
    }
    if (!join.session?.handleIn) {
      this.send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched event', event }));
      return;
    }
    let reply;
    try {
      reply = await join.session.handleIn(event, payload);
    } catch (error) {
      this.logger.error({ err: error, topic, event }, 'channel event failed');
      reply = { status: 'error' as const, response: { reason: 'unavailable' } };
    }
    if (socket.joins.get(topic) === join)
      this.send(socket, encodeReply(joinRef, ref, topic, reply.status, reply.response));
  }

  /** The socket's credential ended: every join is closed with the reason, then the socket. */
  endCredential(socket: SocketState, reason: CredentialEnd): void {
    if (socket.closed || !socket.ws || socket.closeReason !== null) return;
    const ws = socket.ws;
    ws.cork(() => {
      for (const join of [...socket.joins.values()]) {
        socket.joins.delete(join.topic);
        const wasJoined = join.joined;
        // not a `left`: the socket closes next, and its guarded channels count as a disconnect
        this.endJoin(socket, join, false);
        if (wasJoined)
          ws.send(encodeFrame(join.joinRef, join.joinRef, join.topic, EVENT_CLOSE, { reason }), false, false);
      }
    });
    socket.closeReason = reason;
    this.metrics.credentialCloses.inc({ reason });
    ws.end(CLOSE_CREDENTIAL_ENDED, `${reason}: connect again with a live credential`);
  }

  /** The socket closed: ends every join; returns the channel names it still held. */
  closeAll(socket: SocketState): string[] {
    const held = [...socket.joins.values()].filter((join) => join.joined).map((join) => join.name);
    for (const join of socket.joins.values()) this.endJoin(socket, join, false);
    socket.joins.clear();
    return held;
  }

  private endJoin(socket: SocketState, join: JoinState, notify: boolean): void {
    this.hub.release(join, join.heldTopics);
    join.heldTopics = [];
    for (const feedTopic of join.topics) {
      const holders = socket.feedTopics.get(feedTopic) ?? 0;
      if (holders > 1) {
        socket.feedTopics.set(feedTopic, holders - 1);
        continue;
      }
      socket.feedTopics.delete(feedTopic);
      if (socket.ws && !socket.closed) socket.ws.unsubscribe(feedTopic);
    }
    join.topics = [];
    try {
      join.session?.leave?.();
    } catch (error) {
      this.logger.warn({ err: error, topic: join.topic }, 'channel leave failed');
    }
    if (join.joined && notify) this.lifecycle?.left?.(socket, join.name);
    join.joined = false;
  }
}
