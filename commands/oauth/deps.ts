// What the authorization server's commands need, declared here as ports (the composition root,
// cli/, supplies them): the event store (clients, grants, two-factor), the code and token tables,
// the clock, and the operator settings.

import type { Clock } from '../../domain/clock.ts';
import type { EventStore } from '../../eventstore/port.ts';
import type { AccountStatusReader } from '../auth/credentials.ts';
import type { ClientDirectory } from '../oauthClients/directory.ts';
import type { Settings } from '../settings/settings.ts';
import type { OAuthStore } from './tokenStore.ts';

export interface OAuthDeps {
  store: EventStore;
  tokens: OAuthStore;
  clients: ClientDirectory;
  clock: Clock;
  settings: { get(): Settings };
  /** Who owns an account (introspection's `sub`) and whether it may act. */
  accounts: AccountStatusReader;
  /** Told about failures that became a server_error (for the log). */
  onError?: (error: unknown, where: string) => void;
}
