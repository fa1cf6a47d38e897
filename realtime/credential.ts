// What a socket's identity rests on, and how the feed learns that it stopped being valid.
//
// The handshake resolves a credential once (handshake.ts); the resolver also hands back a
// SocketCredential: the names under which notices about it arrive (`api_key:{key_id}`,
// `account:{account_id}`, `oauth_token:{token_id}`, …), when it expires on the service clock,
// and a check that says whether it is still live. The feed then ends every socket whose
// credential ended, three ways:
//   - a notice (the composition root subscribes to credential changes: a key deleted, a token or
//     grant revoked, an account no longer active) ends every socket holding that name at once;
//     a notice without a verdict (an OAuth client changed) has those sockets run their check;
//   - the sweep ends a socket whose credential's expiry the service clock has passed;
//   - every join first runs the check, so a join in the moment between a revocation and its
//     notice is refused too.
// Ending a socket: every join gets `phx_close` with `{reason}`, then the socket is closed with
// code 4004. Nothing here runs per frame.

/** Why a socket's credential no longer holds (the `reason` its joins are closed with). */
export type CredentialEnd = 'credential_revoked' | 'credential_expired' | 'account_inactive';

export interface SocketCredential {
  /** Names notices about this credential use, e.g. `api_key:7d3f…`, `account:2a9c…`. */
  keys: readonly string[];
  /** Service-clock µs at which it stops being valid (OAuth token, session); null when it does not expire. */
  expiresAtUs: number | null;
  /** Null while the credential is live, else why it is not (run at every join). */
  check(): Promise<CredentialEnd | null>;
}

/**
 * Where notices come from (wired at the composition root): `reason` says the credential ended;
 * null says something it rests on changed, and its sockets run their check again.
 */
export type CredentialNotices = (listener: (key: string, reason: CredentialEnd | null) => void) => () => void;

/** Keys a notice may name (one place, so the resolver and the notice sources agree). */
export const credentialKey = {
  account: (accountId: string) => `account:${accountId}`,
  apiKey: (keyId: string) => `api_key:${keyId}`,
  session: (sessionId: string) => `session:${sessionId}`,
  oauthToken: (tokenId: string) => `oauth_token:${tokenId}`,
  oauthGrant: (grantId: string) => `oauth_grant:${grantId}`,
  oauthClient: (clientId: string) => `oauth_client:${clientId}`,
};

/** Open sockets by the keys of their credentials. */
export class CredentialHolders<Socket> {
  private readonly byKey = new Map<string, Set<Socket>>();

  add(socket: Socket, credential: SocketCredential | null): void {
    if (!credential) return;
    for (const key of credential.keys) {
      let set = this.byKey.get(key);
      if (!set) {
        set = new Set();
        this.byKey.set(key, set);
      }
      set.add(socket);
    }
  }

  remove(socket: Socket, credential: SocketCredential | null): void {
    if (!credential) return;
    for (const key of credential.keys) {
      const set = this.byKey.get(key);
      if (!set) continue;
      set.delete(socket);
      if (set.size === 0) this.byKey.delete(key);
    }
  }

  /** The sockets holding `key` (a copy: ending them changes the sets). */
  holding(key: string): Socket[] {
    const set = this.byKey.get(key);
    return set ? [...set] : [];
  }
}
