// Typed errors: an answer the service refused (status, the service's `error` text, `scope`,
// `Retry-After`), a refused OAuth refresh, and a request that never got an answer.

export interface ErrorBody {
  error?: string;
  scope?: string;
  error_description?: string;
  [field: string]: unknown;
}

/** The service answered with a status other than 2xx. */
export class ExchangeError extends Error {
  override readonly name = 'ExchangeError';
  constructor(
    readonly status: number,
    /** The service's `error` text, e.g. `Missing or invalid API key credentials`. */
    readonly error: string,
    readonly details: {
      method: string;
      path: string;
      /** The OAuth scope that would cover the route (403 insufficient scope). */
      scope?: string | undefined;
      /** Seconds from the `Retry-After` header (503, 429). */
      retryAfterS?: number | undefined;
      body?: ErrorBody | undefined;
    },
  ) {
    super(`${details.method} ${details.path} answered ${status}: ${error}`);
  }

  get scope(): string | undefined {
    return this.details.scope;
  }

  get retryAfterS(): number | undefined {
    return this.details.retryAfterS;
  }

  get body(): ErrorBody | undefined {
    return this.details.body;
  }
}

/** The OAuth refresh was refused (e.g. `invalid_grant`: the member must consent again). */
export class OAuthRefreshError extends Error {
  override readonly name = 'OAuthRefreshError';
  constructor(
    readonly status: number,
    /** The OAuth error code (`invalid_grant`, `invalid_client`, ...), or `network_error`. */
    readonly error: string,
    readonly description: string | undefined,
  ) {
    super(
      `OAuth refresh refused (${status} ${error})${description ? `: ${description}` : ''}; send the member through /oauth/authorize again`,
    );
  }
}

/** No answer came back (connection refused or reset) after every retry. */
export class NetworkError extends Error {
  override readonly name = 'NetworkError';
  constructor(
    readonly method: string,
    readonly path: string,
    override readonly cause: unknown,
  ) {
    super(`${method} ${path}: no answer from the service (${cause instanceof Error ? cause.message : String(cause)})`);
  }
}

/** Parses `Retry-After` (seconds or an HTTP date) into seconds, or undefined. */
export function retryAfterSeconds(header: string | null, nowMs: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - nowMs) / 1000);
}
