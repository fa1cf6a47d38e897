// Token buckets keyed by a string (an account, an address), for request rate limits. A bucket holds
// up to BURST_SECONDS of its rate and refills continuously; a request takes `cost` tokens. A cost
// larger than the whole bucket (a big batch) is let through when the bucket is full and leaves it
// in debt, so the long-run rate still holds.
//
// The table is bounded (`keysMax`). A new key finds room by forgetting a bucket that has refilled
// completely (forgetting it changes nothing: a new bucket starts full too); one still refilling is
// never forgotten, so nobody can reset another key's bucket by filling the table. When every
// bucket is still refilling the new key is refused until one has refilled: the table refuses
// rather than forgets.
//
// Per request: one Map lookup and arithmetic on the bucket; nothing is allocated once the key has
// its bucket.

/** A bucket holds this many seconds of its rate: the burst a client may send at once. */
export const BURST_SECONDS = 2;
/** Buckets looked at (oldest first) for one that refilled, when a new key meets a full table. */
const EVICTION_PROBE_MAX = 16;
/** A full sweep of the table for refilled buckets runs at most this often. */
const SWEEP_INTERVAL_MS = 1_000;

interface Bucket {
  tokens: number;
  atMs: number;
}

/** Milliseconds rounded up, ignoring the last bits of floating-point error (1.0000000000002 is 1). */
const wholeMs = (ms: number): number => Math.ceil(ms - 1e-6);

/** `take`'s answer when the table is full of buckets still refilling. */
export const TABLE_FULL = -1;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweepMs = Number.NEGATIVE_INFINITY;
  /** Tokens left in the bucket of the last `take` (floored), for the caller's headers. */
  remaining = 0;

  constructor(private readonly keysMax: number) {}

  get size(): number {
    return this.buckets.size;
  }

  /**
   * Takes `cost` tokens from `key`'s bucket at `perSecond` (its capacity BURST_SECONDS × perSecond).
   * Answers 0 when taken, else the milliseconds until it could be (TABLE_FULL: no bucket could be
   * made; try again in a second).
   */
  take(key: string, cost: number, perSecond: number, nowMs: number): number {
    if (!(perSecond > 0)) return 0; // no limit
    const capacity = perSecond * BURST_SECONDS;
    let bucket = this.buckets.get(key);
    if (bucket === undefined) {
      if (this.buckets.size >= this.keysMax && !this.makeRoom(perSecond, nowMs)) {
        this.remaining = 0;
        return TABLE_FULL;
      }
      bucket = { tokens: capacity, atMs: nowMs };
      this.buckets.set(key, bucket);
    } else if (nowMs > bucket.atMs) {
      bucket.tokens = Math.min(capacity, bucket.tokens + ((nowMs - bucket.atMs) * perSecond) / 1000);
      bucket.atMs = nowMs;
    } else {
      bucket.atMs = nowMs; // the clock moved back (TEST_CLOCK): refill from now on, not from the future
      if (bucket.tokens > capacity) bucket.tokens = capacity; // the rate was lowered
    }
    if (bucket.tokens >= (cost < capacity ? cost : capacity)) {
      bucket.tokens -= cost;
      this.remaining = bucket.tokens > 0 ? Math.floor(bucket.tokens) : 0;
      return 0;
    }
    this.remaining = bucket.tokens > 0 ? Math.floor(bucket.tokens) : 0;
    const needed = (cost < capacity ? cost : capacity) - bucket.tokens;
    return Math.max(1, wholeMs((needed * 1000) / perSecond));
  }

  /** Milliseconds until `key`'s bucket is full again at `perSecond` (0: full or unknown). */
  refillMs(key: string, perSecond: number, nowMs: number): number {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return 0;
    const missing = perSecond * BURST_SECONDS - bucket.tokens - ((nowMs - bucket.atMs) * perSecond) / 1000;
    return missing > 0 ? wholeMs((missing * 1000) / perSecond) : 0;
  }

  /** Whether `key`'s bucket is empty now (it has one and less than one token). */
  isEmpty(key: string, perSecond: number, nowMs: number): boolean {
    const bucket = this.buckets.get(key);
    if (bucket === undefined) return false;
    return bucket.tokens + ((nowMs - bucket.atMs) * perSecond) / 1000 < 1;
  }

  private refilled(bucket: Bucket, perSecond: number, nowMs: number): boolean {
    return bucket.tokens + ((nowMs - bucket.atMs) * perSecond) / 1000 >= perSecond * BURST_SECONDS;
  }

  /** Forgets a bucket that has refilled: the oldest few first, then (at most once a second) all of them. */
  private makeRoom(perSecond: number, nowMs: number): boolean {
    let probed = 0;
    for (const [key, bucket] of this.buckets) {
      if (this.refilled(bucket, perSecond, nowMs)) {
        this.buckets.delete(key);
        return true;
      }
      if (++probed >= EVICTION_PROBE_MAX) break;
    }
    this.sweep(perSecond, nowMs);
    return this.buckets.size < this.keysMax;
  }

  /** Forgets every bucket that has refilled (which changes nothing), at most once a second. */
  sweep(perSecond: number, nowMs: number): void {
    if (nowMs - this.lastSweepMs < SWEEP_INTERVAL_MS) return;
    this.lastSweepMs = nowMs;
    for (const [key, bucket] of this.buckets) {
      if (this.refilled(bucket, perSecond, nowMs)) this.buckets.delete(key);
    }
  }
}
