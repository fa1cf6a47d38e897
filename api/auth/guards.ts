// Route guards that read only the principal.
// - Write routes (place, cancel): an API key needs scope `read_write` (else 403); a member
//   session may always write; an OAuth token needs the route's write scope.

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { HttpError } from '../errors.ts';
import { principalOf } from './principal.ts';

export const READ_ONLY_KEY_ERROR = 'This API key is read-only; placing and cancelling orders needs a read_write key';

export function requireWrite(oauthScope = 'orders.write'): RequestHandler {
  return function requireWriteAccess(req: Request, _res: Response, next: NextFunction): void {
    const principal = principalOf(req);
    if (principal.source === 'api_key' && principal.key_scope !== 'read_write') throw new HttpError(403, READ_ONLY_KEY_ERROR);
    if (principal.source === 'oauth' && !principal.scopes.has(oauthScope)) {
      throw new HttpError(403, 'insufficient scope for this operation', { scope: oauthScope }, {
        'WWW-Authenticate': `Bearer error=insufficient_scope, scope=${oauthScope}`,
      });
    }
    next();
  };
}
