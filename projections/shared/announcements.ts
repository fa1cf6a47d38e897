// Writes that every node keeps a copy of in memory, announced to every node: the settings
// document (stream `settings`) and OAuth clients (streams `oauth-client-{id}`). These aggregates
// are appended by their commands on whichever node took the request; the node that wrote one
// updates its copy at once, and every node (itself included) hears of it here, through the
// projection changes relayed to all of them (cli/sharedState.ts applies them). This projector
// owns no table: its work is its announcements, in journal order, after its checkpoint commits.

import type { ProjectionChange, Projector } from '../projector.ts';

/** The settings aggregate's stream (commands/settings/store.ts). */
const SETTINGS_STREAM = 'settings';
/** The OAuth clients' stream prefix (commands/oauthClients/client.ts). */
const OAUTH_CLIENT_STREAM_PREFIX = 'oauth-client-';

export const announcementsProjector: Projector = {
  name: 'announcements',
  version: 1,
  tables: [],
  schemaSql: '',
  filter: { streamPrefixes: [SETTINGS_STREAM, OAUTH_CLIENT_STREAM_PREFIX] },
  async handle(_tx, events) {
    const changes: ProjectionChange[] = [];
    for (const event of events) {
      if (event.stream === SETTINGS_STREAM && event.type === 'SettingsChanged') {
        const data = event.data as { settings?: unknown };
        changes.push({
          projector: 'announcements',
          kind: 'settings_changed',
          keys: { revision: event.revision.toString() },
          doc: data.settings,
        });
      } else if (event.stream.startsWith(OAUTH_CLIENT_STREAM_PREFIX)) {
        changes.push({
          projector: 'announcements',
          kind: 'oauth_client_changed',
          keys: { client_id: event.stream.slice(OAUTH_CLIENT_STREAM_PREFIX.length) },
        });
      }
    }
    return changes;
  },
};
