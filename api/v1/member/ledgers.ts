// Ledger lists of the account, most recent first, keyset-paged:
//   /portfolio/loyalty      rollup and referral entries (not a points balance or tier)
//   /portfolio/withdrawals  withdrawals with method, reason, sub_method
//   /portfolio/fees         fee (never positive) and fee_refund (never negative) entries; a
//                           zero fee is a real entry; every fee source (trade, settlement,
//                           market group, event). Only fees charged to the balance are ledger
//                           entries, so pending fees never appear.
//   /portfolio/adjustments  manual adjustments with their reason

import { Router } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import type { LedgerEntryView } from '../../../domain/views.ts';
import { ledgerEntries, type LedgerCursor } from '../../../projections/member/queries.ts';
import { principalOf } from '../../auth/principal.ts';
import { HttpError } from '../../errors.ts';
import { decodeCursor, pageOf, parseLimit } from '../../pagination.ts';
import { requireOAuthScope } from './marketStats.ts';

function common(entry: LedgerEntryView) {
  return {
    id: entry.id,
    account_id: entry.account_id,
    amount: entry.amount,
    points: entry.points,
    type: entry.type,
    event_id: entry.event_id,
    market_id: entry.market_id,
    fee_id: entry.fee_id,
    payment_id: entry.payment_id,
    settlement_id: entry.settlement_id,
    inserted_at: entry.inserted_at,
    time: entry.time,
  };
}

interface LedgerList {
  path: string;
  key: string;
  types: readonly string[];
  scope: string;
  render: (entry: LedgerEntryView) => Record<string, unknown>;
}

export const LEDGER_LISTS: readonly LedgerList[] = [
  {
    path: '/portfolio/loyalty', key: 'loyalty', types: ['rollup', 'referral'], scope: 'portfolio.read',
    render: (e) => ({ ...common(e), referee_account_id: e.referee_account_id, referrer_account_id: e.referrer_account_id }),
  },
  {
    path: '/portfolio/withdrawals', key: 'withdrawals', types: ['withdrawal'], scope: 'transfers.read',
    render: (e) => ({ ...common(e), method: e.method, reason: e.reason, sub_method: e.sub_method }),
  },
  { path: '/portfolio/fees', key: 'fees', types: ['fee', 'fee_refund'], scope: 'portfolio.read', render: common },
  {
    path: '/portfolio/adjustments', key: 'adjustments', types: ['adjustment'], scope: 'transfers.read',
    render: (e) => ({ ...common(e), reason: e.reason }),
  },
];

export function ledgerRoutes(ctx: AppContext): Router {
  const router = Router();
  for (const list of LEDGER_LISTS) {
    router.get(list.path, requireOAuthScope(list.scope), async (req, res) => {
      const principal = principalOf(req);
      const limit = parseLimit(req.query.limit);
      const after = decodeCursor(req.query.cursor, 3) as LedgerCursor | null;
      if (after && (typeof after[0] !== 'number' || typeof after[1] !== 'number' || typeof after[2] !== 'string')) throw new HttpError(400, 'cursor is invalid');
      const entries = await ledgerEntries(ctx.pool, principal.account_id, list.types, limit + 1, after);
      const { page, cursor } = pageOf(entries, limit, (e) => [e.inserted_at, e.seq, e.id]);
      res.json({ cursor, [list.key]: page.map(list.render) });
    });
  }
  return router;
}
