// Credential events. API keys live in stream `apikey-{key_id}`, member sessions in
// `session-{session_id}`. Only public keys and SHA-256 hashes of session tokens are recorded.

export type ApiKeyScope = 'read_only' | 'read_write';
export const API_KEY_SCOPES: readonly ApiKeyScope[] = ['read_only', 'read_write'];

export interface ApiKeyIssued {
  key_id: string;
  account_id: string;
  scope: ApiKeyScope;
  public_key: string; // base64 of the 32 raw bytes
  issued_at_us: number;
}
export interface ApiKeyRevoked {
  key_id: string;
  revoked_at_us: number;
}
export interface SessionIssued {
  session_id: string;
  account_id: string;
  token_hash: string; // hex SHA-256 of the bearer token
  issued_at_us: number;
  expires_at_us: number;
}
interface SessionRevoked {
  session_id: string;
  revoked_at_us: number;
}

type CredentialEvent =
  | { type: 'ApiKeyIssued'; data: ApiKeyIssued }
  | { type: 'ApiKeyRevoked'; data: ApiKeyRevoked }
  | { type: 'SessionIssued'; data: SessionIssued }
  | { type: 'SessionRevoked'; data: SessionRevoked };

export const API_KEY_STREAM_PREFIX = 'apikey-';
export const SESSION_STREAM_PREFIX = 'session-';
export const apiKeyStream = (keyId: string) => `${API_KEY_STREAM_PREFIX}${keyId}`;
export const sessionStream = (sessionId: string) => `${SESSION_STREAM_PREFIX}${sessionId}`;

const CREDENTIAL_EVENT_TYPES = ['ApiKeyIssued', 'ApiKeyRevoked', 'SessionIssued', 'SessionRevoked'] as const;

export function isCredentialEvent(event: { type: string; data: unknown }): event is CredentialEvent {
  return (CREDENTIAL_EVENT_TYPES as readonly string[]).includes(event.type);
}
