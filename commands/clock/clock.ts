// The service clock: the system clock, or with TEST_CLOCK=1 one that operators can set and advance
// (moveClock, the command behind POST /admin/v1/clock). Wired once at the composition root; every
// time rule reads ctx.clock.

import { isServiceTimeMs, type Clock } from '../../domain/clock.ts';
import type { ControllableClock } from '../context.ts';
import type { EngineGateway } from '../../engine/gateway.ts';
import { accepted, refused, type CommandResult } from '../result.ts';

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

/** Exactly one of the two: jump to a time, or move by a (possibly negative) number of milliseconds. */
interface ClockMove {
  set_us?: number;
  advance_ms?: number;
}

interface ClockDeps {
  clock: ControllableClock;
  engine: EngineGateway;
  /** Told when the tick after the move failed (the clock has moved all the same). */
  onTickFailure?(error: unknown): void;
}

/** Moves the test clock, then lets the engine act on what is now due (expiries, in-play delays). */
export async function moveClock(deps: ClockDeps, move: ClockMove): Promise<CommandResult<{ now_us: number }>> {
  if ((move.set_us === undefined) === (move.advance_ms === undefined)) return refused({ code: 'clock_move_ambiguous' });
  if (move.set_us !== undefined) deps.clock.set(move.set_us);
  else if (move.advance_ms !== undefined) {
    if (!isServiceTimeMs(Math.floor(deps.clock.nowUs() / 1000) + move.advance_ms))
      return refused({ code: 'clock_out_of_range' });
    deps.clock.advance(move.advance_ms);
  }
  try {
    await deps.engine.submit({ kind: 'Tick' });
  } catch (error) {
    deps.onTickFailure?.(error);
  }
  return accepted({ now_us: deps.clock.nowUs() });
}
