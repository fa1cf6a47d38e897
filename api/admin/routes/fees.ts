// /admin/v1 settlement-side fees and referrals: a market group's `group_fee_percent`
// (PUT /market_groups/{grouping_id}) and who referred whom (POST /accounts/{id}/referrals), each
// each parse → command (commands/catalogue/fees.ts) → render; and what the catalogue routes use for
// a market's `settlement_fee_percent` and an event's `event_fee_percent` (fields of POST/PATCH
// /markets and PATCH /events).

import type { Request, Router } from 'express';
import { recordReferral, setSettlementFee } from '../../../commands/catalogue/fees.ts';
import { usToIso } from '../../../domain/clock.ts';
import { SETTLEMENT_FEE_PERCENT_MAX } from '../../../domain/engine/settlementFees.ts';
import type { MarketStateView } from '../../../domain/views.ts';
import { badRequest, valueOrRefuse } from '../../errors.ts';
import type { SnapshotCache } from '../upstream.ts';
import { compile, parseBody, pathId } from '../validate.ts';

const GROUPING_ID_LENGTH_MAX = 500;

/** A percent of net winnings: a number from 0 to 100, or null for none. */
export const FEE_PERCENT_SCHEMA = {
  type: ['number', 'null'],
  minimum: 0,
  maximum: SETTLEMENT_FEE_PERCENT_MAX,
} as const;

const validateGroup = compile<{ group_fee_percent: number | null }>({
  type: 'object',
  required: ['group_fee_percent'],
  properties: { group_fee_percent: FEE_PERCENT_SCHEMA },
});
const validateReferral = compile<{ referee_account_id: string }>({
  type: 'object',
  required: ['referee_account_id'],
  properties: { referee_account_id: { type: 'string', format: 'uuid' } },
});

/** The settlement-side percents in force for a market, as admin answers show them. */
export function settlementFeesOf(market: MarketStateView): Record<string, number | null> {
  return {
    settlement_fee_percent: market.settlement_fee_percent ?? null,
    event_fee_percent: market.event_fee_percent ?? null,
    group_fee_percent: market.group_fee_percent ?? null,
  };
}

const accountIdOf = (req: Request): string => pathId(req, 'account_id', 'account_not_found');

export function feeRoutes(router: Router, cache: SnapshotCache): void {
  const ctx = cache.context;

  router.put('/market_groups/:grouping_id', async (req, res) => {
    const groupingId = String(req.params.grouping_id);
    if (groupingId.length > GROUPING_ID_LENGTH_MAX)
      throw badRequest(`grouping_id must be at most ${GROUPING_ID_LENGTH_MAX} characters`);
    const body = parseBody(validateGroup, req.body);
    const set = valueOrRefuse(await setSettlementFee(ctx, 'market_group', groupingId, body.group_fee_percent));
    for (const market of set.markets) cache.markets.set(market.market_id, market);
    res.json({
      market_group: {
        grouping_id: groupingId,
        group_fee_percent: body.group_fee_percent,
        market_ids: set.markets.map((m) => m.market_id),
      },
    });
  });

  router.post('/accounts/:account_id/referrals', async (req, res) => {
    const referrerId = accountIdOf(req);
    const body = parseBody(validateReferral, req.body);
    const referral = valueOrRefuse(await recordReferral(ctx, referrerId, body.referee_account_id.toLowerCase()));
    res.json({
      referral: { ...referral, created_at: usToIso(referral.created_at), created_at_us: referral.created_at },
    });
  });
}
