// Request rate limits on /api/v1 (operator settings `rate_limits`): one token bucket per account
// for reads (GET) and one for writes (everything else), over all the account's API keys, sessions
// and OAuth tokens; an OAuth application token without a member is limited per application. A
// batch (POST or DELETE /orders/batched) takes one write per leg. Over the limit: 429
// `{"error":"Too many requests"}` with Retry-After (seconds until the request would be taken) and
// RateLimit-Limit (the bucket: two seconds' worth), RateLimit-Remaining (0) and RateLimit-Reset
// (seconds until the bucket is full again).
//
// Runs after authentication and the body parser (it counts a batch's legs); the check is a map
// lookup and arithmetic, nothing allocated unless the request is refused.

import type { NextFunction, Request, Response } from 'express';
import type { AppContext } from '../../commands/context.ts';
import { BURST_SECONDS, TABLE_FULL, TokenBuckets } from '../../commands/limits/tokenBuckets.ts';
import { anyPrincipalOf } from '../auth/principal.ts';
import { tooManyRequests } from '../errors.ts';

/** Accounts (and applications) whose buckets are held at once, per kind; see TokenBuckets for what happens past it. */
export const RATE_LIMITED_ACCOUNTS_MAX = 100_000;
const MS_PER_S = 1000;
const US_PER_MS = 1000;

const READ_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);

/**
 * The legs of a batch body (`orders`: a list), else one. A batch over the batch limit does no
 * work (it is refused as malformed, 400): it costs one, so the client learns of its mistake
 * rather than of a rate limit.
 */
function costOf(req: Request, batchLimit: number): number {
  const orders = (req.body as { orders?: unknown } | undefined)?.orders;
  return Array.isArray(orders) && orders.length > 1 && orders.length <= batchLimit ? orders.length : 1;
}

export function rateLimit(ctx: Pick<AppContext, 'settings' | 'clock'>) {
  const reads = new TokenBuckets(RATE_LIMITED_ACCOUNTS_MAX);
  const writes = new TokenBuckets(RATE_LIMITED_ACCOUNTS_MAX);
  return function limitRequestRate(req: Request, _res: Response, next: NextFunction): void {
    const settings = ctx.settings.get();
    const limits = settings.rate_limits;
    const read = READ_METHODS.has(req.method);
    const perSecond = read ? limits.read_per_second : limits.write_per_second;
    if (perSecond > 0) {
      const principal = anyPrincipalOf(req);
      const key = principal.account_id ?? principal.client_id;
      const buckets = read ? reads : writes;
      const nowMs = ctx.clock.nowUs() / US_PER_MS;
      const waitMs = buckets.take(key, read ? 1 : costOf(req, settings.batch_limit), perSecond, nowMs);
      if (waitMs !== 0) {
        const retryMs = waitMs === TABLE_FULL ? MS_PER_S : waitMs;
        throw tooManyRequests(
          retryMs,
          perSecond * BURST_SECONDS,
          Math.max(retryMs, buckets.refillMs(key, perSecond, nowMs)),
        );
      }
    }
    next();
  };
}
