// cancel_on_disconnect: when a member's LAST socket holding an `orders` or `account` channel
// closes (the client went away, or missed heartbeats for ws_heartbeat_timeout_ms and was
// closed), every live order of that member placed with `cancel_on_disconnect: true` is cancelled
// by the engine (one journaled input the engine decides, so replay reproduces it). Leaving the
// channel on purpose (phx_leave) is not a disconnect. While the member still holds such a
// channel on another socket nothing happens.

import type { Logger } from 'pino';
import type { RealtimeMetrics } from './metrics.ts';
import type { SocketLifecycle, SocketState } from './socket.ts';

/** Channels whose holders are protected by cancel_on_disconnect. */
const GUARDED_CHANNELS: ReadonlySet<string> = new Set(['orders', 'account']);

export interface DisconnectedMember {
  account_id: string;
  user_id: string;
}

/** The order command: cancels the member's live cancel_on_disconnect orders; resolves with how many. */
export type CancelOnDisconnect = (member: DisconnectedMember) => Promise<{ cancelled: number }>;

export class DisconnectCanceller implements SocketLifecycle {
  /** Guarded channels each open socket holds. */
  private readonly bySocket = new Map<number, Set<string>>();
  /** Sockets per account holding a guarded channel. */
  private readonly byAccount = new Map<string, number>();
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly cancel: CancelOnDisconnect | undefined,
    private readonly logger: Pick<Logger, 'info' | 'error'>,
    private readonly metrics: RealtimeMetrics,
  ) {}

  joined(socket: SocketState, channelName: string): void {
    if (!GUARDED_CHANNELS.has(channelName) || socket.identity.kind !== 'member') return;
    let held = this.bySocket.get(socket.id);
    if (!held) {
      held = new Set();
      this.bySocket.set(socket.id, held);
      const accountId = socket.identity.account_id;
      this.byAccount.set(accountId, (this.byAccount.get(accountId) ?? 0) + 1);
    }
    held.add(channelName);
  }

  left(socket: SocketState, channelName: string): void {
    const held = this.bySocket.get(socket.id);
    if (!held || !held.delete(channelName) || held.size > 0) return;
    this.release(socket);
  }

  closed(socket: SocketState, _channels: readonly string[], reason: string): void {
    if (!this.bySocket.has(socket.id) || socket.identity.kind !== 'member') return;
    const remaining = this.release(socket);
    if (remaining > 0) return;
    const member = { account_id: socket.identity.account_id, user_id: socket.identity.user_id };
    if (!this.cancel) {
      this.logger.error({ ...member, reason }, 'cancel_on_disconnect is not wired: orders left live');
      return;
    }
    const run = this.cancel(member).then(
      ({ cancelled }) => {
        this.metrics.cancelOnDisconnect.inc({ outcome: 'ok' });
        this.logger.info(
          { ...member, reason, cancelled },
          'member disconnected: cancel_on_disconnect orders cancelled',
        );
      },
      (error: unknown) => {
        this.metrics.cancelOnDisconnect.inc({ outcome: 'failed' });
        this.logger.error({ err: error, ...member, reason }, 'cancel_on_disconnect failed');
      },
    );
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
  }

  /** Resolves once every cancellation already asked for has been answered (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  /** Forgets the socket; returns how many sockets of its account still hold a guarded channel. */
  private release(socket: SocketState): number {
    this.bySocket.delete(socket.id);
    if (socket.identity.kind !== 'member') return 0;
    const accountId = socket.identity.account_id;
    const remaining = (this.byAccount.get(accountId) ?? 1) - 1;
    if (remaining > 0) this.byAccount.set(accountId, remaining);
    else this.byAccount.delete(accountId);
    return remaining;
  }
}
