// The socket router: each inbound frame to where it belongs, as Phoenix's socket does.
//   - a malformed frame closes the socket (4003);
//   - `heartbeat` on `phoenix` is answered; any other event there is an unmatched topic;
//   - `phx_join` spends one of the socket's join tokens (refilled at the `joins_per_second`
//     setting, on the service clock; none left: the join is refused `too many joins`), then
//     goes to the join lifecycle;
//   - anything else goes to the topic's current join, if its `join_ref` is that join's (or
//     null); a frame for an earlier join of the topic is ignored without an answer (the client
//     raced a rejoin or a server close); a topic with no join is an unmatched topic.
// The per-frame path does no more than this: limits and credential checks run at joins.

import type { Logger } from 'pino';
import type { JoinLifecycle } from './joins.ts';
import { EVENT_HEARTBEAT, EVENT_JOIN, EVENT_LEAVE, PHOENIX_TOPIC, encodeReply, parseFrame } from './protocol.ts';
import { CLOSE_BAD_FRAME, type SocketState } from './socket.ts';

interface SocketRouterOptions {
  logger: Logger;
  joins: JoinLifecycle;
  /** The service clock, ms. */
  clockMs(): number;
  /** Joins one socket may start per second (the operator setting). */
  joinsPerSecond(): number;
}

export class SocketRouter {
  constructor(private readonly options: SocketRouterOptions) {}

  /** A fresh socket starts with a full second's worth of joins. */
  initialJoinTokens(): number {
    return this.options.joinsPerSecond();
  }

  onMessage(socket: SocketState, text: string): void {
    const { joins } = this.options;
    socket.lastHeardMs = this.options.clockMs();
    const frame = parseFrame(text);
    if (typeof frame === 'string') {
      this.options.logger.info({ socket: socket.id, problem: frame }, 'closing a socket that sent a malformed frame');
      socket.closeReason = 'bad_frame';
      socket.ws?.end(CLOSE_BAD_FRAME, 'frames must be [join_ref, ref, topic, event, payload] (vsn 2.0.0)');
      return;
    }
    const { joinRef, ref, topic, event, payload } = frame;
    if (topic === PHOENIX_TOPIC) {
      if (event === EVENT_HEARTBEAT) joins.send(socket, encodeReply(null, ref, PHOENIX_TOPIC, 'ok', {}));
      else joins.send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched topic' }));
      return;
    }
    if (event === EVENT_JOIN) {
      const perSecond = this.options.joinsPerSecond();
      if (!this.takeJoinToken(socket, perSecond)) {
        joins.send(
          socket,
          encodeReply(joinRef, ref, topic, 'error', { reason: 'too many joins', joins_per_second: perSecond }),
        );
        return;
      }
      void joins.join(socket, joinRef, ref, topic, payload);
      return;
    }
    const join = socket.joins.get(topic);
    if (!join) {
      joins.send(socket, encodeReply(joinRef, ref, topic, 'error', { reason: 'unmatched topic' }));
      return;
    }
    if (joinRef !== null && join.joinRef !== null && joinRef !== join.joinRef) return; // stale: for an earlier join
    if (event === EVENT_LEAVE) joins.leave(socket, join, ref, joinRef);
    else void joins.handleIn(socket, join, joinRef, ref, event, payload);
  }

  /** Token bucket per socket: `perSecond` tokens at most, refilled continuously on the service clock. */
  private takeJoinToken(socket: SocketState, perSecond: number): boolean {
    const now = this.options.clockMs();
    const elapsedMs = now - socket.joinTokensAtMs;
    if (elapsedMs !== 0) {
      socket.joinTokens =
        elapsedMs > 0
          ? Math.min(perSecond, socket.joinTokens + (elapsedMs * perSecond) / 1000)
          : Math.min(perSecond, socket.joinTokens);
      socket.joinTokensAtMs = now;
    }
    if (socket.joinTokens < 1) return false;
    socket.joinTokens -= 1;
    return true;
  }
}
