// The three kinds of credentials a member's program holds, and how each goes on a request:
// an API key signs every request; a session token and an OAuth access token are bearer tokens.
// An OAuth token is refreshed once when the service answers 401 (the refresh token rotates: the
// new pair replaces the old one and `onTokens` is told, so a program can store it).

import { OAuthRefreshError } from './errors.js';

export interface ApiKeyCredentials {
  kind: 'apiKey';
  keyId: string;
  /** base64 of the 32-byte Ed25519 seed, or a PKCS#8 PEM. */
  privateKey: string | Uint8Array;
}

export interface SessionCredentials {
  kind: 'session';
  token: string;
}

export interface OAuthTokens {
  accessToken: string;
  refreshToken?: string | undefined;
  /** Seconds, as the token endpoint said. */
  expiresIn?: number | undefined;
  scope?: string | undefined;
}

export interface OAuthCredentials extends OAuthTokens {
  kind: 'oauth';
  clientId: string;
  /** Only for confidential clients (sent with HTTP Basic, never in the form). */
  clientSecret?: string | undefined;
  /** Default: `${baseUrl}/oauth/token`. */
  tokenUrl?: string | undefined;
  /** Called with every new pair after a refresh (store the rotated refresh token). */
  onTokens?: ((tokens: OAuthTokens) => void | Promise<void>) | undefined;
}

export type Credentials = ApiKeyCredentials | SessionCredentials | OAuthCredentials;

export const apiKey = (keyId: string, privateKey: string | Uint8Array): ApiKeyCredentials => ({
  kind: 'apiKey',
  keyId,
  privateKey,
});
export const session = (token: string): SessionCredentials => ({ kind: 'session', token });
export const oauth = (options: Omit<OAuthCredentials, 'kind'>): OAuthCredentials => ({ kind: 'oauth', ...options });

/** Form-urlencodes an OAuth client id or secret before HTTP Basic, as RFC 6749 §2.3.1 says. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, '+');

/** Holds an OAuth credential's current tokens; one refresh at a time. */
export class OAuthSession {
  private tokens: OAuthTokens;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly credentials: OAuthCredentials,
    private readonly baseUrl: string,
    private readonly userAgent: string,
    private readonly fetchImpl: typeof fetch,
  ) {
    this.tokens = {
      accessToken: credentials.accessToken,
      refreshToken: credentials.refreshToken,
      expiresIn: credentials.expiresIn,
      scope: credentials.scope,
    };
  }

  get accessToken(): string {
    return this.tokens.accessToken;
  }

  get refreshToken(): string | undefined {
    return this.tokens.refreshToken;
  }

  /** Refreshes unless another caller already replaced `staleAccessToken`. */
  refresh(staleAccessToken: string): Promise<void> {
    if (this.tokens.accessToken !== staleAccessToken) return Promise.resolve();
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<void> {
    const refreshToken = this.tokens.refreshToken;
    if (!refreshToken)
      throw new OAuthRefreshError(401, 'invalid_grant', 'the access token expired and there is no refresh token');
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken });
    const headers: Record<string, string> = {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
      'user-agent': this.userAgent,
    };
    if (this.credentials.clientSecret === undefined) form.set('client_id', this.credentials.clientId);
    else
      headers.authorization = `Basic ${btoa(`${formEncode(this.credentials.clientId)}:${formEncode(this.credentials.clientSecret)}`)}`;
    let response: Response;
    try {
      response = await this.fetchImpl(this.credentials.tokenUrl ?? `${this.baseUrl}/oauth/token`, {
        method: 'POST',
        headers,
        body: form.toString(),
      });
    } catch (error) {
      throw new OAuthRefreshError(0, 'network_error', error instanceof Error ? error.message : String(error));
    }
    const body = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      refresh_token?: string;
      expires_in?: number;
      scope?: string;
      error?: string;
      error_description?: string;
    };
    if (!response.ok || typeof body.access_token !== 'string') {
      throw new OAuthRefreshError(response.status, body.error ?? 'invalid_response', body.error_description);
    }
    // rotation: the old refresh token is revoked by the service; keep the new one
    this.tokens = {
      accessToken: body.access_token,
      refreshToken: body.refresh_token ?? refreshToken,
      expiresIn: body.expires_in,
      scope: body.scope,
    };
    await this.credentials.onTokens?.({ ...this.tokens });
  }
}
