// What the OAuth endpoints know of a request and answer, without any transport: the router in
// oauth/ turns express requests into these and these into responses.

export interface OAuthRequest {
  method: string;
  /** Header values by lower-case name. */
  headers: Record<string, string | undefined>;
  /** The parsed form (or JSON, for registration) body; values that were not single strings are arrays. */
  body: Record<string, unknown>;
  /** The peer's normalised IP address (forwarded headers are never believed here). */
  remoteAddress: string | null;
  /** The issuer: the base URL the client reached (metadata's `issuer`). */
  issuer: string;
}

export interface OAuthAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** RFC 6749 §5.2 error bodies, as JSON (strict clients read nothing else). */
export function oauthError(
  status: number,
  error: string,
  description: string,
  headers: Record<string, string> = {},
): OAuthAnswer {
  return {
    status,
    headers: { 'Cache-Control': 'no-store', ...headers },
    body: { error, error_description: description },
  };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): OAuthAnswer => ({
  status,
  headers: { 'Cache-Control': 'no-store', ...headers },
  body,
});

/** A form value that must be one string: absent → undefined; repeated or not a string → null (RFC 6749 §3.2: no repeats). */
export function single(body: Record<string, unknown>, name: string): string | undefined | null {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string') return null;
  return value;
}

const FORM_CONTENT_TYPE = /^application\/x-www-form-urlencoded\s*(;.*)?$/i;

/** Whether a Content-Type names a form body (parameters allowed, e.g. a charset). */
export const isFormContentType = (contentType: string | undefined): boolean =>
  FORM_CONTENT_TYPE.test(contentType ?? '');
