// GET /me and PATCH /me/profile: the account identity object `me`.
// - identity (first/last name, user_id) from the core accounts read model; the profile (handle,
//   avatar, consent) from the member profiles read model; the credential fields (method,
//   scope, key_id) from the request's principal
// - PATCH: body validated by ajv (400), then the profile command (422 naming the rule);
//   a read_only API key is refused (403), a session bearer may always change its profile,
//   an OAuth token has no scope that covers it (403 insufficient scope)

import type { NextFunction, Request, Response } from 'express';
import { Router } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { loadProfile, updateProfile, type ProfilePatch } from '../../../commands/profile/updateProfile.ts';
import type { Avatar } from '../../../domain/avatar/avatar.ts';
import { usToIso } from '../../../domain/clock.ts';
import { effectiveOptIn, handleChangeableAtUs, type ProfileState } from '../../../domain/profile/profile.ts';
import type { Jurisdiction } from '../../../domain/views.ts';
import { MeSourcesCache, type MeSources } from '../../../projections/member/meSources.ts';
import type { ProfileRow } from '../../../projections/member/queries.ts';
import { principalOf, type MemberPrincipal } from '../../auth/principal.ts';
import { profileWriteRefusal } from '../../../commands/auth/access.ts';
import { httpErrorOf, valueOrRefuse } from '../../errors.ts';
import { ProfilePatchBody, validateBody } from './schemas.ts';

/** Bound on waiting for the profile projection after a change before answering. */
const PROFILE_WRITE_WAIT_MS = 2_000;

export const avatarUrlOf = (handle: string | null) =>
  handle === null ? null : `/avatars/${encodeURIComponent(handle)}.svg`;

interface MeObject {
  account_id: string;
  avatar_url: string | null;
  first_name: string | null;
  last_name: string | null;
  handle: string | null;
  handle_changeable_at: string | null;
  key_id: string | null;
  leaderboard_opt_in: boolean;
  method: 'api_key' | 'bearer';
  scope: 'read_only' | 'read_write' | null;
  user_id: string;
  avatar: Avatar | null;
}

function stateOfRow(row: ProfileRow | undefined): ProfileState {
  return {
    handle: row?.handle ?? null,
    handle_changed_at_us: row?.handle_changed_at ? Number(row.handle_changed_at) : null,
    avatar: row?.avatar ?? null,
    opt_in: row?.opt_in ?? null,
    opt_in_changed_at_us: null,
  };
}

function accountOfRow(
  ctx: AppContext,
  row: ProfileRow | undefined,
): { jurisdiction: Jurisdiction; created_at: number } {
  return {
    jurisdiction: (row?.jurisdiction as Jurisdiction | null) ?? ctx.config.jurisdiction,
    created_at: row?.created_at ? Number(row.created_at) : ctx.clock.nowUs(),
  };
}

/** Whether the profile row has the account's snapshot applied (its consent default is known). */
const hasAccount = (row: ProfileRow | undefined): row is ProfileRow => !!row && row.created_at !== null;

function meObject(
  ctx: AppContext,
  principal: MemberPrincipal,
  state: ProfileState,
  { row, account }: MeSources,
): MeObject {
  const changeableAt = handleChangeableAtUs(state, ctx.clock.nowUs());
  return {
    account_id: principal.account_id,
    avatar_url: avatarUrlOf(state.handle),
    first_name: account?.first_name ?? null,
    last_name: account?.last_name ?? null,
    handle: state.handle,
    handle_changeable_at: changeableAt === null ? null : usToIso(changeableAt),
    key_id: principal.method === 'api_key' ? principal.key_id : null,
    leaderboard_opt_in: effectiveOptIn(state, accountOfRow(ctx, row)),
    method: principal.method,
    scope: principal.method === 'api_key' ? principal.key_scope : null,
    user_id: account?.user_id ?? principal.user_id,
    avatar: state.avatar,
  };
}

/** The account's profile row and account once the read models have them (waits, bounded, for a lagging projection). */
async function meSourcesOf(ctx: AppContext, cache: MeSourcesCache, accountId: string): Promise<MeSources> {
  const read = () => cache.read(accountId, (sources) => hasAccount(sources.row) && sources.account !== null);
  const sources = await read();
  if (hasAccount(sources.row) && sources.account) return sources;
  const head = await ctx.store.headPosition();
  if (head >= 0n) await ctx.projections.waitFor(head, 2_000).catch(() => undefined);
  return read();
}

function requireProfileWrite(req: Request, _res: Response, next: NextFunction): void {
  const refusal = profileWriteRefusal(principalOf(req));
  if (refusal) throw httpErrorOf(refusal);
  next();
}

const caches = new WeakMap<AppContext, MeSourcesCache>();
const cacheOf = (ctx: AppContext): MeSourcesCache => {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = new MeSourcesCache(ctx.pool, ctx.projections);
    caches.set(ctx, cache);
  }
  return cache;
};

/**
 * GET /me's handler (the express route and the direct lane run the same one). An OAuth token's
 * profile.read is checked before it, by the route → scope guard both paths run.
 */
export function getMeHandlers(ctx: AppContext): [(req: Request, res: Response) => Promise<void>] {
  const cache = cacheOf(ctx);
  return [
    async (req: Request, res: Response) => {
      const principal = principalOf(req);
      const sources = await meSourcesOf(ctx, cache, principal.account_id);
      // the profile stream is the authority when the read model has not caught up with it yet
      const state = hasAccount(sources.row)
        ? stateOfRow(sources.row)
        : (await loadProfile(ctx.store, principal.account_id)).state;
      res.json({ me: meObject(ctx, principal, state, sources) });
    },
  ];
}

export function meRoutes(ctx: AppContext): Router {
  const router = Router();
  const cache = cacheOf(ctx);

  router.get('/me', ...getMeHandlers(ctx));

  router.patch('/me/profile', requireProfileWrite, async (req, res) => {
    const principal = principalOf(req);
    const patch = validateBody<ProfilePatch>(ProfilePatchBody, req.body);
    const { state, position } = valueOrRefuse(await updateProfile(ctx, principal.account_id, patch));
    // read-your-writes for everything after this answer (GET /me, avatars, leaderboard rows)
    if (position !== null) await ctx.projections.waitFor(position, PROFILE_WRITE_WAIT_MS).catch(() => undefined);
    res.json({ me: meObject(ctx, principal, state, await meSourcesOf(ctx, cache, principal.account_id)) });
  });

  return router;
}
