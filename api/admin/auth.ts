// Admin authentication: `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time.
// Anything else (no header, another scheme, a member session, a signed API key) is 401.

import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { tokensEqual } from './token.ts';

const UNAUTHORIZED = { error: 'Unauthorized' };
const BEARER = /^Bearer[ ]+([^ ]+)[ ]*$/i;

export function adminAuth(adminToken: Promise<string>): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const match = BEARER.exec(req.get('authorization') ?? '');
    const presented = match?.[1];
    if (presented === undefined) {
      res.status(401).json(UNAUTHORIZED);
      return;
    }
    adminToken.then(
      (expected) => {
        if (tokensEqual(presented, expected)) next();
        else res.status(401).json(UNAUTHORIZED);
      },
      (err: unknown) => next(err),
    );
  };
}
