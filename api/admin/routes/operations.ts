// /admin/v1 OAuth clients, settings, leaderboard refresh and (with TEST_CLOCK=1) the clock.

import type { Router } from 'express';
import { submitOrThrow } from '../../../commands/accounts/engineCall.ts';
import { changeClient, registerClient, type ClientWithSecret } from '../../../commands/oauthClients/commands.ts';
import { validateSettingsPatch } from '../../../commands/settings/validate.ts';
import { usToIso } from '../../../domain/clock.ts';
import { badRequest, notFound } from '../../errors.ts';
import { refreshLeaderboards } from '../../../projections/member/leaderboard/snapshot.ts';
import type { SnapshotCache } from '../upstream.ts';
import { compile, dateTimeToUs, isServiceTimeMs, isUuid, parseBody } from '../validate.ts';

/** ±100 years: far enough for any test, near enough to stay a valid date. */
const CLOCK_ADVANCE_MS_MAX = 100 * 366 * 24 * 3600 * 1000;

const validateClock = compile<{ advance_ms?: number; set?: string }>({
  type: 'object',
  properties: {
    advance_ms: { type: 'number', minimum: -CLOCK_ADVANCE_MS_MAX, maximum: CLOCK_ADVANCE_MS_MAX },
    set: { type: 'string', format: 'date-time' },
  },
});

function clientAnswer(result: ClientWithSecret) {
  return result.client_secret === undefined ? { client: result.client } : { client: { ...result.client, client_secret: result.client_secret } };
}

function bodyObject(body: unknown): Record<string, unknown> {
  const value = body === undefined ? {} : body;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badRequest('body must be a JSON object');
  return value as Record<string, unknown>;
}

export function operationRoutes(router: Router, cache: SnapshotCache): void {
  const ctx = cache.context;

  router.post('/oauth/clients', async (req, res) => {
    const result = await registerClient(ctx.store, bodyObject(req.body), { nowUs: ctx.clock.nowUs(), registeredBy: 'admin' });
    res.json(clientAnswer(result));
  });

  router.patch('/oauth/clients/:client_id', async (req, res) => {
    const clientId = String(req.params.client_id);
    if (!isUuid(clientId)) throw notFound('OAuth client not found');
    const body = bodyObject(req.body);
    if (Object.keys(body).length === 0) throw badRequest('body must contain at least one field');
    const result = await changeClient(ctx.store, clientId.toLowerCase(), body, { nowUs: ctx.clock.nowUs() });
    res.json(clientAnswer(result));
  });

  router.get('/settings', (_req, res) => {
    res.json({ settings: ctx.settings.get() });
  });

  router.patch('/settings', async (req, res) => {
    const patch = validateSettingsPatch(bodyObject(req.body), ctx.settings.get());
    // the engine credits referrals, so it is told the points in force first (they are journaled with it)
    if (patch.referral_points !== undefined) await submitOrThrow(ctx, { kind: 'SetReferralPoints', points: patch.referral_points });
    res.json({ settings: await ctx.settings.update(patch) });
  });

  router.post('/leaderboard/refresh', async (_req, res) => {
    res.json({ refreshed_at: (await refreshLeaderboards(ctx)).refreshed_at });
  });

  // The clock routes exist only with TEST_CLOCK=1; otherwise they fall through to the 404.
  const testClock = ctx.testClock;
  if (testClock === null) return;

  const now = () => {
    const nowUs = testClock.nowUs();
    return { now: usToIso(nowUs), now_us: nowUs };
  };

  router.get('/clock', (_req, res) => {
    res.json(now());
  });

  router.post('/clock', async (req, res) => {
    const body = parseBody(validateClock, req.body);
    if ((body.advance_ms === undefined) === (body.set === undefined)) throw badRequest('send exactly one of advance_ms or set');
    if (body.set !== undefined) testClock.set(dateTimeToUs('set', body.set));
    else if (body.advance_ms !== undefined) {
      const targetMs = Math.floor(testClock.nowUs() / 1000) + body.advance_ms;
      if (!isServiceTimeMs(targetMs)) throw badRequest('advance_ms must lead to a time between 1970 and 2200');
      testClock.advance(body.advance_ms);
    }
    // let expiries and delays that are now due happen at once
    try {
      await ctx.engine.submit({ kind: 'Tick' });
    } catch (err) {
      ctx.logger.warn({ err }, 'clock moved but the engine tick failed');
    }
    res.json(now());
  });
}
