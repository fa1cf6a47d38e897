// Public images at the host root: /avatars/{handle}.svg and sport icons. No credentials.
import { Router } from 'express';
import type { AppContext } from '../../commands/context.ts';

export function publicRouter(_ctx: AppContext): Router {
  const router = Router();
  return router;
}
