// An aggregate's state folded from its stream, with the revision to append at (grants, two-factor).
import type { EventStore, ExpectedRevision } from '../../eventstore/port.ts';

export async function foldStream<S>(
  store: EventStore, stream: string, evolve: (state: S | null, event: { type: string; data: unknown }) => S | null,
): Promise<{ state: S | null; revision: ExpectedRevision }> {
  const events = await store.readStream(stream);
  let state: S | null = null;
  let revision: ExpectedRevision = 'no_stream';
  for (const event of events) {
    state = evolve(state, event);
    revision = event.revision;
  }
  return { state, revision };
}
