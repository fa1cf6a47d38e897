// The event store contract on the in-memory adapter.
import { MemoryEventStore } from '../../eventstore/memory.ts';
import { eventStoreContract } from './contract.ts';

eventStoreContract('memory', async () => {
  const store = new MemoryEventStore();
  return { store, fresh: true, dispose: () => store.close() };
});
