// The request text guard (express middleware): NUL characters (U+0000) are refused in every
// request field. PostgreSQL text cannot hold them: a string carrying one would fail the query
// reading it (a 500) or, once journaled, every projection transaction that writes it, for every
// account. Refused up front with a 400 that
// names the field: `orders[1].client_order_id must not contain NUL characters`. A body nested
// deeper than JSON_NESTING_DEPTH_MAX is refused here too (400), before any route walks it.

import type { NextFunction, Request, Response } from 'express';
import { findNul, textProblemOf } from '../domain/text.ts';
import { httpErrorOf } from './errors.ts';

const NUL = '\u0000';

/** Whether the raw URL may hold a NUL once decoded (its path or its query string). */
const urlMayHoldNul = (url: string): boolean => url.includes('%00') || url.includes(NUL);

/**
 * Express middleware (after the body parser): a NUL in the query string, the path or the JSON
 * body is a 400 naming where it is.
 */
export function refuseNul(req: Request, _res: Response, next: NextFunction): void {
  const url = req.originalUrl ?? req.url;
  if (urlMayHoldNul(url)) {
    // the direct lane (api/directLane.ts) parses no query: read it here the way express does
    const queryAt = url.indexOf('?');
    const query: unknown =
      req.query ?? (queryAt < 0 ? {} : Object.fromEntries(new URLSearchParams(url.slice(queryAt + 1))));
    const inQuery = findNul(query);
    next(httpErrorOf({ code: 'text_has_nul', path: inQuery ?? 'path' }));
    return;
  }
  if (req.body !== undefined) {
    const problem = textProblemOf(req.body);
    if (problem !== null) {
      next(httpErrorOf(problem));
      return;
    }
  }
  next();
}
