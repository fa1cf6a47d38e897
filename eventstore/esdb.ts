// EventStoreDB adapter (through @eventstore/db-client), chosen when EVENTSTORE_URL is set.
//
// Global position: the event's commit position in $all (for single-writer appends EventStoreDB
// gives each event commit == prepare, so the pair is rebuilt from one number). System events
// ($-prefixed streams and types) are invisible through this port. Subscriptions reuse the same
// catch-up loop as the other adapters (reads of $all strictly after the last delivered
// position); a live server subscription only wakes that loop, so delivery stays exactly once.

import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AppendExpectedRevision,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import {
  WrongExpectedRevision,
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
import { pollingSubscription } from './subscription.ts';

const POLL_INTERVAL_MS = 500;
const HEAD_SCAN_EVENTS_MAX = 500;
const READ_PAGE_EVENTS = 500;

type EsdbRecorded = NonNullable<AllStreamResolvedEvent['event']> | NonNullable<ResolvedEvent['event']>;

function isSystem(event: { streamId: string; type: string }): boolean {
  return event.streamId.startsWith('$') || event.type.startsWith('$');
}

function toRecorded(event: EsdbRecorded): RecordedEvent {
  const raw = event.data as unknown;
  const data = raw instanceof Uint8Array ? JSON.parse(Buffer.from(raw).toString('utf8')) : raw;
  return {
    id: event.id,
    stream: event.streamId,
    type: event.type,
    revision: event.revision,
    position: event.position?.commit ?? -1n,
    data,
    metadata: (event.metadata as Record<string, unknown> | undefined) ?? {},
    recordedAt: event.created,
  };
}

function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (expected === 'stream_exists') return STREAM_EXISTS;
  return expected;
}

export class EsdbEventStore implements EventStore {
  readonly kind = 'esdb' as const;
  private readonly wakeListeners = new Set<() => void>();
  private live: { unsubscribe(): Promise<void> } | undefined;

  private constructor(private readonly client: EventStoreDBClient) {}

  static async connect(url: string): Promise<EsdbEventStore> {
    const client = EventStoreDBClient.connectionString(url);
    const store = new EsdbEventStore(client);
    try {
      await store.headPosition(); // fail at start if the server is unreachable
    } catch (error) {
      await client.dispose().catch(() => undefined);
      throw new Error(`EventStoreDB at EVENTSTORE_URL is not reachable: ${(error as Error).message}`, { cause: error });
    }
    return store;
  }

  async append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((event) =>
          jsonEvent({
            id: event.id,
            type: event.type,
            data: (event.data ?? null) as never,
            metadata: (event.metadata ?? {}) as never,
          }),
        ),
        { expectedRevision: toEsdbExpected(expected) },
      );
      for (const listener of this.wakeListeners) listener();
      return {
        nextRevision: result.nextExpectedRevision,
        position: result.position?.commit ?? (await this.headPosition()),
      };
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion;
        throw new WrongExpectedRevision(stream, expected, typeof actual === 'bigint' ? actual : 'no_stream');
      }
      throw error;
    }
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const direction = options.direction ?? 'forwards';
    const from = options.fromRevision ?? (direction === 'forwards' ? 'start' : 'end');
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(stream, {
        direction: direction === 'forwards' ? FORWARDS : BACKWARDS,
        fromRevision: from === 'start' ? START : from === 'end' ? END : from,
        ...(options.maxCount !== undefined ? { maxCount: options.maxCount } : {}),
      });
      for await (const resolved of read) if (resolved.event) events.push(toRecorded(resolved.event));
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const maxCount = options.maxCount ?? Number.POSITIVE_INFINITY;
    const events: RecordedEvent[] = [];
    // Reading from a position includes the record there: skip everything at or below `floor`.
    let floor = options.after ?? -1n;
    let from: ReadPosition = options.after === undefined ? START : { commit: options.after, prepare: options.after };
    while (events.length < maxCount) {
      let readThisPage = 0;
      let last: { commit: bigint; prepare: bigint } | undefined;
      for await (const resolved of this.client.readAll({
        fromPosition: from,
        direction: FORWARDS,
        maxCount: READ_PAGE_EVENTS,
      })) {
        readThisPage += 1;
        const event = resolved.event;
        if (!event) continue;
        last = event.position;
        if (event.position.commit <= floor || isSystem(event)) continue;
        events.push(toRecorded(event));
        if (events.length >= maxCount) break;
      }
      if (readThisPage < READ_PAGE_EVENTS || !last) break;
      if (last.commit > floor) floor = last.commit;
      from = last;
    }
    return events;
  }

  async headPosition(): Promise<bigint> {
    for await (const resolved of this.client.readAll({
      fromPosition: END,
      direction: BACKWARDS,
      maxCount: HEAD_SCAN_EVENTS_MAX,
    })) {
      if (resolved.event && !isSystem(resolved.event)) return resolved.event.position.commit;
    }
    return -1n; // empty, or only system events near the end
  }

  subscribeToAll(handler: BatchHandler, options?: SubscribeOptions): Subscription {
    this.ensureLive();
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

  /** A server-side live subscription whose only job is to wake the catch-up loops on new events. */
  private ensureLive(): void {
    if (this.live) return;
    const subscription = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    subscription.on('data', () => {
      for (const listener of this.wakeListeners) listener();
    });
    subscription.on('error', () => {
      this.live = undefined; // the poll keeps delivering; the next subscribe re-arms the wake-up
    });
    this.live = subscription;
  }

  async close(): Promise<void> {
    await this.live?.unsubscribe().catch(() => undefined);
    this.live = undefined;
    await this.client.dispose();
  }
}
