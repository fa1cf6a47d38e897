// Rebuilds the leaderboard snapshots on a schedule: once at start, then every interval, and
// right away when the service clock has crossed a period boundary (a reset), which with the
// test clock can happen at any moment. Started by the composition root; stop() awaits the
// build in flight.

import { currentSnapshot, refreshLeaderboards, snapshotIsStale, type LeaderboardDeps } from './snapshot.ts';

/** Snapshot age at which the schedule rebuilds, in service-clock microseconds. */
const LEADERBOARD_REFRESH_INTERVAL_US = 60 * 1_000_000;
/** How often the scheduler looks at the clock, in real milliseconds. */
const CHECK_INTERVAL_MS = 1_000;

export function startLeaderboardScheduler(
  ctx: LeaderboardDeps,
  options: { checkIntervalMs?: number } = {},
): { stop(): Promise<void> } {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  let stopped = false;

  const tick = () => {
    if (busy || stopped) return;
    const snapshot = currentSnapshot(ctx);
    const nowUs = ctx.clock.nowUs();
    const due =
      snapshot === null ||
      snapshotIsStale(snapshot, nowUs) ||
      nowUs - snapshot.refreshed_at_us >= LEADERBOARD_REFRESH_INTERVAL_US;
    if (!due) return;
    busy = true;
    running = refreshLeaderboards(ctx)
      .catch((err: unknown) => ctx.logger.warn({ err }, 'leaderboard refresh failed'))
      .finally(() => {
        busy = false;
      });
  };

  const timer = setInterval(tick, options.checkIntervalMs ?? CHECK_INTERVAL_MS);
  timer.unref();
  tick();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
