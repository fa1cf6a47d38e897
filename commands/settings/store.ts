// The settings aggregate: one stream `settings` of SettingsChanged events, each carrying the patch
// and the whole document after it. Loaded once at start; kept in memory; every change validated,
// then appended with the expected revision (commands/handleCommand.ts: a concurrent writer makes us
// reload and re-apply). A change made by another node reaches the copy held here through
// `observe` (the composition root feeds it the announcements of every SettingsChanged).

import type { Logger } from 'pino';
import type { EventStore, RecordedEvent } from '../../eventstore/port.ts';
import { accepted, judged, type CommandResult } from '../result.ts';
import { append, handleCommand, loadAggregate, refuse, type Aggregate } from '../handleCommand.ts';
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

const SETTINGS_AGGREGATE: Aggregate<State> = {
  stream: SETTINGS_STREAM,
  initial: () => ({ settings: cloneSettings(DEFAULT_SETTINGS), revision: null }),
  evolve,
};

async function readState(store: EventStore): Promise<State> {
  return (await loadAggregate(store, SETTINGS_AGGREGATE)).state;
}

export async function loadSettingsStore(deps: {
  store: EventStore;
  logger: Pick<Logger, 'info' | 'warn'>;
}): Promise<SettingsStore> {
  const { store, logger } = deps;
  let state = await readState(store);
  // one change at a time inside this process; other writers are caught by the expected revision
  let queue: Promise<unknown> = Promise.resolve();

  async function apply(patch: Partial<Settings>): Promise<CommandResult<Settings>> {
    // the state held in memory is decided on first; after a concurrent change, a fresh read
    const known = { state, revision: state.revision === null ? ('no_stream' as const) : state.revision };
    const result = await handleCommand(
      store,
      SETTINGS_AGGREGATE,
      (loaded, attempt) => {
        if (attempt > 1) logger.warn({ attempt }, 'settings changed concurrently; reloading');
        const checked = judged(() => validateSettingsPatch(patch, loaded.state.settings));
        if (!checked.ok) return refuse(checked.refusal);
        const normalized = checked.value;
        if (Object.keys(normalized).length === 0) return append([], normalized);
        const data: SettingsChangedData = { patch: normalized, settings: { ...loaded.state.settings, ...normalized } };
        return append([{ type: SETTINGS_CHANGED, data }], normalized);
      },
      { attemptsMax: APPEND_ATTEMPTS_MAX, known },
    );
    if (!result.ok) return result;
    state = result.value.state;
    if (result.value.position !== null) logger.info({ changed: Object.keys(result.value.value) }, 'settings changed');
    return accepted(cloneSettings(state.settings));
  }

  return {
    get: () => state.settings,
    observe(settings: Settings, revision: bigint): void {
      if (state.revision !== null && revision <= state.revision) return;
      state = { settings: cloneSettings({ ...DEFAULT_SETTINGS, ...settings }), revision };
    },
    update(patch: Partial<Settings>): Promise<CommandResult<Settings>> {
      const run = queue.then(() => apply(patch));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
