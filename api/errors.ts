// HTTP errors and the one place that maps failures to the wire: `{"error": "..."}` bodies.

import type { NextFunction, Request, Response } from 'express';
import { DomainError, type DomainErrorCode } from '../domain/errors.ts';
import { EngineBusyError, EngineStoppedError } from '../commands/engine/gateway.ts';
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
export const notFound = (message = 'Not found') => new HttpError(404, message);
export const unprocessable = (message: string) => new HttpError(422, message);

const STATUS_BY_CODE: Record<DomainErrorCode, number> = { invalid: 400, not_found: 404, refused: 422, conflict: 422 };

export function statusOfDomainCode(code: DomainErrorCode): number {
  return STATUS_BY_CODE[code];
}

/** Network errors of a connection to PostgreSQL (or any store), as Node reports them. */
const NETWORK_ERROR_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** SQLSTATE classes of a database that cannot serve now: connection exceptions (08), operator intervention (57P), insufficient resources (53). */
const UNAVAILABLE_SQLSTATE = /^(08|57P|53)/;
const UNAVAILABLE_RETRY_AFTER_S = '1';

/** Whether `err` says the store could not be reached or could not serve, rather than anything about the data. */
export function isInfrastructureFailure(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return NETWORK_ERROR_CODES.has(code) || (code.length === 5 && UNAVAILABLE_SQLSTATE.test(code));
}

/** Express error middleware: typed errors become their status; anything else is a logged 500. */
export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction): void {
  if (err instanceof HttpError) {
    res.set(err.headers).status(err.status).json({ error: err.message, ...err.extra });
    return;
  }
  if (err instanceof InvalidCursor) {
    res.status(400).json({ error: err.message });
    return;
  }
  if (err instanceof DomainError) {
    res.status(STATUS_BY_CODE[err.code]).json({ error: err.message });
    return;
  }
  // body-parser failures (malformed JSON, too large) carry a status of their own
  const status = (err as { status?: number; type?: string })?.status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    res.status(status).json({ error: status === 413 ? 'Request body too large' : 'Malformed JSON body' });
    return;
  }
  if (err instanceof EngineBusyError || err instanceof EngineStoppedError) {
    res.set('Retry-After', UNAVAILABLE_RETRY_AFTER_S).status(503).json({
      error: err instanceof EngineBusyError ? 'The exchange is busy; retry shortly' : 'The exchange is not accepting writes right now; retry shortly',
    });
    return;
  }
  if (isInfrastructureFailure(err)) {
    (req as { log?: { warn: (o: unknown, m: string) => void } }).log?.warn({ err }, 'store unavailable');
    res.set('Retry-After', UNAVAILABLE_RETRY_AFTER_S).status(503).json({ error: 'Service temporarily unavailable; retry shortly' });
    return;
  }
  (req as { log?: { error: (o: unknown, m: string) => void } }).log?.error({ err }, 'unhandled error');
  res.status(500).json({ error: 'Internal server error' });
}
