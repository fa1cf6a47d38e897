// Every request goes through here: credentials on each attempt (a fresh signature, the current
// OAuth token), an Idempotency-Key on every write, and the retries that are safe:
// - 503 and 429 wait `Retry-After` (at most RETRY_DELAY_MAX_MS) and send again; 409 (the same
//   Idempotency-Key still in flight) waits and sends again; a network error sends again after a
//   short backoff. A write is retried only when it carries an Idempotency-Key: the service then
//   answers a repeat with the first answer, so an order is never placed twice.
// - 401 on a signed request: when the service's `Date` says our clock is off, the offset is
//   learned and the request signed again, once. 401 with an OAuth token: one refresh, then again.

import type { Credentials } from './credentials.js';
import { OAuthSession } from './credentials.js';
import { NetworkError, retryAfterSeconds } from './errors.js';
import { createSigner, type RequestSigner } from './signing.js';

/** Retries of one request after a 503, 429, 409 or network error (authentication retries aside). */
export const RETRIES_DEFAULT = 4;
/** The longest wait before a retry, whatever `Retry-After` says. */
export const RETRY_DELAY_MAX_MS = 10_000;
/** First backoff after a network error or a 503 without Retry-After; doubles each time. */
const BACKOFF_FIRST_MS = 100;
/** A refused signature whose timestamp is further than this from the service's `Date` was stale. */
const CLOCK_SKEW_SUSPECT_MS = 2_000;
/** `Date` has whole seconds: the service's clock is on average half a second past it. */
const DATE_HEADER_MIDPOINT_MS = 500;

export interface TransportOptions {
  baseUrl: string;
  credentials?: Credentials | undefined;
  userAgent: string;
  fetch: typeof fetch;
  now: () => number;
  retries: number;
  retryDelayMaxMs: number;
  idempotencyKeys: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class Transport {
  /** Service clock minus ours, learned from `Date` when a signature was refused as stale. */
  clockOffsetMs = 0;
  readonly signer: RequestSigner | undefined;
  readonly oauth: OAuthSession | undefined;

  constructor(readonly options: TransportOptions) {
    const credentials = options.credentials;
    this.signer = credentials?.kind === 'apiKey' ? createSigner(credentials.keyId, credentials.privateKey) : undefined;
    this.oauth =
      credentials?.kind === 'oauth'
        ? new OAuthSession(credentials, options.baseUrl, options.userAgent, options.fetch)
        : undefined;
  }

  /** The service's time as we believe it (UNIX ms). */
  serviceNowMs(): number {
    return this.options.now() + this.clockOffsetMs;
  }

  /** Headers that authenticate a request to `pathWithQuery` (also the feed's handshake). */
  authHeaders(method: string, pathWithQuery: string): Record<string, string> {
    const credentials = this.options.credentials;
    if (this.signer) return { ...this.signer.headers(method, pathWithQuery, this.serviceNowMs()) };
    if (credentials?.kind === 'session') return { authorization: `Bearer ${credentials.token}` };
    if (this.oauth) return { authorization: `Bearer ${this.oauth.accessToken}` };
    return {};
  }

  /** The fetch that openapi-fetch calls. */
  readonly fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const pathWithQuery = `${url.pathname}${url.search}`;
    const method = request.method.toUpperCase();
    const isWrite = method !== 'GET' && method !== 'HEAD';
    const bodyBytes = isWrite ? await request.arrayBuffer() : undefined;
    const body = bodyBytes && bodyBytes.byteLength > 0 ? bodyBytes : undefined;
    const headers = new Headers(request.headers);
    if (isWrite && this.options.idempotencyKeys && !headers.has('idempotency-key'))
      headers.set('Idempotency-Key', globalThis.crypto.randomUUID());
    const retrySafe = !isWrite || headers.has('idempotency-key');
    headers.set('user-agent', this.options.userAgent);

    let retries = 0;
    let authRetried = false;
    for (;;) {
      const attemptHeaders = new Headers(headers);
      const auth = this.authHeaders(method, pathWithQuery);
      for (const [name, value] of Object.entries(auth)) attemptHeaders.set(name, value);
      let response: Response;
      try {
        response = await this.options.fetch(url, { method, headers: attemptHeaders, ...(body ? { body } : {}) });
      } catch (error) {
        if (!retrySafe || retries >= this.options.retries) throw new NetworkError(method, pathWithQuery, error);
        await sleep(this.backoffMs(retries));
        retries += 1;
        continue;
      }
      if (response.status === 401 && !authRetried && (await this.recoverAuth(response, auth))) {
        authRetried = true;
        continue;
      }
      const waitable =
        response.status === 503 ||
        response.status === 429 ||
        (response.status === 409 && headers.has('idempotency-key'));
      if (waitable && retrySafe && retries < this.options.retries) {
        const afterS = retryAfterSeconds(response.headers.get('retry-after'), Date.now());
        await response.body?.cancel().catch(() => undefined);
        await sleep(
          Math.min(afterS === undefined ? this.backoffMs(retries) : afterS * 1000, this.options.retryDelayMaxMs),
        );
        retries += 1;
        continue;
      }
      return response;
    }
  };

  private backoffMs(retries: number): number {
    return Math.min(BACKOFF_FIRST_MS * 2 ** retries, this.options.retryDelayMaxMs);
  }

  /** True when a 401 was mended (clock offset learned, or the OAuth token refreshed). */
  private async recoverAuth(response: Response, sent: Record<string, string>): Promise<boolean> {
    if (this.signer) {
      const date = response.headers.get('date');
      const sentMs = Number(sent['X-SVC-ACCESS-TIMESTAMP']);
      const serviceMs = date === null ? Number.NaN : Date.parse(date) + DATE_HEADER_MIDPOINT_MS;
      if (Number.isNaN(serviceMs) || Math.abs(serviceMs - sentMs) <= CLOCK_SKEW_SUSPECT_MS) return false;
      this.clockOffsetMs = serviceMs - this.options.now();
      await response.body?.cancel().catch(() => undefined);
      return true;
    }
    if (this.oauth && sent.authorization) {
      await response.body?.cancel().catch(() => undefined);
      await this.oauth.refresh(sent.authorization.slice('Bearer '.length));
      return true;
    }
    return false;
  }
}
