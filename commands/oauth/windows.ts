// Fixed time windows counted per key (an account, an address), held in memory with a bound on
// the keys: the login limiter and the registration limit both count in them. Past the bound the
// key seen longest ago is forgotten first (it can only make a limit more lenient, never wrong).

interface Window {
  startMs: number;
  count: number;
}

export class BoundedWindows {
  private readonly windows = new Map<string, Window>();

  constructor(private readonly windowMs: number, private readonly keysMax: number) {}

  /** The key's window if it is still open at `nowMs`. */
  open(key: string, nowMs: number): Window | undefined {
    const window = this.windows.get(key);
    return window && nowMs - window.startMs < this.windowMs ? window : undefined;
  }

  /** The key's open window, or a fresh one starting now. */
  current(key: string, nowMs: number): Window {
    const open = this.open(key, nowMs);
    if (open) return open;
    this.windows.delete(key);
    if (this.windows.size >= this.keysMax) {
      const oldest = this.windows.keys().next();
      if (!oldest.done) this.windows.delete(oldest.value);
    }
    const window = { startMs: nowMs, count: 0 };
    this.windows.set(key, window);
    return window;
  }

  /** Milliseconds until the key's window closes. */
  remainingMs(window: Window, nowMs: number): number {
    return Math.max(0, window.startMs + this.windowMs - nowMs);
  }

  forget(key: string): void {
    this.windows.delete(key);
  }
}
