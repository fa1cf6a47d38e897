// Clients as the authorization server and the bearer check read them, on every token request and
// API call: loaded from their stream once, then held in memory (bounded by CLIENTS_CACHED_MAX).
// Every change goes through commands.ts in this process, which tells the directory of that event
// store, so a suspension or a new IP allowlist applies at once, to tokens already issued too.

import { timingSafeEqual } from 'node:crypto';
import type { BlockList } from 'node:net';
import type { EventStore } from '../../eventstore/port.ts';
import { addressListOf } from '../net/addressList.ts';
import { clientSecretKeyOf, verifyClientSecret, type OAuthClient } from './client.ts';

const CLIENTS_CACHED_MAX = 10_000;

export interface KnownClient {
  client: OAuthClient;
  /** The client's IP allowlist; null when it has none. */
  allowlist: BlockList | null;
}

type Loader = (store: EventStore, clientId: string) => Promise<OAuthClient | null>;

export class ClientDirectory {
  private readonly cache = new Map<string, KnownClient | null>();
  private readonly loading = new Map<string, Promise<KnownClient | null>>();
  private generation = 0;
  /** Per cached client (dropped with it): the last secret that verified. */
  private readonly verified = new WeakMap<KnownClient, string>();
  private readonly changeListeners = new Set<(clientId: string) => void>();

  constructor(
    private readonly store: EventStore,
    private readonly loader: Loader,
  ) {}

  async get(clientId: string): Promise<KnownClient | null> {
    const cached = this.cache.get(clientId);
    if (cached !== undefined) return cached;
    const pending = this.loading.get(clientId);
    if (pending) return pending;
    const generation = this.generation;
    const load = this.loader(this.store, clientId)
      .then((client) => {
        const known =
          client === null
            ? null
            : { client, allowlist: client.ip_allowlist.length > 0 ? addressListOf(client.ip_allowlist) : null };
        if (generation === this.generation) this.remember(clientId, known);
        return known;
      })
      .finally(() => this.loading.delete(clientId));
    this.loading.set(clientId, load);
    return load;
  }

  /** Whether `presented` is the client's secret (keyed digest, constant time). */
  verifySecret(known: KnownClient, presented: string): boolean {
    // the last secret that verified for this client is remembered with the cached client (compared
    // in constant time), so an app's steady token requests cost no HMAC each
    // (compared as bytes: two texts of one length may differ in byte length, which timingSafeEqual refuses)
    const last = this.verified.get(known);
    if (last !== undefined) {
      const lastBytes = Buffer.from(last, 'utf8');
      const presentedBytes = Buffer.from(presented, 'utf8');
      if (lastBytes.length === presentedBytes.length && timingSafeEqual(lastBytes, presentedBytes)) return true;
    }
    const ok = verifyClientSecret(known.client, presented, clientSecretKeyOf(this.store));
    if (ok) this.verified.set(known, presented);
    return ok;
  }

  /** A client changed (or was registered): read it afresh next time. */
  forget(clientId: string): void {
    this.generation += 1;
    this.cache.delete(clientId);
    this.loading.delete(clientId);
    for (const listener of this.changeListeners) listener(clientId);
  }

  /** Told after a client changed (a suspension, a new IP allowlist): holders of live connections judge them again. */
  onChanged(listener: (clientId: string) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  private remember(clientId: string, known: KnownClient | null): void {
    if (this.cache.size >= CLIENTS_CACHED_MAX) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(clientId, known);
  }
}

const directories = new WeakMap<EventStore, ClientDirectory>();

/** The one directory of an event store (commands.ts tells it about changes). */
export function clientDirectoryOf(store: EventStore, loader?: Loader): ClientDirectory {
  let directory = directories.get(store);
  if (!directory) {
    if (!loader) throw new Error('the client directory is created with its loader first');
    directory = new ClientDirectory(store, loader);
    directories.set(store, directory);
  }
  return directory;
}

/** Tells the store's directory, if one exists, that a client changed. */
export function clientChanged(store: EventStore, clientId: string): void {
  directories.get(store)?.forget(clientId);
}
