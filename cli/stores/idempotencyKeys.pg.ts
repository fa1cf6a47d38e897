// The PostgreSQL adapter of the idempotency keys of order writes (the port and its rules:
// commands/idempotency/keys.ts). A claim is one INSERT; concurrent duplicates lose the insert race
// and wait for the winner's answer. An unanswered claim records its holder (this store, one per
// node) and holds until `held_until` (the database's clock), which the holder pushes forward
// every CLAIM_RENEW_MS while it has claims open; once CLAIM_HOLD_MS pass without that, a request
// with the same key and body takes the claim over (keeping its seed), as it does a claim released
// after a 5xx (whose request may have been journaled by a writer that died before answering). The
// holder's late answer or release then changes nothing (both name the claim they hold).

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import type { Clock } from '../../domain/clock.ts';
import {
  IDEMPOTENCY_TTL_US,
  type Claim,
  type IdempotencyKeys,
  type StoredAnswer,
} from '../../commands/idempotency/keys.ts';

/** Expired keys are deleted at most this often, by the claim that finds the interval passed. */
const IDEMPOTENCY_PURGE_INTERVAL_MS = 60_000;
const WAIT_STEP_MS = 10;
const WAIT_TOTAL_MS = 30_000;
/** An unanswered claim not renewed for this long is taken over by the next request with its key. */
const CLAIM_HOLD_MS = 3_000;
/** How often a node pushes its open claims' hold forward. */
const CLAIM_RENEW_MS = 1_000;

export class PostgresIdempotencyKeys implements IdempotencyKeys {
  private lastPurgeMs = 0;
  /** This node as the holder of claims. */
  private readonly holder = randomUUID();
  /** Claims this node holds and has not answered or released. */
  private open = 0;
  private renewal: NodeJS.Timeout | undefined;
  private readonly holdMs: number;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
    options: { holdMs?: number } = {},
  ) {
    this.holdMs = options.holdMs ?? CLAIM_HOLD_MS;
  }

  /** While claims are open, their hold is pushed forward (one statement for all of them). */
  private holding(delta: 1 | -1): void {
    this.open += delta;
    if (this.open > 0 && !this.renewal) {
      this.renewal = setInterval(
        () => {
          this.pool
            .query(
              'UPDATE api_idempotency_keys SET held_until = now() + make_interval(secs => $2) WHERE holder = $1 AND status IS NULL',
              [this.holder, this.holdMs / 1000],
            )
            .catch(() => undefined); // the next renewal tries again; past the hold the claim may be taken over
        },
        Math.min(CLAIM_RENEW_MS, this.holdMs / 3),
      );
      this.renewal.unref();
    } else if (this.open === 0 && this.renewal) {
      clearInterval(this.renewal);
      this.renewal = undefined;
    }
  }

  /**
   * Claims (account, key) for this request, or returns the first request's answer. Waits while
   * another request holding the same key is still running (bounded; then `busy`).
   */
  async claim(accountId: string, key: string, fingerprint: string): Promise<Claim> {
    if (Date.now() - this.lastPurgeMs >= IDEMPOTENCY_PURGE_INTERVAL_MS) {
      this.lastPurgeMs = Date.now();
      this.purgeExpired().catch(() => undefined); // best effort: a later claim tries again
    }
    const deadline = Date.now() + WAIT_TOTAL_MS;
    for (;;) {
      const nowUs = this.clock.nowUs();
      const seed = randomUUID();
      // a new key, a key past its retention (used afresh: a new seed), or an unanswered claim
      // released or whose holder stopped renewing it: taken over by the same request (its seed is
      // kept: the first attempt may have been journaled), afresh by another body once released
      const inserted = await this.pool.query<{ seed: string }>(
        `INSERT INTO api_idempotency_keys AS k (account_id, idem_key, created_at_us, fingerprint, holder, held_until, seed)
         VALUES ($1, $2, $3, $4, $6, now() + make_interval(secs => $7), $8)
         ON CONFLICT (account_id, idem_key) DO UPDATE
           SET created_at_us = EXCLUDED.created_at_us, fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL,
               holder = EXCLUDED.holder, held_until = EXCLUDED.held_until,
               seed = CASE WHEN k.created_at_us <= $5 OR k.seed IS NULL OR k.fingerprint <> EXCLUDED.fingerprint
                 THEN EXCLUDED.seed ELSE k.seed END
           WHERE k.created_at_us <= $5
              OR (k.status IS NULL AND COALESCE(k.held_until, '-infinity') < now()
                  AND (k.fingerprint = EXCLUDED.fingerprint OR k.holder IS NULL))
         RETURNING k.seed`,
        [accountId, key, nowUs, fingerprint, nowUs - IDEMPOTENCY_TTL_US, this.holder, this.holdMs / 1000, seed],
      );
      const claimed = inserted.rows[0];
      if (claimed) {
        this.holding(1);
        return { kind: 'claimed', createdAtUs: nowUs, seed: claimed.seed, takenOver: claimed.seed !== seed };
      }
      const existing = await this.pool.query<{ status: number | null; body: unknown; fingerprint: string }>(
        'SELECT status, body, fingerprint FROM api_idempotency_keys WHERE account_id = $1 AND idem_key = $2',
        [accountId, key],
      );
      const row = existing.rows[0];
      if (row && row.status !== null)
        return { kind: 'replay', answer: { status: row.status, body: row.body }, fingerprint: row.fingerprint };
      if (Date.now() >= deadline) return { kind: 'busy' };
      await new Promise((resolve) => setTimeout(resolve, WAIT_STEP_MS));
    }
  }

  /** Deletes the keys past their retention (24 hours on the service clock); returns how many. */
  async purgeExpired(): Promise<number> {
    const result = await this.pool.query('DELETE FROM api_idempotency_keys WHERE created_at_us < $1', [
      this.clock.nowUs() - IDEMPOTENCY_TTL_US,
    ]);
    return result.rowCount ?? 0;
  }

  async complete(accountId: string, key: string, createdAtUs: number, answer: StoredAnswer): Promise<void> {
    try {
      await this.pool.query(
        `UPDATE api_idempotency_keys SET status = $4, body = $5, holder = NULL, held_until = NULL
         WHERE account_id = $1 AND idem_key = $2 AND created_at_us = $3 AND holder = $6`,
        [accountId, key, createdAtUs, answer.status, JSON.stringify(answer.body), this.holder],
      );
    } finally {
      this.holding(-1);
    }
  }

  /**
   * The claim is given up unanswered (a 5xx: the engine could not answer, or its answer was lost
   * with the writer that journaled it), but its seed is kept: the retry places the same order ids,
   * so an order the first attempt had journaled is answered, not placed again.
   */
  async release(accountId: string, key: string, createdAtUs: number): Promise<void> {
    try {
      await this.pool.query(
        `UPDATE api_idempotency_keys SET holder = NULL, held_until = NULL
         WHERE account_id = $1 AND idem_key = $2 AND created_at_us = $3 AND status IS NULL AND holder = $4`,
        [accountId, key, createdAtUs, this.holder],
      );
    } finally {
      this.holding(-1);
    }
  }
}
