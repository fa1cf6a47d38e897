// What a channel is to the server: it decides a join (refusal, or the topics to subscribe and
// the snapshot to answer with) and may answer the client's own events on the topic.
//
// Snapshot-then-delta without a gap or a stale delta: a channel whose snapshot is read
// asynchronously first calls `hold(topics)`; every frame published on those topics from then on
// is kept for this join and sent right after the reply, before the socket is subscribed (all in
// one synchronous step). The updates are whole objects or absolute values, so one the snapshot
// already reflects changes nothing when applied again. A channel whose snapshot is taken from
// memory at the moment of subscribing (the order book) does not hold: `response()` runs in that
// same synchronous step.

import type { SocketIdentity } from '../identity.ts';

export interface JoinContext {
  identity: SocketIdentity;
  /** The whole topic, e.g. `orders:7d3f…` or `orderbook`. */
  topic: string;
  /** The part before the first colon. */
  name: string;
  /** The part after the first colon, or null without one. */
  suffix: string | null;
  payload: Record<string, unknown>;
  /**
   * Whether this join is still the topic's current one (false once a newer join replaced it, it
   * was left, or the socket closed): a channel checks it before each read, so an abandoned join
   * stops reading.
   */
  current(): boolean;
  /** Keep frames published on these feed topics for this join until it is answered. */
  hold(topics: readonly string[]): void;
  /** A push to this socket alone on this join (e.g. a re-costed slip); dropped once the join ends. */
  push(event: string, payload: unknown): void;
}

export interface Refusal {
  reason: string;
  [detail: string]: unknown;
}

export interface JoinSession {
  /** The client's own events on the topic (`quote` on a slip); the reply is `{status, response}`. */
  handleIn?(event: string, payload: Record<string, unknown>): Promise<InReply> | InReply;
  /** The join ended (leave, rejoin, socket closed). */
  leave?(): void;
}

export type InReply = { status: 'ok' | 'error'; response: unknown };

export type JoinOutcome =
  | { ok: false; refusal: Refusal }
  | {
      ok: true;
      /** Feed topics the socket is subscribed to. */
      topics: readonly string[];
      /** The join reply's `response`, computed right before subscribing. */
      response(): unknown;
      /** Right after the reply (and the held frames) went out: a channel that sends to this join alone starts here. */
      afterReply?(): void;
      /** Whether the channel's own hold overflowed while the snapshot was read (the join is then refused `busy`). */
      overflowed?(): boolean;
      session?: JoinSession;
    };

export interface Channel {
  name: string;
  /** Whether the topic carries a suffix (`orders:{user_id}`); a public topic with one is unmatched. */
  suffixed?: boolean;
  join(ctx: JoinContext): Promise<JoinOutcome> | JoinOutcome;
}

export const refuse = (reason: string, details: Record<string, unknown> = {}): JoinOutcome => ({
  ok: false,
  refusal: { reason, ...details },
});
