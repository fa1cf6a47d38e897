// The catch-up-then-live subscription loop shared by the memory and postgres adapters: read
// chunks strictly after the last delivered position, hand matching events to the handler in
// bounded batches one at a time, and sleep until woken (new commit, notification or poll timer).

import type { BatchHandler, RecordedEvent, SubscribeOptions, Subscription, SubscriptionFilter } from './port.ts';

export const SUBSCRIPTION_BATCH_SIZE_DEFAULT = 500;
const READ_CHUNK_EVENTS_MAX = 1000;
const READ_RETRY_DELAY_MS = 500;

export interface PollSource {
  /** Events strictly after `after`, in global order, at most `maxCount`. */
  read(after: bigint, maxCount: number): Promise<RecordedEvent[]>;
  /** Registers a wake-up call for new commits; returns the unregister function. */
  onWake(listener: () => void): () => void;
  /** Poll anyway after this long without a wake-up (covers missed notifications). */
  pollIntervalMs: number;
}

export function matchesFilter(event: RecordedEvent, filter: SubscriptionFilter | undefined): boolean {
  if (!filter) return true;
  const { streamPrefixes, eventTypes } = filter;
  if (
    streamPrefixes &&
    streamPrefixes.length > 0 &&
    !streamPrefixes.some((prefix) => event.stream.startsWith(prefix))
  ) {
    return false;
  }
  if (eventTypes && eventTypes.length > 0 && !eventTypes.includes(event.type)) return false;
  return true;
}

export function pollingSubscription(
  source: PollSource,
  handler: BatchHandler,
  options: SubscribeOptions = {},
): Subscription {
  const batchSizeMax = Math.max(1, options.batchSizeMax ?? SUBSCRIPTION_BATCH_SIZE_DEFAULT);
  let after = options.after ?? -1n;
  let stopped = false;
  let woken = false;
  let wakeWaiter: (() => void) | undefined;

  const wake = () => {
    woken = true;
    const waiter = wakeWaiter;
    wakeWaiter = undefined;
    waiter?.();
  };
  const unregister = source.onWake(wake);

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        wakeWaiter = undefined;
        resolve();
      }, ms);
      wakeWaiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const run = async () => {
    while (!stopped) {
      woken = false;
      let chunk: RecordedEvent[];
      try {
        chunk = await source.read(after, READ_CHUNK_EVENTS_MAX);
      } catch {
        if (!stopped) await sleep(READ_RETRY_DELAY_MS);
        continue;
      }
      if (chunk.length === 0) {
        if (!woken && !stopped) await sleep(source.pollIntervalMs);
        continue;
      }
      const matching = options.filter ? chunk.filter((event) => matchesFilter(event, options.filter)) : chunk;
      for (let start = 0; start < matching.length; start += batchSizeMax) {
        if (stopped) return;
        try {
          await handler(matching.slice(start, start + batchSizeMax));
        } catch (error) {
          stopped = true;
          if (options.onError) options.onError(error);
          else process.emitWarning(`event subscription stopped: handler failed: ${String(error)}`);
          return;
        }
      }
      after = chunk[chunk.length - 1]!.position;
    }
  };
  const running = run().finally(unregister);

  return {
    async stop() {
      stopped = true;
      wake();
      await running;
    },
  };
}
