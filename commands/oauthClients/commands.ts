// Command handlers of the OAuth client registry: read the stream, decide, append with the
// expected revision. A secret is generated for web and server apps and returned exactly once.

import { randomUUID } from 'node:crypto';
import { DomainError } from '../../domain/errors.ts';
import { WrongExpectedRevision, type EventStore } from '../../eventstore/port.ts';
import {
  clientSecretKeyOf, evolve, hashClientSecret, isConfidential, newClientSecret, streamOf, viewOf,
  type ClientFields, type OAuthClient, type OAuthClientView,
} from './client.ts';
import { clientChanged, clientDirectoryOf } from './directory.ts';
import { validateClientFields } from './validate.ts';

const CHANGE_ATTEMPTS_MAX = 3;

export interface ClientWithSecret {
  client: OAuthClientView;
  /** Present only when a secret was just generated (creation, or becoming confidential). */
  client_secret?: string;
}

async function loadWithRevision(store: EventStore, clientId: string): Promise<{ client: OAuthClient | null; revision: bigint | null }> {
  const events = await store.readStream(streamOf(clientId));
  let client: OAuthClient | null = null;
  let revision: bigint | null = null;
  for (const event of events) {
    client = evolve(client, event);
    revision = event.revision;
  }
  return { client, revision };
}

/** The client as stored (with its secret digest), or null when unknown. */
export async function loadClient(store: EventStore, clientId: string): Promise<OAuthClient | null> {
  return (await loadWithRevision(store, clientId)).client;
}

/** Registers a client from raw fields (validated here). */
export async function registerClient(
  store: EventStore,
  raw: unknown,
  options: { nowUs: number; registeredBy: 'admin' | 'dynamic'; clientId?: string },
): Promise<ClientWithSecret> {
  const fields = validateClientFields(raw, ['name', 'app_type', 'scopes']) as Partial<ClientFields> & Pick<ClientFields, 'name' | 'app_type' | 'scopes'>;
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
  await store.append(streamOf(clientId), [{ id: randomUUID(), type: 'OAuthClientRegistered', data: { client } }], 'no_stream');
  clientChanged(store, clientId);
  return secret === undefined ? { client: viewOf(client) } : { client: viewOf(client), client_secret: secret };
}

/** Applies a partial change; unknown client is oauth_client_not_found. Becoming confidential mints a secret. */
export async function changeClient(store: EventStore, clientId: string, raw: unknown, options: { nowUs: number }): Promise<ClientWithSecret> {
  const patch = validateClientFields(raw, []);
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await applyChange(store, clientId, patch, options.nowUs);
    } catch (err) {
      // another writer changed the client meanwhile: decide again on the newer state
      if (!(err instanceof WrongExpectedRevision) || attempt >= CHANGE_ATTEMPTS_MAX) throw err;
    }
  }
}

async function applyChange(store: EventStore, clientId: string, patch: Partial<ClientFields>, nowUs: number): Promise<ClientWithSecret> {
  const { client, revision } = await loadWithRevision(store, clientId);
  if (client === null || revision === null) throw new DomainError({ code: 'oauth_client_not_found' });
  const next: OAuthClient = { ...client, ...patch, updated_at: nowUs };
  let secret: string | undefined;
  if (isConfidential(next.app_type) && next.secret_hash === null) {
    secret = newClientSecret();
    next.secret_hash = hashClientSecret(secret, clientSecretKeyOf(store));
  } else if (!isConfidential(next.app_type)) {
    next.secret_hash = null;
  }
  const changed = Object.keys(patch);
  await store.append(
    streamOf(clientId),
    [{ id: randomUUID(), type: 'OAuthClientChanged', data: { client: next, changed, secret_rotated: secret !== undefined } }],
    revision,
  );
  clientChanged(store, clientId);
  return secret === undefined ? { client: viewOf(next) } : { client: viewOf(next), client_secret: secret };
}

/** The clients of `store` as the authorization server reads them (cached; changes above refresh it). */
export const clientsOf = (store: EventStore) => clientDirectoryOf(store, loadClient);
