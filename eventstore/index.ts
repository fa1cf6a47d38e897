// Chooses the event store adapter: EventStoreDB when EVENTSTORE_URL is set, else PostgreSQL
// (the same database as the read models). `memory` exists for unit tests.

import type pg from 'pg';
import type { EventStore } from './port.ts';
import { MemoryEventStore } from './memory.ts';
import { PostgresEventStore } from './postgres.ts';

export type { EventStore } from './port.ts';

export type EventStoreChoice =
  { kind: 'memory' } | { kind: 'postgres'; pool: pg.Pool; connectionString?: string } | { kind: 'esdb'; url: string };

export async function createEventStore(choice: EventStoreChoice): Promise<EventStore> {
  switch (choice.kind) {
    case 'memory':
      return new MemoryEventStore();
    case 'postgres':
      return new PostgresEventStore({ pool: choice.pool, connectionString: choice.connectionString });
    case 'esdb': {
      // Loaded only when used: the gRPC client is heavy.
      const { EsdbEventStore } = await import('./esdb.ts');
      return EsdbEventStore.connect(choice.url);
    }
    default: {
      const never: never = choice;
      throw new Error(`unknown event store ${JSON.stringify(never)}`);
    }
  }
}
