// The port through which order writes keep their idempotency keys. A request carrying
// `Idempotency-Key` claims the pair (account, key); concurrent duplicates wait for the first
// request's answer instead of placing anything. The stored status and body are replayed for
// IDEMPOTENCY_TTL_US (24 hours on the service clock); after that the key may be used afresh.
// Answers of 500 or worse are not stored (the claim is released), so a retry after a crash is
// judged again (with the claim's order ids: below). The composition root wires the PostgreSQL adapter (cli/stores/idempotencyKeys.pg.ts).
//
// Across a failover: a claim names the node holding it, which keeps it alive while its request
// runs; a claim whose holder stopped (killed, frozen, cut off), or that was released after a 5xx
// (a follower's answer lost with the writer that journaled the order is one), is taken over by
// the next request with the same key and body, as `takenOver`, with the claim's `seed`. The order ids of a claimed
// request are made from that seed, so the request taken over places the very same orders: if the
// first attempt's orders were journaled, the engine refuses them again as existing (never twice)
// and the retry answers them as they are; if they were not, they are placed now (once).

import { MICROS_PER_SECOND } from '../../domain/clock.ts';

/** How long a key's first answer is replayed (service clock). */
export const IDEMPOTENCY_TTL_US = 24 * 60 * 60 * MICROS_PER_SECOND;
export const IDEMPOTENCY_KEY_LENGTH_MAX = 255;

export interface StoredAnswer {
  status: number;
  body: unknown;
}

export type Claim =
  | {
      kind: 'claimed';
      createdAtUs: number;
      /** What the claimed request's order ids are made from (the same after a takeover). */
      seed: string;
      /** The claim was another node's, which stopped before answering: its request may have been journaled. */
      takenOver: boolean;
    }
  | { kind: 'replay'; answer: StoredAnswer; fingerprint: string }
  | { kind: 'busy' };

export interface IdempotencyKeys {
  /**
   * Claims (account, key) for this request, or returns the first request's answer. Waits while
   * another request holding the same key is still running (bounded; then `busy`).
   */
  claim(accountId: string, key: string, fingerprint: string): Promise<Claim>;
  /** Stores the answer of the claim made at `createdAtUs`. */
  complete(accountId: string, key: string, createdAtUs: number, answer: StoredAnswer): Promise<void>;
  /** Gives the claim up (its answer is not kept: a retry is judged again, with the claim's seed). */
  release(accountId: string, key: string, createdAtUs: number): Promise<void>;
  /** Deletes the keys past their retention; returns how many. */
  purgeExpired(): Promise<number>;
}
