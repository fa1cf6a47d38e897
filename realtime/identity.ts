// Who a socket is, decided once at the handshake: nobody (no credentials, or the unprefixed
// header names), a member (signed API key, session, or a member's OAuth token), or an
// application holding an app-level OAuth token. Channels decide joins from this alone.

export type MemberSource = 'api_key' | 'session' | 'oauth';

export type SocketIdentity =
  | { kind: 'anonymous' }
  | { kind: 'member'; account_id: string; user_id: string; source: MemberSource; scopes: ReadonlySet<string> }
  | { kind: 'app'; client_id: string | null; scopes: ReadonlySet<string> };

export type MemberIdentity = Extract<SocketIdentity, { kind: 'member' }>;

export const ANONYMOUS: SocketIdentity = { kind: 'anonymous' };

/**
 * Whether a member may read what `scope` covers: OAuth tokens carry the scopes the member granted;
 * signed keys and sessions are the member acting directly and read everything of their own.
 */
export function memberHasScope(member: MemberIdentity, scope: string): boolean {
  return member.source !== 'oauth' || member.scopes.has(scope);
}
