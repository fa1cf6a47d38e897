// Waits for the read models to pass a journal position: the projection runner keeps them for its
// own waitFor, and so does the service's stand-in for a runner in a worker thread
// (cli/projectionHost.ts). Each wait is settled once the slowest projector has passed its
// position, or rejected after its timeout naming the projectors behind. Bound: one wait per
// caller in flight (a read or a write that must see the read models).

export const WAIT_FOR_TIMEOUT_MS_DEFAULT = 5000;

/** waitFor gave up: names the projectors that had not reached the position. */
export class ProjectionLagTimeout extends Error {
  readonly code = 'projection_lag_timeout';
  constructor(
    readonly position: bigint,
    readonly lagging: Array<{ name: string; position: bigint }>,
    readonly timeoutMs: number,
  ) {
    super(
      `projections did not reach position ${position} within ${timeoutMs} ms: ` +
        lagging.map((p) => `${p.name} is at ${p.position}`).join(', '),
    );
    this.name = 'ProjectionLagTimeout';
  }
}

/** The lowest of `positions` (the slowest projector); with none, every position counts as reached. */
export function slowestOf(positions: Iterable<bigint>): bigint {
  let minimum: bigint | undefined;
  for (const position of positions) if (minimum === undefined || position < minimum) minimum = position;
  return minimum ?? BigInt(Number.MAX_SAFE_INTEGER);
}

interface Waiter {
  position: bigint;
  resolve(): void;
}

export class PositionWaiters {
  private waiters: Waiter[] = [];

  /**
   * @param positions every projector's position now, by name
   * @param onCountChange called after a wait is added, settled or timed out
   */
  constructor(
    private readonly positions: () => ReadonlyMap<string, bigint>,
    private readonly onCountChange?: () => void,
  ) {}

  get size(): number {
    return this.waiters.length;
  }

  private reached(): bigint {
    return slowestOf(this.positions().values());
  }

  /** Resolves once every projector has passed `position`; rejects naming the laggards after `timeoutMs`. */
  waitFor(position: bigint, timeoutMs = WAIT_FOR_TIMEOUT_MS_DEFAULT): Promise<void> {
    if (position <= this.reached()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        this.onCountChange?.();
        const lagging = [...this.positions()]
          .filter(([, at]) => at < position)
          .map(([name, at]) => ({ name, position: at }));
        reject(new ProjectionLagTimeout(position, lagging, timeoutMs));
      }, timeoutMs);
      this.waiters.push(waiter);
      this.onCountChange?.();
    });
  }

  /** Resolves every wait the projectors' positions now cover. */
  settle(): void {
    if (this.waiters.length === 0) return;
    const reached = this.reached();
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.position <= reached) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
    this.onCountChange?.();
  }
}
