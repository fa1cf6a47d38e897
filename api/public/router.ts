// Public images at the host root, served without credentials (browsers load them in image tags):
//   GET /avatars/{handle}.svg      the member's avatar (style × palette × seed); 404 unknown handle
//   GET /icons/sports/{sport}.svg  the icon behind a leaderboard row's top_sport_icon_url
// Both carry a strong ETag (a conditional request gets 304) and Cache-Control.

import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { Router } from 'express';
import type { AppContext } from '../../commands/context.ts';
import { handleHolderOf, loadProfile } from '../../commands/profile/updateProfile.ts';
import { defaultAvatarFor, renderAvatarSvg, renderSportIconSvg, type Avatar } from '../../domain/avatar/avatar.ts';
import { foldHandle, isWellFormedHandle } from '../../domain/profile/handle.ts';
import { avatarOfHandle } from '../../projections/member/queries.ts';
import { notFound } from '../errors.ts';

/** Avatars change when the member picks another: short shared caching, revalidated by ETag. */
const AVATAR_CACHE_CONTROL = 'public, max-age=300';
/** Sport icons never change for a key. */
const ICON_CACHE_CONTROL = 'public, max-age=86400';
const SPORT_KEY = /^[a-z0-9_]{1,48}$/;

function sendSvg(req: Request, res: Response, svg: string, cacheControl: string): void {
  const etag = `"${createHash('sha256').update(svg).digest('base64url').slice(0, 27)}"`;
  res.set({
    'Content-Type': 'image/svg+xml; charset=utf-8',
    'Cache-Control': cacheControl,
    ETag: etag,
    'X-Content-Type-Options': 'nosniff',
  });
  const ifNoneMatch = req.headers['if-none-match'];
  if (
    ifNoneMatch &&
    ifNoneMatch
      .split(',')
      .map((t) => t.trim().replace(/^W\//, ''))
      .includes(etag)
  ) {
    res.status(304).end();
    return;
  }
  res.status(200).send(req.method === 'HEAD' ? undefined : svg);
}

async function avatarFromStreams(ctx: AppContext, handle: string): Promise<{ avatar: Avatar | null } | undefined> {
  const holder = await handleHolderOf(ctx.store, handle);
  if (!holder) return undefined;
  const { state } = await loadProfile(ctx.store, holder);
  return state.handle === handle ? { avatar: state.avatar } : undefined;
}

export function publicRouter(ctx: AppContext): Router {
  const router = Router();

  router.get('/avatars/:file', async (req, res) => {
    const file = String(req.params.file);
    if (!file.endsWith('.svg')) throw notFound('Avatar not found');
    const handle = foldHandle(file.slice(0, -'.svg'.length));
    if (!isWellFormedHandle(handle)) throw notFound('Avatar not found');
    let found = await avatarOfHandle(ctx.pool, handle);
    // a handle taken a moment ago may not be in the read model yet: ask its reservation stream
    found ??= await avatarFromStreams(ctx, handle);
    if (!found) throw notFound('Avatar not found');
    sendSvg(req, res, renderAvatarSvg(found.avatar ?? defaultAvatarFor(handle)), AVATAR_CACHE_CONTROL);
  });

  router.get('/icons/sports/:file', (req, res) => {
    const file = String(req.params.file);
    const key = file.endsWith('.svg') ? file.slice(0, -'.svg'.length) : '';
    if (!SPORT_KEY.test(key)) throw notFound('Icon not found');
    sendSvg(req, res, renderSportIconSvg(key), ICON_CACHE_CONTROL);
  });

  return router;
}
