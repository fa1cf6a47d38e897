// Closed-loop load: `concurrency` callers each take the next of `total` requests as soon as their
// previous one is answered; latencies (sorted, ms), elapsed time, and the answers that were not 200.

export interface PoolRun {
  /** Sorted, in milliseconds. */
  latenciesMs: number[];
  elapsedMs: number;
  failures: number;
}

/** `one(i)` sends request i and resolves with its HTTP status. */
export async function runPool(
  total: number,
  concurrency: number,
  one: (i: number) => Promise<number>,
): Promise<PoolRun> {
  const latenciesMs: number[] = [];
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const t0 = performance.now();
        const status = await one(i);
        latenciesMs.push(performance.now() - t0);
        if (status !== 200) failures++;
      }
    }),
  );
  return { latenciesMs: latenciesMs.sort((a, b) => a - b), elapsedMs: performance.now() - started, failures };
}

/** The p-th percentile (0..100) of sorted values (nearest rank below); 0 for none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export const round = (x: number, places = 2): number => Number(x.toFixed(places));
