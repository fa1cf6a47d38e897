// Engine recovery: the newest snapshot under DATA_DIR/engine (when it still matches the journal)
// plus a replay of the journal tail. Also used by `exchange replay --verify`.

import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Engine } from '../domain/engine/engine.ts';
import { decodeState, encodeState, isCurrentSnapshot } from '../domain/engine/snapshot.ts';
import type { EventStore, RecordedEvent } from '../eventstore/port.ts';
import { present } from '../domain/assert.ts';
import type { Place } from './gateway.ts';
import { BookSequence, forgetBookLevels } from './bookSequence.ts';
import {
  ENGINE_STREAM,
  FACTS_RECORD_VERSION,
  isEngineRecord,
  journalInputsOf,
  lastSeqOf,
  type EngineRecordData,
  type JournalInput,
} from '../domain/engine/journal/journal.ts';

/**
 * Journal records read per page. A record holds up to 256 steps or 2,000 outcome events (up to
 * about 0.5 MB of JSON), so a page stays within a few tens of MB however long the tail.
 */
export const JOURNAL_READ_PAGE_SIZE = 64;
const SNAPSHOT_FILE = 'snapshot.json';

/**
 * `record_id` is the id of the journal record at `revision`: a snapshot only fits its own journal.
 * `places`: the journal place of each live order known when it was written ([order id, record
 * position, fact index]; what the read models sort `GET /orders` by; absent in older snapshots).
 */
export interface SnapshotHeader {
  seq: number;
  revision: string;
  position: string;
  record_id: string;
  places?: Array<[string, string, number]>;
  /**
   * Each market's book seq ([market id, seq], engine/bookSequence.ts; markets whose book never
   * moved are left out). Absent in older snapshots: recovery then replays the journal from the
   * start, the only way to count them.
   */
  book_seqs?: Array<[string, number]>;
}

export interface Recovered {
  engine: Engine;
  /** Last revision of the journal stream, undefined when it does not exist yet. */
  revision: bigint | undefined;
  position: bigint;
  /** Id of the last journal record (undefined when the journal is empty). */
  recordId: string | undefined;
  replayedSteps: number;
  fromSnapshot: boolean;
  /** Journal places of live orders, where known: from the snapshot and the replayed tail (for the live view). */
  places: Map<string, Place>;
  /** Each market's book seq as the recovered state stands. */
  bookSequence: BookSequence;
}

export function snapshotPath(dataDir: string): string {
  return path.join(dataDir, 'engine', SNAPSHOT_FILE);
}

/** A temporary file beside the snapshot, unique to this writer (the engine and a snapshot worker may both write). */
export function snapshotTemporaryPath(dataDir: string): string {
  return `${snapshotPath(dataDir)}.${process.pid}.${randomUUID()}.tmp`;
}

/**
 * Writes the state as the snapshot at `revision`: to `temporary` first, then renamed over the
 * snapshot, so a reader finds the old snapshot or the new one whole, never a part.
 */
export async function writeSnapshot(
  dataDir: string,
  engine: Engine,
  revision: bigint,
  position: bigint,
  recordId: string,
  temporary = snapshotTemporaryPath(dataDir),
  places?: ReadonlyMap<string, Place>,
  /** Each market's book seq for this state (without it the snapshot is one recovery replays past). */
  bookSeqs?: ReadonlyMap<string, number>,
): Promise<void> {
  const file = snapshotPath(dataDir);
  await mkdir(path.dirname(file), { recursive: true });
  const header: SnapshotHeader = {
    seq: engine.state.seq,
    revision: String(revision),
    position: String(position),
    record_id: recordId,
  };
  if (places && places.size > 0) {
    header.places = [];
    for (const id of engine.state.orders.keys()) {
      const place = places.get(id);
      if (place) header.places.push([id, String(place[0]), place[1]]);
    }
  }
  if (bookSeqs) header.book_seqs = [...bookSeqs];
  const text = `${JSON.stringify(header)}\n${encodeState(engine.state)}`;
  try {
    await writeFile(temporary, text, { mode: 0o600 });
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  }
}

async function readSnapshot(dataDir: string): Promise<{ header: SnapshotHeader; body: string } | undefined> {
  try {
    const text = await readFile(snapshotPath(dataDir), 'utf8');
    const newline = text.indexOf('\n');
    return { header: JSON.parse(text.slice(0, newline)) as SnapshotHeader, body: text.slice(newline + 1) };
  } catch {
    return undefined;
  }
}

/**
 * Pages through the journal from `fromRevision`, handing each step (as `read` takes it out of its
 * record) to `onStep` with its record. A record whose steps cannot be read is handed over once
 * with `step` undefined and the error.
 */
export async function readJournal<Step>(
  store: EventStore,
  fromRevision: bigint,
  read: (record: RecordedEvent) => Step[],
  onStep: (step: Step | undefined, record: RecordedEvent<EngineRecordData>, unreadable?: unknown) => void,
): Promise<void> {
  let next = fromRevision;
  for (;;) {
    const page = await store.readStream(ENGINE_STREAM, { fromRevision: next, maxCount: JOURNAL_READ_PAGE_SIZE });
    for (const record of page) {
      if (!isEngineRecord(record)) continue;
      let steps: Step[];
      try {
        steps = read(record);
      } catch (error) {
        onStep(undefined, record, error);
        continue;
      }
      for (const step of steps) onStep(step, record);
    }
    if (page.length < JOURNAL_READ_PAGE_SIZE) return;
    next = present(page[page.length - 1], 'a full page has a last record').revision + 1n;
  }
}

async function streamExists(store: EventStore): Promise<boolean> {
  const head = await store.readStream(ENGINE_STREAM, { direction: 'backwards', fromRevision: 'end', maxCount: 1 });
  return head.length > 0;
}

export async function recover(store: EventStore, dataDir: string | null): Promise<Recovered> {
  let engine = new Engine();
  let revision: bigint | undefined;
  let position = -1n;
  let recordId: string | undefined;
  let fromSnapshot = false;
  const places = new Map<string, Place>();
  let bookSequence = new BookSequence();
  const snapshot = dataDir ? await readSnapshot(dataDir) : undefined;
  // a snapshot of an earlier state version lacks what the journal taught it since, one without
  // the book seqs cannot tell them: replay it all
  if (snapshot && isCurrentSnapshot(snapshot.body) && snapshot.header.book_seqs) {
    const at = BigInt(snapshot.header.revision);
    const [record] = await store.readStream(ENGINE_STREAM, { fromRevision: at, maxCount: 1 });
    if (
      record &&
      isEngineRecord(record) &&
      lastSeqOf(record) === snapshot.header.seq &&
      record.revision === at &&
      record.id === snapshot.header.record_id
    ) {
      engine = new Engine(decodeState(snapshot.body));
      forgetBookLevels(engine.state); // the levels it rebuilt are the snapshot's, counted in its seqs
      for (const [id, at, index] of snapshot.header.places ?? []) places.set(id, [BigInt(at), index]);
      bookSequence = new BookSequence(snapshot.header.book_seqs);
      revision = at;
      position = record.position;
      recordId = record.id;
      fromSnapshot = true;
    }
  }
  let replayedSteps = 0;
  let base = 0; // facts of the record's earlier steps
  let recordNowUs = 0; // newest step of the record being replayed
  if (revision !== undefined || (await streamExists(store))) {
    await readJournal(
      store,
      revision === undefined ? 0n : revision + 1n,
      journalInputsOf,
      (step, record, unreadable) => {
        if (!step)
          throw new Error(`journal record at revision ${record.revision} is unreadable: ${String(unreadable)}`);
        if (record.id !== recordId) {
          bookSequence.afterRecord(engine.state, recordNowUs); // the record before this one is whole
          base = 0;
          recordNowUs = 0;
        }
        const outcome = replayStep(engine, step);
        if (step.now_us > recordNowUs) recordNowUs = step.now_us;
        // a step of an older record version counts its old events: its orders' places stay unknown
        if (step.version >= FACTS_RECORD_VERSION) {
          outcome.events.forEach((event, i) => {
            if (event.type === 'OrderAccepted') places.set(event.order_id, [record.position, base + i]);
          });
        }
        base += outcome.events.length;
        revision = record.revision;
        position = record.position;
        recordId = record.id;
        replayedSteps++;
      },
    );
  }
  bookSequence.afterRecord(engine.state, recordNowUs); // the last record replayed
  for (const id of places.keys()) if (!engine.state.orders.has(id)) places.delete(id);
  return { engine, revision, position, recordId, replayedSteps, fromSnapshot, places, bookSequence };
}

/** Re-runs one journaled step; throws when it does not fit (the journal and the engine disagree). */
export function replayStep(engine: Engine, step: JournalInput): ReturnType<Engine['step']> {
  const { seq, now_us, input } = step;
  if (seq !== engine.nextSeq) throw new Error(`journal step ${seq} found where ${engine.nextSeq} was expected`);
  const outcome = engine.step({ seq, now_us, input });
  if (!outcome.ok || outcome.events.length === 0) throw new Error(`journal step ${seq} no longer produces events`);
  // a step of an older record version journaled views, not facts: its count says nothing of today's
  if (step.version >= FACTS_RECORD_VERSION && outcome.events.length !== step.eventCount) {
    throw new Error(
      `journal step ${seq} produces ${outcome.events.length} events where ${step.eventCount} were journaled`,
    );
  }
  return outcome;
}
