// /admin/v1 OAuth clients, settings, leaderboard refresh and (with TEST_CLOCK=1) the clock. Each
// write is parse → command → render.

import type { Router } from 'express';
import { moveClock } from '../../../commands/clock/clock.ts';
import { changeClient, registerClient, type ClientWithSecret } from '../../../commands/oauthClients/commands.ts';
import { changeSettings } from '../../../commands/settings/change.ts';
import { usToIso } from '../../../domain/clock.ts';
import { badRequest, valueOrRefuse } from '../../errors.ts';
import { refreshLeaderboards } from '../../../projections/member/leaderboard/snapshot.ts';
import type { SnapshotCache } from '../upstream.ts';
import { compile, dateTimeToUs, parseBody, pathId } from '../validate.ts';

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
  return result.client_secret === undefined
    ? { client: result.client }
    : { client: { ...result.client, client_secret: result.client_secret } };
}

function bodyObject(body: unknown): Record<string, unknown> {
  const value = body === undefined ? {} : body;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw badRequest('body must be a JSON object');
  return value as Record<string, unknown>;
}

export function operationRoutes(router: Router, cache: SnapshotCache): void {
  const ctx = cache.context;

  router.post('/oauth/clients', async (req, res) => {
    const result = await registerClient(ctx.store, bodyObject(req.body), {
      nowUs: ctx.clock.nowUs(),
      registeredBy: 'admin',
    });
    res.json(clientAnswer(valueOrRefuse(result)));
  });

  router.patch('/oauth/clients/:client_id', async (req, res) => {
    const clientId = pathId(req, 'client_id', 'oauth_client_not_found');
    const body = bodyObject(req.body);
    if (Object.keys(body).length === 0) throw badRequest('body must contain at least one field');
    const result = await changeClient(ctx.store, clientId, body, { nowUs: ctx.clock.nowUs() });
    res.json(clientAnswer(valueOrRefuse(result)));
  });

  router.get('/settings', (_req, res) => {
    res.json({ settings: ctx.settings.get() });
  });

  router.patch('/settings', async (req, res) => {
    res.json({ settings: valueOrRefuse(await changeSettings(ctx, bodyObject(req.body))) });
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
    valueOrRefuse(
      await moveClock(
        {
          clock: testClock,
          engine: ctx.engine,
          onTickFailure: (err) => ctx.logger.warn({ err }, 'clock moved but the engine tick failed'),
        },
        {
          ...(body.set !== undefined ? { set_us: dateTimeToUs('set', body.set) } : {}),
          ...(body.advance_ms !== undefined ? { advance_ms: body.advance_ms } : {}),
        },
      ),
    );
    res.json(now());
  });
}
