// The port through which the OAuth commands keep authorization codes and tokens (as digests
// only). Each is written (committed) before it is answered, so a code or token a client holds
// survives a restart; single use and rotation are atomic, so two racing presentations of one
// code or refresh token cannot both win. The composition root wires the PostgreSQL adapter
// (cli/stores/oauthStore.pg.ts).

export interface StoredCode {
  code_hash: string;
  client_id: string;
  account_id: string;
  grant_id: string;
  redirect_uri: string;
  scopes: string[];
  code_challenge: string;
  issued_at_us: number;
  expires_at_us: number;
  consumed_at_us: number | null;
}

export type TokenKind = 'access' | 'refresh';

export interface StoredToken {
  token_hash: string;
  kind: TokenKind;
  token_id: string;
  client_id: string;
  /** null: an application token (client_credentials). */
  account_id: string | null;
  grant_id: string | null;
  /** Refresh tokens and the access tokens issued with them share a family (one code exchange). */
  family_id: string | null;
  scopes: string[];
  issued_at_us: number;
  expires_at_us: number;
  revoked_at_us: number | null;
  /** A refresh token that was used (and replaced); presenting it again is reuse. */
  rotated: boolean;
}

/** A token as issued: not revoked, not rotated. */
export type IssuedToken = Omit<StoredToken, 'revoked_at_us' | 'rotated'>;

export interface OAuthStore {
  saveCode(code: Omit<StoredCode, 'consumed_at_us'>): Promise<void>;
  findCode(codeHash: string): Promise<StoredCode | undefined>;
  /**
   * Marks the code used and writes `tokens` atomically: false (nothing written or used) when the
   * code was used already or its grant is revoked. A failure to write consumes nothing.
   */
  exchangeCode(codeHash: string, tokens: readonly IssuedToken[]): Promise<boolean>;
  /** Writes tokens issued together (an access token and its refresh token); resolves once they are durable. */
  saveTokens(tokens: readonly IssuedToken[]): Promise<void>;
  /** A live access token by digest, or undefined (unknown, expired or revoked). */
  liveAccessToken(tokenHash: string): Promise<StoredToken | undefined>;
  findToken(tokenHash: string): Promise<StoredToken | undefined>;
  /**
   * Rotation: marks a live refresh token used and writes its successors atomically; false (nothing
   * written or used) when it was not live (reuse, a lost race, or its grant revoked).
   */
  rotateRefreshToken(tokenHash: string, tokens: readonly IssuedToken[]): Promise<boolean>;
  revokeToken(tokenHash: string): Promise<void>;
  /** Every token of one code exchange (its refresh tokens and the access tokens issued with them). */
  revokeFamily(familyId: string): Promise<void>;
  /** The grant is revoked: recorded first (nothing more is issued under it), then every token issued under it. */
  revokeGrantTokens(grantId: string): Promise<void>;
  /** Every access token of a grant (a revoked refresh token ends them). */
  revokeGrantAccessTokens(grantId: string): Promise<void>;
  /**
   * Tells `listener` the ids of the tokens each revocation ended, once it committed (the WebSocket
   * feed ends their sockets); returns the function that stops telling it.
   */
  onRevoked(listener: (tokenIds: readonly string[]) => void): () => void;
}
