// In-memory event store for unit tests: the same contract as the postgres adapter, no I/O.

import {
  DuplicateEventId,
  type AppendResult,
  type BatchHandler,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';
import { checkExpectedRevision } from './revision.ts';
import { pollingSubscription } from './subscription.ts';

const POLL_INTERVAL_MS = 1000;

export class MemoryEventStore implements EventStore {
  readonly kind = 'memory' as const;
  private readonly all: RecordedEvent[] = [];
  private readonly streams = new Map<string, RecordedEvent[]>();
  private readonly byId = new Map<string, RecordedEvent>();
  private readonly wakeListeners = new Set<() => void>();

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const existing = this.streams.get(stream);
    const current = existing && existing.length > 0 ? BigInt(existing.length - 1) : undefined;
    const already = events.map((event) => this.byId.get(event.id));
    if (events.length > 0 && already.every((found) => found !== undefined && found.stream === stream)) {
      const last = already[already.length - 1]!;
      return { nextRevision: last.revision, position: last.position };
    }
    const duplicate = events.find((_, index) => already[index] !== undefined);
    if (duplicate) throw new DuplicateEventId(stream, duplicate.id);
    if (new Set(events.map((event) => event.id)).size !== events.length) {
      throw new DuplicateEventId(stream, events.find((e, i) => events.findIndex((f) => f.id === e.id) !== i)!.id);
    }
    checkExpectedRevision(stream, expected, current);
    // Copy through JSON so a caller mutating its object later cannot change history.
    const recordedAt = new Date();
    const list = existing ?? [];
    for (const event of events) {
      const recorded: RecordedEvent = {
        id: event.id,
        stream,
        type: event.type,
        revision: BigInt(list.length),
        position: BigInt(this.all.length),
        data: JSON.parse(event.json ?? JSON.stringify(event.data ?? null)),
        metadata: JSON.parse(JSON.stringify(event.metadata ?? {})),
        recordedAt,
      };
      list.push(recorded);
      this.all.push(recorded);
      this.byId.set(event.id, recorded);
    }
    this.streams.set(stream, list);
    for (const listener of this.wakeListeners) listener();
    const last = list[list.length - 1];
    return {
      nextRevision: last ? last.revision : -1n,
      position: events.length > 0 ? BigInt(this.all.length - 1) : await this.headPosition(),
    };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const list = this.streams.get(stream) ?? [];
    const direction = options.direction ?? 'forwards';
    const maxCount = options.maxCount ?? Number.POSITIVE_INFINITY;
    const from = options.fromRevision ?? (direction === 'forwards' ? 'start' : 'end');
    let selected: RecordedEvent[];
    if (direction === 'forwards') {
      const start = from === 'start' ? 0n : from === 'end' ? BigInt(list.length) : from;
      selected = list.filter((event) => event.revision >= start);
    } else {
      const end = from === 'end' ? BigInt(list.length) : from === 'start' ? 0n : from;
      selected = list.filter((event) => event.revision <= end).reverse();
    }
    return selected.slice(0, maxCount);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const start = options.after === undefined ? 0 : Number(options.after + 1n);
    const maxCount = options.maxCount ?? Number.POSITIVE_INFINITY;
    return this.all.slice(Math.max(0, start), Math.max(0, start) + Math.min(maxCount, this.all.length));
  }

  async headPosition(): Promise<bigint> {
    return BigInt(this.all.length - 1);
  }

  subscribeToAll(handler: BatchHandler, options?: SubscribeOptions): Subscription {
    return pollingSubscription(
      {
        read: (after, maxCount) => this.readAll({ after, maxCount }),
        onWake: (listener) => {
          this.wakeListeners.add(listener);
          return () => this.wakeListeners.delete(listener);
        },
        pollIntervalMs: POLL_INTERVAL_MS,
      },
      handler,
      options,
    );
  }

  async close(): Promise<void> {}
}
