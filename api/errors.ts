// REST's one table from typed refusals to the wire (docs/ARCHITECTURE.md "Errors as types"), and the error
// middleware that sends it. Every refusal any layer makes (domain/errors.ts: the engine, money,
// text, profile and command rules; commands/auth: credentials and access) has exactly one status
// here; the body is `{"error": "<text>"}` plus the few fields and headers a refusal carries. The
// transport's own answers (a body or query that does not parse: 400; an unknown path or a read
// that found nothing: 404) are HttpErrors made with `badRequest` and `notFound`.

import type { NextFunction, Request, Response } from 'express';
import type { AccessRefusal } from '../commands/auth/access.ts';
import type { CredentialRefusal } from '../commands/auth/credentials.ts';
import { EngineBusyError, EngineStoppedError } from '../engine/gateway.ts';
import { DomainError, messageOf, type Refusal } from '../domain/errors.ts';
import { InvalidCursor } from '../projections/pagination.ts';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export const badRequest = (message: string) => new HttpError(400, message);

const MS_PER_S = 1000;

/**
 * 429 `{"error":"Too many requests"}`: Retry-After (seconds until the request would be taken), and
 * the bucket it met as the IETF RateLimit header fields: its size, none left, seconds until full.
 */
export function tooManyRequests(retryAfterMs: number, limit: number, resetMs: number): HttpError {
  return new HttpError(
    429,
    'Too many requests',
    {},
    {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / MS_PER_S))),
      'RateLimit-Limit': String(limit),
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': String(Math.max(1, Math.ceil(Math.max(resetMs, retryAfterMs) / MS_PER_S))),
    },
  );
}
export const notFound = (message = 'Not found') => new HttpError(404, message);

/** Refusals only this transport makes or meets: Idempotency-Key reuse, a foreign cursor, the engine or the store unable to serve now. */
type TransportRefusal =
  | { code: 'idempotency_key_in_use' }
  | { code: 'idempotency_key_reused' }
  | { code: 'invalid_cursor' }
  | { code: 'engine_busy' }
  | { code: 'engine_stopped' };

type RestRefusal = Refusal | CredentialRefusal | AccessRefusal | TransportRefusal;

/** One status per reason. */
const STATUS: Record<RestRefusal['code'], number> = {
  // 400: a value a rule refuses
  invalid_input: 400,
  invalid_order_field: 400,
  batch_too_large: 400,
  text_has_nul: 400,
  text_too_deep: 400,
  price_malformed: 400,
  price_sub_cent: 400,
  price_not_positive: 400,
  price_required: 400,
  quantity_malformed: 400,
  quantity_not_positive: 400,
  quantity_too_large: 400,
  amount_malformed: 400,
  amount_sub_cent: 400,
  amount_not_positive: 400,
  amount_zero: 400,
  max_price_invalid: 400,
  expiration_time_required: 400,
  market_status_not_settable: 400,
  market_status_not_listable: 400,
  market_field_fixed: 400,
  stat_detail_too_long: 400,
  status_or_trading_required: 400,
  price_or_filled_required: 400,
  fee_percent_invalid: 400,
  grouping_id_empty: 400,
  referral_points_invalid: 400,
  clock_move_ambiguous: 400,
  clock_out_of_range: 400,
  invalid_cursor: 400,
  // 401, 403: credentials and access
  api_key_invalid: 401,
  unauthorized: 401,
  oauth_token_invalid: 401,
  user_agent_required: 403,
  ip_not_allowed: 403,
  account_inactive: 403,
  // the engine's own check, met only by an order racing its account's status change
  order_account_not_active: 403,
  insufficient_scope: 403,
  member_required: 403,
  read_only_key: 403,
  // 404: the subject a request names does not exist
  account_not_found: 404,
  referee_not_found: 404,
  event_not_found: 404,
  market_not_found: 404,
  fill_not_found: 404,
  order_not_found: 404,
  api_key_not_found: 404,
  oauth_client_not_found: 404,
  // 409
  idempotency_key_in_use: 409,
  // 422: a business rule refused it
  request_refused: 422,
  order_rejected: 422,
  location_missing: 422,
  location_bad_code: 422,
  location_blocked_network: 422,
  insufficient_funds: 422,
  price_at_or_above_max: 422,
  account_exists: 422,
  order_account_unknown: 422,

  order_exists: 422,
  order_market_unknown: 422,
  market_not_accepting_orders: 422,
  market_order_before_open: 422,
  event_started: 422,
  expiration_time_past: 422,
  too_many_live_orders: 422,
  order_risk_too_small: 422,
  order_not_cancellable: 422,
  event_exists: 422,
  market_exists: 422,
  market_settled: 422,
  market_cancelled: 422,
  market_archived: 422,
  resulted_market_not_voidable: 422,
  market_not_resettlable: 422,
  symbol_taken: 422,
  fill_not_amendable: 422,
  self_referral: 422,
  referee_already_referred: 422,
  referee_already_traded: 422,
  handle_refused: 422,
  profile_changed_concurrently: 422,
  idempotency_key_reused: 422,
  // 503: nothing was decided; retry
  unavailable: 503,
  engine_busy: 503,
  engine_stopped: 503,
};

const RETRY_AFTER_S = '1';
const INSUFFICIENT_SCOPE = 'insufficient scope for this operation';

/** What a request needs to render a refusal: where the protected resource metadata lives (RFC 9728). */
interface RefusalContext {
  resourceMetadataUrl?: string;
  /** The request presented a bearer token (`Authorization: Bearer …`): a 401 then says it is invalid. */
  bearerPresented?: boolean;
}

const DEFAULT_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** An RFC 7235 quoted-string: the value between double quotes, `"` and `\` escaped. */
const quoted = (value: string): string => `"${value.replace(/[\\"]/g, '\\$&')}"`;

/**
 * The challenge every 401 from /api/v1 carries (RFC 6750 §3, RFC 9728 §5.1): where to find how to
 * get a token, and, when a bearer token was presented, that it is invalid. Values are quoted
 * strings, so strict clients (openid-client, oauth4webapi) can parse them.
 */
function bearerChallenge(context: RefusalContext, invalidToken: boolean): string {
  const metadata = `resource_metadata=${quoted(context.resourceMetadataUrl ?? DEFAULT_RESOURCE_METADATA_PATH)}`;
  return invalidToken
    ? `Bearer error="invalid_token", error_description="The access token is unknown, expired or revoked", ${metadata}`
    : `Bearer ${metadata}`;
}

/** A 401's text with its Bearer challenge (`invalidToken`: the token presented is named invalid). */
const challenged = (error: string, context: RefusalContext, invalidToken: boolean) => ({
  error,
  headers: { 'WWW-Authenticate': bearerChallenge(context, invalidToken) },
});

/** The `error` text of a refusal, and what it adds to the body and headers. */
function wireOf(
  refusal: RestRefusal,
  context: RefusalContext,
): { error: string; extra?: Record<string, unknown>; headers?: Record<string, string> } {
  switch (refusal.code) {
    case 'user_agent_required':
      return { error: 'User-Agent header is required' };
    case 'api_key_invalid':
      return challenged('Missing or invalid API key credentials', context, false);
    case 'unauthorized':
      return challenged('Unauthorized', context, context.bearerPresented === true);
    case 'oauth_token_invalid':
      return challenged('Missing or invalid OAuth access token', context, true);
    case 'ip_not_allowed':
      return {
        error: 'ip_not_allowed',
        extra: { error_description: 'This application may not be used from this address' },
      };
    case 'account_inactive':
      return { error: `Account is ${refusal.status === 'pending' ? 'pending approval' : refusal.status}` };
    case 'unavailable':
      return { error: 'Service temporarily unavailable; retry shortly', headers: { 'Retry-After': RETRY_AFTER_S } };
    case 'insufficient_scope':
      return refusal.scope === null
        ? { error: INSUFFICIENT_SCOPE, headers: { 'WWW-Authenticate': 'Bearer error="insufficient_scope"' } }
        : {
            error: INSUFFICIENT_SCOPE,
            extra: { scope: refusal.scope },
            headers: { 'WWW-Authenticate': `Bearer error="insufficient_scope", scope=${quoted(refusal.scope)}` },
          };
    case 'member_required':
      return { error: INSUFFICIENT_SCOPE };
    case 'read_only_key':
      return {
        error:
          refusal.write === 'orders'
            ? 'This API key is read-only; placing and cancelling orders needs a read_write key'
            : 'This API key is read-only; profile changes need a read_write key',
      };
    case 'idempotency_key_in_use':
      return { error: 'A request with this Idempotency-Key is still being processed' };
    case 'idempotency_key_reused':
      return { error: 'Idempotency-Key was already used for a different request' };
    case 'invalid_cursor':
      return { error: 'cursor is invalid' };
    case 'engine_busy':
      return { error: 'The exchange is busy; retry shortly', headers: { 'Retry-After': RETRY_AFTER_S } };
    case 'engine_stopped':
      return {
        error: 'The exchange is not accepting writes right now; retry shortly',
        headers: { 'Retry-After': RETRY_AFTER_S },
      };
    default:
      return { error: messageOf(refusal) };
  }
}

/** The REST answer to a refusal. */
export function httpErrorOf(refusal: RestRefusal, context: RefusalContext = {}): HttpError {
  const wire = wireOf(refusal, context);
  return new HttpError(STATUS[refusal.code], wire.error, wire.extra, wire.headers);
}

/** A command's value, or its refusal thrown as the REST answer (the error middleware sends it). */
export function valueOrRefuse<T>(result: { ok: true; value: T } | { ok: false; refusal: RestRefusal }): T {
  if (!result.ok) throw httpErrorOf(result.refusal);
  return result.value;
}

/** The `error` text REST shows for a refusal (a batch leg's `errors`, a cancellation's status). */
export function errorTextOf(refusal: RestRefusal): string {
  return wireOf(refusal, {}).error;
}

/** Network errors of a connection to PostgreSQL (or any store), as Node reports them. */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** SQLSTATE classes of a database that cannot serve now: connection exceptions (08), operator intervention (57P), insufficient resources (53). */
const UNAVAILABLE_SQLSTATE = /^(08|57P|53)/;

/** Whether `err` says the store could not be reached or could not serve, rather than anything about the data. */
function isInfrastructureFailure(err: unknown): boolean {
  const { code, syscall } = (err ?? {}) as { code?: unknown; syscall?: unknown };
  if (typeof code !== 'string') return false;
  // a Unix-domain socket whose server is gone is a missing file to connect(2)
  if (code === 'ENOENT') return syscall === 'connect';
  return NETWORK_ERROR_CODES.has(code) || (code.length === 5 && UNAVAILABLE_SQLSTATE.test(code));
}

/** The REST answer to a thrown failure that says something to the client; null for a bug (500). */
export function httpErrorOfThrown(err: unknown): HttpError | null {
  if (err instanceof HttpError) return err;
  if (err instanceof DomainError) return httpErrorOf(err.refusal);
  if (err instanceof InvalidCursor) return httpErrorOf({ code: 'invalid_cursor' });
  if (err instanceof EngineBusyError) return httpErrorOf({ code: 'engine_busy' });
  if (err instanceof EngineStoppedError) return httpErrorOf({ code: 'engine_stopped' });
  // body-parser failures (malformed JSON, too large) carry a status of their own
  const status = (err as { status?: number; type?: string })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500)
    return new HttpError(status, status === 413 ? 'Request body too large' : 'Malformed JSON body');
  if (isInfrastructureFailure(err)) return httpErrorOf({ code: 'unavailable' });
  return null;
}

/** Express error middleware: typed failures become their answer; anything else is a logged 500. */
export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  const answer = httpErrorOfThrown(err);
  if (answer) {
    if (isInfrastructureFailure(err))
      (req as { log?: { warn: (o: unknown, m: string) => void } }).log?.warn({ err }, 'store unavailable');
    res
      .set(answer.headers)
      .status(answer.status)
      .json({ error: answer.message, ...answer.extra });
    return;
  }
  (req as { log?: { error: (o: unknown, m: string) => void } }).log?.error({ err }, 'unhandled error');
  res.status(500).json({ error: 'Internal server error' });
}
