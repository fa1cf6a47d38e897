// The snapshotter stage without a worker source: a snapshot written inline once the threshold of
// journaled steps is passed and no append is in flight; at a clean stop when anything was
// journaled since; never at a stop after the engine stopped itself (fenced, broken invariant).

import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { Engine } from '../../domain/engine/engine.ts';
import { snapshotPath } from '../../engine/recovery.ts';
import { Snapshotter } from '../../engine/snapshotter.ts';
import { account, T0 } from '../domain/engine/support.ts';

describe('engine stage: snapshotter (inline)', () => {
  let dataDir: string;
  const engine = new Engine();
  engine.step({ seq: 1, now_us: T0, input: account('a') });
  const head = { revision: 0n, position: 7n, recordId: 'r0' };
  const logger = pino({ level: 'silent' });
  const header = () =>
    JSON.parse(readFileSync(snapshotPath(dataDir), 'utf8').split('\n')[0] ?? '') as { seq: number; record_id: string };

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'engine-snapshotter-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('writes once the threshold is passed and no append is in flight', async () => {
    const snapshotter = new Snapshotter({ dataDir, logger, everySteps: 3 }, 1);
    snapshotter.counted(1);
    await snapshotter.whenDue(engine, head, true);
    expect(existsSync(snapshotPath(dataDir))).to.equal(false);
    snapshotter.counted(1);
    await snapshotter.whenDue(engine, head, false); // an append in flight: the state is ahead of the journal
    expect(existsSync(snapshotPath(dataDir))).to.equal(false);
    await snapshotter.whenDue(engine, head, true);
    expect(header()).to.include({ seq: 1, record_id: 'r0' });
  });

  it('writes nothing for an empty journal', async () => {
    const snapshotter = new Snapshotter({ dataDir, logger, everySteps: 1 }, 5);
    await snapshotter.whenDue(engine, { revision: undefined, position: -1n, recordId: undefined }, true);
    await snapshotter.stop(engine, { revision: undefined, position: -1n, recordId: undefined }, true);
    expect(existsSync(snapshotPath(dataDir))).to.equal(false);
  });

  it('a clean stop writes the state when steps were journaled since; a stop after the engine stopped itself does not', async () => {
    await new Snapshotter({ dataDir, logger, everySteps: 100 }, 0).stop(engine, head, true);
    expect(existsSync(snapshotPath(dataDir))).to.equal(false);
    await new Snapshotter({ dataDir, logger, everySteps: 100 }, 2).stop(engine, head, false);
    expect(existsSync(snapshotPath(dataDir))).to.equal(false);
    await new Snapshotter({ dataDir, logger, everySteps: 100 }, 2).stop(engine, head, true);
    expect(header()).to.include({ seq: 1, record_id: 'r0' });
  });
});
