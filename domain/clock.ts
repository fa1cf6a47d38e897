// The service's single clock. Domain code never reads time itself: it receives `now` on its input.
// The composition root wires either the system clock or the controllable test clock (TEST_CLOCK=1).

export interface Clock {
  /** Current time in UNIX microseconds. */
  nowUs(): number;
}

export const MICROS_PER_MS = 1000;
export const MICROS_PER_SECOND = 1_000_000;

export function usToIso(us: number): string {
  return new Date(Math.floor(us / MICROS_PER_MS)).toISOString();
}

export function isoToUs(iso: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) throw new RangeError(`not a date-time: ${iso}`);
  return ms * MICROS_PER_MS;
}
