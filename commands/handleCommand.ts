// The one aggregate command handler (emmett's handleCommand shape): read the aggregate's stream,
// fold it with the aggregate's evolve, let the command decide on the state, append the decided
// events at the revision that was read, and on a concurrent append (WrongExpectedRevision)
// decide again on a fresh read, at most COMMAND_ATTEMPTS_MAX times in all (a command may bound it
// lower or higher with `attemptsMax`). Grants, two-factor, OAuth clients, settings and profiles
// run through it.
//
// A decision is one of: append these events (none: nothing to write) and answer this value;
// refuse (nothing written; the refusal is the command's answer); or decide again on a fresh read
// (a choice the command made, like a generated name someone else took, counts as an attempt; on
// its last attempt the command refuses instead).
// The answer is the commands' one result type, CommandResult: accepted with the value, the state
// after the events and the position of the last event written, or refused. Past the bound the
// last WrongExpectedRevision is thrown (the caller names the conflict in its own terms).

import { randomUUID } from 'node:crypto';
import type { Refusal } from '../domain/errors.ts';
import {
  WrongExpectedRevision,
  type EventStore,
  type ExpectedRevision,
  type RecordedEvent,
} from '../eventstore/port.ts';
import { accepted, refused, type CommandResult } from './result.ts';

/** Attempts (reads and appends) per command unless it names its own bound. */
export const COMMAND_ATTEMPTS_MAX = 3;

/** An aggregate: its stream, its state before any event, and how one recorded event changes it. */
export interface Aggregate<S> {
  stream: string;
  initial(): S;
  evolve(state: S, event: RecordedEvent): S;
}

export interface PendingEvent {
  type: string;
  data: unknown;
}

export type Decision<T> =
  | { kind: 'append'; events: readonly PendingEvent[]; value: T }
  | { kind: 'refuse'; refusal: Refusal }
  | { kind: 'retry' };

export const append = <T>(events: readonly PendingEvent[], value: T): Decision<T> => ({
  kind: 'append',
  events,
  value,
});
export const refuse = (refusal: Refusal): Decision<never> => ({ kind: 'refuse', refusal });
export const decideAgain: Decision<never> = { kind: 'retry' };

/** What the command decides on: the folded state, whether the stream exists, and its revision. */
export interface Loaded<S> {
  state: S;
  /** `no_stream` when the stream has no event yet. */
  revision: ExpectedRevision;
}

export interface Handled<S, T> {
  value: T;
  /** The state after the appended events. */
  state: S;
  /** The global position of the last event written; null when nothing was written. */
  position: bigint | null;
  /** The stream's revision after the command. */
  revision: ExpectedRevision;
}

/** Reads and folds the aggregate's stream. */
export async function loadAggregate<S>(store: EventStore, aggregate: Aggregate<S>): Promise<Loaded<S>> {
  let state = aggregate.initial();
  let revision: ExpectedRevision = 'no_stream';
  for (const event of await store.readStream(aggregate.stream)) {
    state = aggregate.evolve(state, event);
    revision = event.revision;
  }
  return { state, revision };
}

export async function handleCommand<S, T>(
  store: EventStore,
  aggregate: Aggregate<S>,
  decide: (loaded: Loaded<S>, attempt: number) => Decision<T> | Promise<Decision<T>>,
  options: { attemptsMax?: number; known?: Loaded<S> } = {},
): Promise<CommandResult<Handled<S, T>>> {
  const attemptsMax = options.attemptsMax ?? COMMAND_ATTEMPTS_MAX;
  let known = options.known;
  for (let attempt = 1; ; attempt += 1) {
    const loaded = known ?? (await loadAggregate(store, aggregate));
    known = undefined; // a state held from before is tried once; after a conflict, read afresh
    const decision = await decide(loaded, attempt);
    if (decision.kind === 'refuse') return refused(decision.refusal);
    if (decision.kind === 'retry') {
      if (attempt >= attemptsMax)
        throw new Error(
          `${aggregate.stream}: decided again ${attemptsMax} times; the command refuses on its last attempt instead`,
        );
      continue;
    }
    if (decision.events.length === 0)
      return accepted({ value: decision.value, state: loaded.state, position: null, revision: loaded.revision });
    const recorded = decision.events.map((event) => ({ id: randomUUID(), type: event.type, data: event.data }));
    try {
      const result = await store.append(aggregate.stream, recorded, loaded.revision);
      let state = loaded.state;
      let revision = typeof loaded.revision === 'bigint' ? loaded.revision : -1n;
      for (const event of recorded) {
        revision += 1n;
        state = aggregate.evolve(state, {
          ...event,
          stream: aggregate.stream,
          revision,
          position: result.position,
          metadata: {},
          recordedAt: new Date(0),
        });
      }
      return accepted({ value: decision.value, state, position: result.position, revision: result.nextRevision });
    } catch (err) {
      // another writer appended since the read: decide again on the newer state
      if (!(err instanceof WrongExpectedRevision) || attempt >= attemptsMax) throw err;
    }
  }
}
