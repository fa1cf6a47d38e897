// The event store contract on EventStoreDB: runs only when EVENTSTORE_URL points at a server
// (docker/docker-compose.yml starts one), e.g. EVENTSTORE_URL=esdb://localhost:2113?tls=false.
import { eventStoreContract } from './contract.ts';

const url = process.env.EVENTSTORE_URL;

if (url) {
  // Each test gets its own view: streams are named per run, so one server serves every test.
  eventStoreContract('esdb', async () => {
    const { EsdbEventStore } = await import('../../eventstore/esdb.ts');
    const store = await EsdbEventStore.connect(url);
    return { store, fresh: false, dispose: () => store.close() };
  });
} else {
  describe('event store contract: esdb', () => {
    it('runs when EVENTSTORE_URL is set');
  });
}
