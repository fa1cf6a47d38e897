// Replay verification (`exchange replay --verify`): feeds every journaled input into a fresh
// engine and checks that each step produces exactly the journaled facts (steps of record versions
// before facts held views: those are re-run, not compared), that the state hash
// at the snapshot's revision equals the snapshot's own hash, that replaying from that
// snapshot reaches the same final state hash as replaying from zero, and that the journal's facts
// alone, folded from zero with the domain's evolve (domain/evolve/state.ts), give that state too.

import { messageOf } from '../domain/errors.ts';
import { readFile } from 'node:fs/promises';
import { Engine } from '../domain/engine/engine.ts';
import { decodeState, initialState, isCurrentSnapshot, stateHash } from '../domain/engine/snapshot.ts';
import { EngineStateFold } from '../domain/evolve/state.ts';
import type { EventStore } from '../eventstore/port.ts';
import { readJournal, snapshotPath, type SnapshotHeader } from './recovery.ts';
import {
  FACTS_RECORD_VERSION,
  FACTS_V4_RECORD_VERSION,
  journalStepsOf,
  type JournalStep,
} from '../domain/engine/journal/journal.ts';

export interface VerifyReport {
  steps: number;
  /**
   * Steps of record versions older than this engine's facts (views before facts, and facts of
   * versions 4 and 5, upcast rather than emitted by this engine): re-run and counted in the state
   * hash, but their events are not compared.
   */
  viewSteps: number;
  mismatches: { seq: number; reason: string }[];
  finalSeq: number;
  finalStateHash: string;
  snapshot: { seq: number; matches: boolean; resumedHashMatches: boolean } | null;
  /**
   * The journal's facts folded from zero (no input re-run): whether they give the final state
   * hash. null when a step's facts were upcast from views (record versions before 4: not folded).
   */
  folded: { matches: boolean } | null;
  ok: boolean;
}

const MISMATCHES_MAX = 20;

/** The snapshot in `dataDir` when it is of this state version (an older one is not resumed from: nothing to compare). */
async function currentSnapshotOf(
  dataDir: string | null,
): Promise<{ header: SnapshotHeader; body: string } | undefined> {
  if (!dataDir) return undefined;
  try {
    const text = await readFile(snapshotPath(dataDir), 'utf8');
    const newline = text.indexOf('\n');
    const header = JSON.parse(text.slice(0, newline)) as SnapshotHeader;
    const body = text.slice(newline + 1);
    return isCurrentSnapshot(body) ? { header, body } : undefined;
  } catch {
    return undefined;
  }
}

/** One pass over the journal: each step re-run, compared, folded, and (past the snapshot) resumed. */
class Verification {
  readonly engine = new Engine();
  readonly mismatches: VerifyReport['mismatches'] = [];
  steps = 0;
  viewSteps = 0;
  private fold: EngineStateFold | null = new EngineStateFold(initialState());
  private hashAtSnapshot: string | undefined;
  private resumed: Engine | undefined;

  constructor(private readonly snapshot: { header: SnapshotHeader; body: string } | undefined) {}

  private note(seq: number, reason: string): void {
    if (this.mismatches.length < MISMATCHES_MAX) this.mismatches.push({ seq, reason });
  }

  unreadable(revision: bigint, error: unknown): void {
    this.note(this.engine.nextSeq, `journal record at revision ${revision} unreadable: ${String(error)}`);
  }

  step(step: JournalStep): void {
    const { seq, now_us, input, events, version } = step;
    const engine = this.engine;
    this.steps++;
    if (seq !== engine.nextSeq) this.note(seq, `sequence ${seq} where ${engine.nextSeq} was expected`);
    let outcome;
    try {
      outcome = engine.step({ seq, now_us, input });
    } catch (error) {
      this.note(seq, `step threw: ${String(error)}`);
      return;
    }
    if (!outcome.ok) this.note(seq, `step refused: ${outcome.error ? messageOf(outcome.error) : 'no reason'}`);
    else if (version < FACTS_RECORD_VERSION) this.viewSteps++;
    else if (JSON.stringify(outcome.events) !== JSON.stringify(events))
      this.note(seq, `events differ (${outcome.events.length} replayed, ${events.length} journaled)`);
    this.folded(step);
    if (this.resumed) this.resumed.step({ seq, now_us, input });
    if (this.snapshot && seq === this.snapshot.header.seq) {
      this.hashAtSnapshot = stateHash(engine.state);
      this.resumed = new Engine(decodeState(this.snapshot.body));
    }
  }

  /** Folds the step's facts (until a step of a version before facts v4, which does not fold). */
  private folded({ seq, now_us, events, version }: JournalStep): void {
    if (this.fold && version < FACTS_V4_RECORD_VERSION) this.fold = null;
    if (!this.fold) return;
    try {
      this.fold.step(seq, now_us, events);
    } catch (error) {
      this.note(seq, `facts do not fold: ${String(error)}`);
      this.fold = null;
    }
  }

  report(): VerifyReport {
    const { engine, mismatches } = this;
    const finalStateHash = stateHash(engine.state);
    const snapshot = this.snapshot
      ? {
          seq: this.snapshot.header.seq,
          matches:
            this.hashAtSnapshot !== undefined && this.hashAtSnapshot === stateHash(decodeState(this.snapshot.body)),
          resumedHashMatches: this.resumed !== undefined && stateHash(this.resumed.state) === finalStateHash,
        }
      : null;
    const folded = this.fold ? { matches: stateHash(this.fold.state) === finalStateHash } : null;
    return {
      steps: this.steps,
      viewSteps: this.viewSteps,
      mismatches,
      finalSeq: engine.state.seq,
      finalStateHash,
      snapshot,
      folded,
      ok:
        mismatches.length === 0 &&
        (snapshot === null || (snapshot.matches && snapshot.resumedHashMatches)) &&
        (folded === null || folded.matches),
    };
  }
}

/** `onProgress` is told the global position of each journal record read (for a progress line). */
export async function verifyJournal(
  store: EventStore,
  dataDir: string | null,
  onProgress?: (position: bigint) => void,
): Promise<VerifyReport> {
  const verification = new Verification(await currentSnapshotOf(dataDir));
  await readJournal(store, 0n, journalStepsOf, (step, record, unreadable) => {
    onProgress?.(record.position);
    if (step) verification.step(step);
    else verification.unreadable(record.revision, unreadable);
  });
  return verification.report();
}
