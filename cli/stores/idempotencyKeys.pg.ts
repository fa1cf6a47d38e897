// The PostgreSQL adapter of the idempotency keys of order writes (the port and its rules:
// commands/idempotency/keys.ts). A claim is one INSERT; concurrent duplicates lose the insert race
// and wait for the winner's answer.

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


export class PostgresIdempotencyKeys implements IdempotencyKeys {
  private lastPurgeMs = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly clock: Clock,
  ) {}

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
      const inserted = await this.pool.query(
        `INSERT INTO api_idempotency_keys (account_id, idem_key, created_at_us, fingerprint) VALUES ($1, $2, $3, $4)
         ON CONFLICT (account_id, idem_key) DO UPDATE
           SET created_at_us = EXCLUDED.created_at_us, fingerprint = EXCLUDED.fingerprint, status = NULL, body = NULL
           WHERE api_idempotency_keys.created_at_us <= $5
         RETURNING created_at_us`,
        [accountId, key, nowUs, fingerprint, nowUs - IDEMPOTENCY_TTL_US],
      );
      if (inserted.rowCount === 1) return { kind: 'claimed', createdAtUs: nowUs };
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
    await this.pool.query(
      'UPDATE api_idempotency_keys SET status = $4, body = $5 WHERE account_id = $1 AND idem_key = $2 AND created_at_us = $3',
      [accountId, key, createdAtUs, answer.status, JSON.stringify(answer.body)],
    );
  }

  async release(accountId: string, key: string, createdAtUs: number): Promise<void> {
    await this.pool.query(
      'DELETE FROM api_idempotency_keys WHERE account_id = $1 AND idem_key = $2 AND created_at_us = $3 AND status IS NULL',
      [accountId, key, createdAtUs],
    );
  }
}
