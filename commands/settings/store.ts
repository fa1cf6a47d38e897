// The settings aggregate: one stream `settings` of SettingsChanged events, each carrying the patch
// and the whole document after it. Loaded once at start; kept in memory; every change validated,
// then appended with the expected revision (a concurrent writer makes us reload and re-apply).

import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { EventStore, RecordedEvent } from '../../eventstore/port.ts';
import { WrongExpectedRevision } from '../../eventstore/port.ts';
import { DEFAULT_SETTINGS, type Settings, type SettingsStore } from './settings.ts';
import { validateSettingsPatch } from './validate.ts';

export const SETTINGS_STREAM = 'settings';
const SETTINGS_CHANGED = 'SettingsChanged';
const APPEND_ATTEMPTS_MAX = 5;

interface SettingsChangedData {
  patch: Partial<Settings>;
  settings: Settings;
}

interface State {
  settings: Settings;
  revision: bigint | null; // null: the stream does not exist yet
}

/** evolve: later fields added to Settings fall back to their defaults on old snapshots. */
function evolve(state: State, event: RecordedEvent): State {
  if (event.type !== SETTINGS_CHANGED) return { ...state, revision: event.revision };
  const data = event.data as SettingsChangedData;
  return { settings: cloneSettings({ ...DEFAULT_SETTINGS, ...data.settings }), revision: event.revision };
}

function cloneSettings(settings: Settings): Settings {
  return structuredClone(settings);
}

async function readState(store: EventStore): Promise<State> {
  let state: State = { settings: cloneSettings(DEFAULT_SETTINGS), revision: null };
  const events = await store.readStream(SETTINGS_STREAM);
  for (const event of events) state = evolve(state, event);
  return state;
}

export async function loadSettingsStore(deps: { store: EventStore; logger: Pick<Logger, 'info' | 'warn'> }): Promise<SettingsStore> {
  const { store, logger } = deps;
  let state = await readState(store);
  // one change at a time inside this process; other writers are caught by the expected revision
  let queue: Promise<unknown> = Promise.resolve();

  async function apply(patch: Partial<Settings>): Promise<Settings> {
    for (let attempt = 1; ; attempt += 1) {
      const normalized = validateSettingsPatch(patch, state.settings);
      if (Object.keys(normalized).length === 0) return cloneSettings(state.settings);
      const next: Settings = { ...state.settings, ...normalized };
      const data: SettingsChangedData = { patch: normalized, settings: next };
      try {
        const result = await store.append(
          SETTINGS_STREAM,
          [{ id: randomUUID(), type: SETTINGS_CHANGED, data }],
          state.revision === null ? 'no_stream' : state.revision,
        );
        state = { settings: cloneSettings(next), revision: result.nextRevision };
        logger.info({ changed: Object.keys(normalized) }, 'settings changed');
        return cloneSettings(state.settings);
      } catch (err) {
        if (!(err instanceof WrongExpectedRevision) || attempt >= APPEND_ATTEMPTS_MAX) throw err;
        logger.warn({ attempt }, 'settings changed concurrently; reloading');
        state = await readState(store);
      }
    }
  }

  return {
    get: () => state.settings,
    update(patch: Partial<Settings>): Promise<Settings> {
      const run = queue.then(() => apply(patch));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
