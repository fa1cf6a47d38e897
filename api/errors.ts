// HTTP errors and the one place that maps failures to the wire: `{"error": "..."}` bodies.

import type { NextFunction, Request, Response } from 'express';
import { DomainError, type DomainErrorCode } from '../domain/errors.ts';
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
  (req as { log?: { error: (o: unknown, m: string) => void } }).log?.error({ err }, 'unhandled error');
  res.status(500).json({ error: 'Internal server error' });
}
