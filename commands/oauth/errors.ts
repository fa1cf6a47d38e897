// The authorization server's refusals as types: each class carries its RFC 6749 / 7591 error code,
// its HTTP status and any headers the answer needs; commands throw them, and answerOfError (called
// once, where an endpoint answers) turns them into the JSON error body. Errors of the protocol
// library are mapped by their class (its `name` is the protocol code), never by their text; any
// other error is a 500 server_error, reported to the log.

import OAuth2Server from '@node-oauth/oauth2-server';
import { oauthError, type OAuthAnswer } from './http.ts';
import { IP_NOT_ALLOWED_DESCRIPTION } from './ipAllowlist.ts';

/** Seconds a client is told to wait when a token cannot be stored or the server is drilled unavailable. */
export const UNAVAILABLE_RETRY_AFTER_S = 30;

export class OAuthProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = new.target.name;
  }
}

/** A 400 that says no more than its code and description (RFC 6749 §5.2, RFC 7591 §3.2.2). */
const badRequest = (code: string) =>
  class extends OAuthProblem {
    constructor(description: string) {
      super(400, code, description);
    }
  };

export class InvalidRequest extends badRequest('invalid_request') {}

/** 401 with the Basic challenge (RFC 6749 §5.2). */
export class InvalidClient extends OAuthProblem {
  constructor(description: string) {
    super(401, 'invalid_client', description, { 'WWW-Authenticate': 'Basic realm="oauth"' });
  }
}

export class InvalidGrant extends badRequest('invalid_grant') {}

export class InvalidScope extends badRequest('invalid_scope') {}

export class UnsupportedGrantType extends badRequest('unsupported_grant_type') {}

export class IpNotAllowed extends OAuthProblem {
  constructor() {
    super(403, 'ip_not_allowed', IP_NOT_ALLOWED_DESCRIPTION);
  }
}

/** Nothing was issued or consumed: the client retries with the same code or token. */
export class TemporarilyUnavailable extends OAuthProblem {
  constructor(description: string) {
    super(503, 'temporarily_unavailable', description, { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_S) });
  }
}

/** RFC 7591 §3.2.2. */
export class InvalidClientMetadata extends badRequest('invalid_client_metadata') {}

export class InvalidRedirectUri extends badRequest('invalid_redirect_uri') {}

export class RateLimited extends OAuthProblem {
  constructor(description: string, retryAfterS: number) {
    super(429, 'rate_limited', description, { 'Retry-After': String(retryAfterS) });
  }
}

const { OAuthError, ServerError } = OAuth2Server;

/** The one mapping of errors to answers. `report` hears of every error that becomes a 500. */
export function answerOfError(
  error: unknown,
  report: (error: unknown) => void,
  serverErrorDescription = 'The request could not be completed; retry shortly',
): OAuthAnswer {
  // the library wraps errors our model threw in its ServerError (`inner`)
  const wrapped = error instanceof ServerError ? (error as unknown as { inner?: unknown }).inner : undefined;
  const inner = wrapped instanceof OAuthProblem ? wrapped : error;
  if (inner instanceof OAuthProblem) return oauthError(inner.status, inner.code, inner.description, inner.headers);
  if (inner instanceof OAuthError && inner.code >= 400 && inner.code < 500) {
    if (inner.name === 'invalid_client')
      return oauthError(401, 'invalid_client', 'client authentication failed', new InvalidClient('').headers);
    // the library's texts begin with their class ("Invalid grant: …"); the rest is the description
    const description = inner.message.replace(/^Invalid (grant|request|scope|client): /, '');
    return oauthError(inner.code, inner.name, description);
  }
  report(error);
  return oauthError(500, 'server_error', serverErrorDescription);
}
