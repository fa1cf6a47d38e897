// Command handlers of the OAuth client registry: read the stream, decide, append with the
// expected revision (commands/handleCommand.ts). A secret is generated for web and server apps and
// returned exactly once.

import { randomUUID } from 'node:crypto';
import type { EventStore } from '../../eventstore/port.ts';
import { accepted, judged, type CommandResult } from '../result.ts';
import { append, handleCommand, loadAggregate, refuse, type Aggregate } from '../handleCommand.ts';
import {
  clientSecretKeyOf,
  evolve,
  hashClientSecret,
  isConfidential,
  newClientSecret,
  streamOf,
  viewOf,
  type ClientFields,
  type OAuthClient,
  type OAuthClientView,
} from './client.ts';
import { clientChanged, clientDirectoryOf } from './directory.ts';
import { validateClientFields } from './validate.ts';

export interface ClientWithSecret {
  client: OAuthClientView;
  /** Present only when a secret was just generated (creation, or becoming confidential). */
  client_secret?: string;
}

const clientOf = (clientId: string): Aggregate<OAuthClient | null> => ({
  stream: streamOf(clientId),
  initial: () => null,
  evolve,
});

/** The client as stored (with its secret digest), or null when unknown. */
export async function loadClient(store: EventStore, clientId: string): Promise<OAuthClient | null> {
  return (await loadAggregate(store, clientOf(clientId))).state;
}

/** Registers a client from raw fields (validated here: a field's rule refuses with `invalid_input` naming the field). */
export async function registerClient(
  store: EventStore,
  raw: unknown,
  options: { nowUs: number; registeredBy: 'admin' | 'dynamic'; clientId?: string },
): Promise<CommandResult<ClientWithSecret>> {
  const checked = judged(
    () =>
      validateClientFields(raw, ['name', 'app_type', 'scopes']) as Partial<ClientFields> &
        Pick<ClientFields, 'name' | 'app_type' | 'scopes'>,
  );
  if (!checked.ok) return checked;
  const fields = checked.value;
  const clientId = options.clientId ?? randomUUID();
  const secret = isConfidential(fields.app_type) ? newClientSecret() : undefined;
  const client: OAuthClient = {
    client_id: clientId,
    name: fields.name,
    app_type: fields.app_type,
    redirect_uris: fields.redirect_uris ?? [],
    scopes: fields.scopes,
    ip_allowlist: fields.ip_allowlist ?? [],
    status: fields.status ?? 'active',
    secret_hash: secret === undefined ? null : hashClientSecret(secret, clientSecretKeyOf(store)),
    registered_by: options.registeredBy,
    created_at: options.nowUs,
    updated_at: options.nowUs,
  };
  await store.append(
    streamOf(clientId),
    [{ id: randomUUID(), type: 'OAuthClientRegistered', data: { client } }],
    'no_stream',
  );
  clientChanged(store, clientId);
  return accepted(
    secret === undefined ? { client: viewOf(client) } : { client: viewOf(client), client_secret: secret },
  );
}

/** Applies a partial change; unknown client is oauth_client_not_found. Becoming confidential mints a secret. */
export async function changeClient(
  store: EventStore,
  clientId: string,
  raw: unknown,
  options: { nowUs: number },
): Promise<CommandResult<ClientWithSecret>> {
  const checked = judged(() => validateClientFields(raw, []));
  if (!checked.ok) return checked;
  const patch = checked.value;
  const result = await handleCommand(store, clientOf(clientId), ({ state: client }) => {
    if (client === null) return refuse({ code: 'oauth_client_not_found' });
    const next: OAuthClient = { ...client, ...patch, updated_at: options.nowUs };
    let secret: string | undefined;
    if (isConfidential(next.app_type) && next.secret_hash === null) {
      secret = newClientSecret();
      next.secret_hash = hashClientSecret(secret, clientSecretKeyOf(store));
    } else if (!isConfidential(next.app_type)) {
      next.secret_hash = null;
    }
    const changed = Object.keys(patch);
    const answer: ClientWithSecret =
      secret === undefined ? { client: viewOf(next) } : { client: viewOf(next), client_secret: secret };
    return append(
      [{ type: 'OAuthClientChanged', data: { client: next, changed, secret_rotated: secret !== undefined } }],
      answer,
    );
  });
  clientChanged(store, clientId);
  return result.ok ? accepted(result.value.value) : result;
}

/** The clients of `store` as the authorization server reads them (cached; changes above refresh it). */
export const clientsOf = (store: EventStore) => clientDirectoryOf(store, loadClient);
