// Fixed time windows counted per key (an account, an address), held in memory with a bound on
// the keys: the login limiter, the two-factor limiter, the sign-up limit and the registration
// limit count in them. Time is the service clock's (the caller passes it), so moving the test
// clock past a window reopens it.
//
// Reserve, then judge: an attempt takes its count before the asynchronous check it limits, so
// concurrent attempts cannot all pass the limit; one judged good gives its count back (release).
// Past the bound on keys, expired windows are dropped first; when every window is still open,
// a table that `refuses` answers "wait" to new keys (an attacker rotating keys cannot make it
// forget the ones it counts), one that `forgets` drops the key seen longest ago (only for
// tables whose counts merely slow answers down, and whose keys another refusing table bounds).

interface Window {
  startMs: number;
  count: number;
}

export type WhenFull = 'refuse' | 'forget';

/** What a reservation answers: taken, or the milliseconds to wait (limit reached, or the table full). */
export type Reservation = { ok: true } | { ok: false; retry_after_ms: number };

export class BoundedWindows {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly windowMs: number,
    private readonly keysMax: number,
    private readonly whenFull: WhenFull,
  ) {}

  /** The key's window if it is still open at `nowMs`. */
  open(key: string, nowMs: number): Window | undefined {
    const window = this.windows.get(key);
    return window && this.isOpen(window, nowMs) ? window : undefined;
  }

  /** The count of the key's open window (0 when none). */
  count(key: string, nowMs: number): number {
    return this.open(key, nowMs)?.count ?? 0;
  }

  /** Milliseconds to wait before `key` may take a count under `limit` (0: now). */
  waitMs(key: string, limit: number, nowMs: number): number {
    const window = this.open(key, nowMs);
    if (window) return window.count >= limit ? this.remainingMs(window, nowMs) : 0;
    if (this.windows.has(key) || this.windows.size < this.keysMax || this.whenFull === 'forget') return 0;
    this.dropExpired(nowMs);
    if (this.windows.size < this.keysMax) return 0;
    const oldest = this.windows.values().next();
    return oldest.done ? 0 : Math.max(1, this.remainingMs(oldest.value, nowMs));
  }

  /** Takes one count for `key` (call after waitMs answered 0, in the same turn); answers the count now. */
  take(key: string, nowMs: number): number {
    const window = this.current(key, nowMs);
    window.count += 1;
    return window.count;
  }

  /** Gives back one count taken in the key's open window (an attempt judged good). */
  release(key: string, nowMs: number): void {
    const window = this.open(key, nowMs);
    if (window && window.count > 0) window.count -= 1;
  }

  forget(key: string): void {
    this.windows.delete(key);
  }

  /** Milliseconds until the key's window closes. */
  remainingMs(window: Window, nowMs: number): number {
    return Math.max(0, window.startMs + this.windowMs - nowMs);
  }

  private isOpen(window: Window, nowMs: number): boolean {
    return nowMs - window.startMs < this.windowMs && nowMs >= window.startMs;
  }

  /** The key's open window, or a fresh one starting now. */
  private current(key: string, nowMs: number): Window {
    const open = this.open(key, nowMs);
    if (open) return open;
    this.windows.delete(key);
    if (this.windows.size >= this.keysMax) {
      this.dropExpired(nowMs);
      if (this.windows.size >= this.keysMax) {
        // only a forgetting table gets here full (a refusing one answered waitMs > 0 first)
        const oldest = this.windows.keys().next();
        if (!oldest.done) this.windows.delete(oldest.value);
      }
    }
    const window = { startMs: nowMs, count: 0 };
    this.windows.set(key, window);
    return window;
  }

  /** Drops closed windows from the front (windows are inserted as they open, so the oldest come first). */
  private dropExpired(nowMs: number): void {
    for (const [key, window] of this.windows) {
      if (this.isOpen(window, nowMs)) break;
      this.windows.delete(key);
    }
  }
}

/**
 * Reserves one count on each (table, key, limit) if every one of them is under its limit; else
 * takes nothing and answers the longest wait. Synchronous: nothing can interleave between the
 * checks and the takes.
 */
export function reserveAll(
  entries: readonly { windows: BoundedWindows; key: string; limit: number }[],
  nowMs: number,
): Reservation {
  let wait = 0;
  for (const { windows, key, limit } of entries) wait = Math.max(wait, windows.waitMs(key, limit, nowMs));
  if (wait > 0) return { ok: false, retry_after_ms: wait };
  for (const { windows, key } of entries) windows.take(key, nowMs);
  return { ok: true };
}
