// The port through which order writes keep their idempotency keys. A request carrying
// `Idempotency-Key` claims the pair (account, key); concurrent duplicates wait for the first
// request's answer instead of placing anything. The stored status and body are replayed for
// IDEMPOTENCY_TTL_US (24 hours on the service clock); after that the key may be used afresh.
// Answers of 500 or worse are not stored (the claim is released), so a retry after a crash is
// judged again. The composition root wires the PostgreSQL adapter (cli/stores/idempotencyKeys.pg.ts).

import { MICROS_PER_SECOND } from '../../domain/clock.ts';

/** How long a key's first answer is replayed (service clock). */
export const IDEMPOTENCY_TTL_US = 24 * 60 * 60 * MICROS_PER_SECOND;
export const IDEMPOTENCY_KEY_LENGTH_MAX = 255;

export interface StoredAnswer {
  status: number;
  body: unknown;
}

export type Claim =
  | { kind: 'claimed'; createdAtUs: number }
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
  /** Gives the claim up (its answer is not kept: a retry is judged again). */
  release(accountId: string, key: string, createdAtUs: number): Promise<void>;
  /** Deletes the keys past their retention; returns how many. */
  purgeExpired(): Promise<number>;
}
