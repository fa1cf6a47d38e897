// An async stream fed by channel callbacks: `for await (const update of stream)`. Its queue is
// bounded (STREAM_QUEUE_EVENTS_MAX): a consumer that falls that far behind gets an error instead
// of unbounded memory. `close()` ends the iteration and runs the stream's cleanup (leaving the
// channel).

/** Events held for a consumer that has not read them yet. */
export const STREAM_QUEUE_EVENTS_MAX = 10_000;

export class StreamOverflowError extends Error {
  override readonly name = 'StreamOverflowError';
  constructor(what: string) {
    super(
      `${what}: the consumer fell ${STREAM_QUEUE_EVENTS_MAX} events behind (STREAM_QUEUE_EVENTS_MAX); read faster or resubscribe`,
    );
  }
}

export class EventStream<T> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private waiting: { resolve: (result: IteratorResult<T>) => void; reject: (error: unknown) => void } | undefined;
  private failure: unknown;
  private ended = false;

  constructor(
    private readonly what: string,
    private readonly cleanup: () => void = () => undefined,
  ) {}

  push(value: T): void {
    if (this.ended || this.failure !== undefined) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value, done: false });
      return;
    }
    if (this.queue.length >= STREAM_QUEUE_EVENTS_MAX) {
      this.fail(new StreamOverflowError(this.what));
      return;
    }
    this.queue.push(value);
  }

  fail(error: unknown): void {
    if (this.ended || this.failure !== undefined) return;
    this.failure = error;
    this.cleanup();
    if (this.waiting) {
      const { reject } = this.waiting;
      this.waiting = undefined;
      reject(error);
    }
  }

  /** Ends the iteration (after the events already queued) and leaves the channel. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.cleanup();
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  next(): Promise<IteratorResult<T>> {
    const value = this.queue.shift();
    if (value !== undefined) return Promise.resolve({ value, done: false });
    if (this.failure !== undefined)
      return Promise.reject(this.failure instanceof Error ? this.failure : new Error(String(this.failure)));
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: async () => {
        this.close();
        return { value: undefined, done: true };
      },
    };
  }
}
