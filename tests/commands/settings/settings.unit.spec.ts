// The settings aggregate on the memory event store: defaults, validation of every field,
// persistence as SettingsChanged events on stream `settings`, and reload after a restart.

import { expect } from 'chai';
import { valueOrThrow } from '../../../commands/result.ts';
import { MemoryEventStore } from '../../../eventstore/memory.ts';
import { loadSettingsStore, SETTINGS_STREAM } from '../../../commands/settings/store.ts';
import { DEFAULT_SETTINGS } from '../../../commands/settings/settings.ts';

const silent = { info: () => undefined, warn: () => undefined };

describe('settings store', () => {
  it('starts from the defaults on an empty store', async () => {
    const settings = await loadSettingsStore({ store: new MemoryEventStore(), logger: silent });
    expect(settings.get()).to.deep.equal(DEFAULT_SETTINGS);
  });

  it('applies a patch, records it on the settings stream and survives a reload', async () => {
    const store = new MemoryEventStore();
    const settings = await loadSettingsStore({ store, logger: silent });
    const after = valueOrThrow(
      await settings.update({
        leaderboard_enabled: false,
        batch_limit: 50,
        leaderboard_boards: [{ period: 'weekly', category: 'all', metric: 'profit', shown: true }],
        geofencing: {
          enforced: true,
          allowed_codes: ['US-NY'],
          accept_network_location: false,
          blocked_networks: ['10.0.0.0/8'],
        },
      }),
    );
    expect(after.leaderboard_enabled).to.equal(false);
    expect(after.batch_limit).to.equal(50);
    expect(after.geofencing.enforced).to.equal(true);
    const events = await store.readStream(SETTINGS_STREAM);
    expect(events.map((e) => e.type)).to.deep.equal(['SettingsChanged']);

    const reloaded = await loadSettingsStore({ store, logger: silent });
    expect(reloaded.get()).to.deep.equal(after);
  });

  it('keeps unsent geofencing fields when a part of the object is patched', async () => {
    const settings = await loadSettingsStore({ store: new MemoryEventStore(), logger: silent });
    await settings.update({ geofencing: { ...DEFAULT_SETTINGS.geofencing, allowed_codes: ['CA-ON'] } });
    const after = valueOrThrow(await settings.update({ geofencing: { enforced: true } } as never));
    expect(after.geofencing).to.deep.equal({
      enforced: true,
      allowed_codes: ['CA-ON'],
      accept_network_location: false,
      blocked_networks: [],
    });
  });

  const refused: Array<[string, Record<string, unknown>]> = [
    ['unknown field', { colour: 'red' }],
    ['boolean as string', { leaderboard_enabled: 'yes' }],
    ['non-integer limit', { batch_limit: 1.5 }],
    ['zero batch limit', { batch_limit: 0 }],
    ['limit as string', { registration_limit_per_hour: '10' }],
    ['handles not a list', { reserved_handles: 'admin' }],
    ['empty handle', { blocked_handles: [''] }],
    [
      'board with unknown period',
      { leaderboard_boards: [{ period: 'hourly', category: 'all', metric: 'profit', shown: true }] },
    ],
    [
      'board with unknown metric',
      { leaderboard_boards: [{ period: 'daily', category: 'all', metric: 'luck', shown: true }] },
    ],
    ['board without shown', { leaderboard_boards: [{ period: 'daily', category: 'all', metric: 'profit' }] }],
    [
      'repeated board',
      {
        leaderboard_boards: [
          { period: 'daily', category: 'all', metric: 'profit', shown: true },
          { period: 'daily', category: 'all', metric: 'profit', shown: false },
        ],
      },
    ],
    ['geofencing not an object', { geofencing: true }],
    ['geofencing unknown field', { geofencing: { strict: true } }],
    ['geofencing bad CIDR', { geofencing: { blocked_networks: ['10.0.0.0/33'] } }],
    ['oauth_unavailable as number', { oauth_unavailable: 1 }],
  ];
  for (const [name, patch] of refused) {
    it(`refuses ${name} as invalid input and changes nothing`, async () => {
      const store = new MemoryEventStore();
      const settings = await loadSettingsStore({ store, logger: silent });
      const result = await settings.update(patch);
      expect(result.ok ? null : result.refusal.code).to.equal('invalid_input');
      expect(settings.get()).to.deep.equal(DEFAULT_SETTINGS);
      expect(await store.readStream(SETTINGS_STREAM)).to.have.length(0);
    });
  }

  it('normalizes handle lists to lowercase without duplicates', async () => {
    const settings = await loadSettingsStore({ store: new MemoryEventStore(), logger: silent });
    const after = valueOrThrow(await settings.update({ reserved_handles: ['Admin', 'admin', 'Staff'] }));
    expect(after.reserved_handles).to.deep.equal(['admin', 'staff']);
  });

  it('a second process writing in between is picked up, not overwritten', async () => {
    const store = new MemoryEventStore();
    const first = await loadSettingsStore({ store, logger: silent });
    const second = await loadSettingsStore({ store, logger: silent });
    await first.update({ batch_limit: 10 });
    const after = valueOrThrow(await second.update({ leaderboard_enabled: false }));
    expect(after.batch_limit).to.equal(10);
    expect(after.leaderboard_enabled).to.equal(false);
  });
});

describe('settings store: board categories', () => {
  it('folds a sport name to its key, as the leaderboard does', async () => {
    const settings = await loadSettingsStore({
      store: new MemoryEventStore(),
      logger: { info: () => undefined, warn: () => undefined },
    });
    const after = valueOrThrow(
      await settings.update({
        leaderboard_boards: [{ period: 'daily', category: 'Ice Hockey', metric: 'volume', shown: true }],
      }),
    );
    expect(after.leaderboard_boards[0]?.category).to.equal('ice_hockey');
  });
});
