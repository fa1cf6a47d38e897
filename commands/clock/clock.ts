// The service clock: the system clock, or with TEST_CLOCK=1 one that operators can set and advance.
// Wired once at the composition root; every time rule reads ctx.clock.

import type { Clock } from '../../domain/clock.ts';
import type { ControllableClock } from '../context.ts';

export const systemClock: Clock = {
  nowUs: () => Date.now() * 1000,
};

/**
 * Runs at real speed from an offset that `set` and `advance` move. It keeps ticking so that
 * clients signing with their own clock stay inside the signature window, yet any time rule
 * (30-day handle window, expiries, token lifetimes) can be jumped to on demand.
 */
export function createTestClock(realNowUs: () => number = systemClock.nowUs): ControllableClock {
  let offsetUs = 0;
  return {
    nowUs: () => realNowUs() + offsetUs,
    set(us: number) {
      offsetUs = us - realNowUs();
    },
    advance(ms: number) {
      offsetUs += Math.round(ms * 1000);
    },
  };
}
