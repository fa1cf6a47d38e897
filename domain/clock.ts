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

/** Times the service accepts: from the UNIX epoch to 2200 (microseconds stay exact integers). */
const SERVICE_TIME_MIN_MS = 0;
const SERVICE_TIME_MAX_MS = Date.UTC(2200, 0, 1);

export function isServiceTimeMs(ms: number): boolean {
  return ms >= SERVICE_TIME_MIN_MS && ms < SERVICE_TIME_MAX_MS;
}
