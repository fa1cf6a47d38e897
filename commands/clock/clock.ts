// The service clock: the system clock, or with TEST_CLOCK=1 one that operators can set and advance.
// Wired once at the composition root; every time rule reads ctx.clock.

import type { Clock } from '../../domain/clock.ts';
import type { ControllableClock } from '../context.ts';

export const systemClock: Clock = {
  nowUs: () => Date.now() * 1000,
};

/** Starts at the real time and then moves only when set or advanced. */
export function createTestClock(startUs: number = Date.now() * 1000): ControllableClock {
  let nowUs = startUs;
  return {
    nowUs: () => nowUs,
    set(us: number) {
      nowUs = us;
    },
    advance(ms: number) {
      nowUs += Math.round(ms * 1000);
    },
  };
}
