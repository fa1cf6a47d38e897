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
import { FACTS_RECORD_VERSION, FACTS_V4_RECORD_VERSION, journalStepsOf } from '../domain/engine/journal/journal.ts';

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

/** `onProgress` is told the global position of each journal record read (for a progress line). */
export async function verifyJournal(
  store: EventStore,
  dataDir: string | null,
  onProgress?: (position: bigint) => void,
): Promise<VerifyReport> {
  const engine = new Engine();
  const mismatches: VerifyReport['mismatches'] = [];
  let snapshotHeader: SnapshotHeader | undefined;
  let snapshotBody: string | undefined;
  if (dataDir) {
    try {
      const text = await readFile(snapshotPath(dataDir), 'utf8');
      const newline = text.indexOf('\n');
      snapshotHeader = JSON.parse(text.slice(0, newline)) as SnapshotHeader;
      snapshotBody = text.slice(newline + 1);
      // a snapshot of an earlier state version is not resumed from (recovery replays it all): nothing to compare
      if (!isCurrentSnapshot(snapshotBody)) snapshotHeader = snapshotBody = undefined;
    } catch {
      snapshotHeader = undefined;
    }
  }
  let hashAtSnapshot: string | undefined;
  let resumed: Engine | undefined;
  let steps = 0;
  let viewSteps = 0;
  let fold: EngineStateFold | null = new EngineStateFold(initialState());
  await readJournal(store, 0n, journalStepsOf, (step, record, unreadable) => {
    onProgress?.(record.position);
    if (!step) {
      if (mismatches.length < MISMATCHES_MAX)
        mismatches.push({
          seq: engine.nextSeq,
          reason: `journal record at revision ${record.revision} unreadable: ${String(unreadable)}`,
        });
      return;
    }
    const { seq, now_us, input, events, version } = step;
    steps++;
    const note = (reason: string) => {
      if (mismatches.length < MISMATCHES_MAX) mismatches.push({ seq, reason });
    };
    if (seq !== engine.nextSeq) note(`sequence ${seq} where ${engine.nextSeq} was expected`);
    let outcome;
    try {
      outcome = engine.step({ seq, now_us, input });
    } catch (error) {
      note(`step threw: ${String(error)}`);
      return;
    }
    if (!outcome.ok) note(`step refused: ${outcome.error ? messageOf(outcome.error) : 'no reason'}`);
    else if (version < FACTS_RECORD_VERSION) viewSteps++;
    else if (JSON.stringify(outcome.events) !== JSON.stringify(events))
      note(`events differ (${outcome.events.length} replayed, ${events.length} journaled)`);
    if (fold && version < FACTS_V4_RECORD_VERSION) fold = null;
    if (fold) {
      try {
        fold.step(seq, now_us, events);
      } catch (error) {
        note(`facts do not fold: ${String(error)}`);
        fold = null;
      }
    }
    if (resumed) resumed.step({ seq, now_us, input });
    if (snapshotHeader && snapshotBody && seq === snapshotHeader.seq) {
      hashAtSnapshot = stateHash(engine.state);
      resumed = new Engine(decodeState(snapshotBody));
    }
  });
  const finalStateHash = stateHash(engine.state);
  const snapshot =
    snapshotHeader && snapshotBody !== undefined
      ? {
          seq: snapshotHeader.seq,
          matches: hashAtSnapshot !== undefined && hashAtSnapshot === stateHash(decodeState(snapshotBody)),
          resumedHashMatches: resumed !== undefined && stateHash(resumed.state) === finalStateHash,
        }
      : null;
  const folded = fold ? { matches: stateHash(fold.state) === finalStateHash } : null;
  return {
    steps,
    viewSteps,
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
