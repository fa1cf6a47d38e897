// Ledger lists of the account, most recent first, keyset-paged, answered by the core read
// model's ledger queries (projections/core/queries/ledger.ts):
//   /portfolio/loyalty      rollup and referral entries (not a points balance or tier)
//   /portfolio/withdrawals  withdrawals with method, reason, sub_method
//   /portfolio/fees         fee (never positive) and fee_refund (never negative) entries; a
//                           zero fee is a real entry; every fee source (trade, settlement,
//                           market group, event). Only fees charged to the balance are ledger
//                           entries, so pending fees never appear.
//   /portfolio/adjustments  manual adjustments with their reason

import { Router } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { listAdjustments, listFees, listLoyalty, listWithdrawals } from '../../../projections/core/queries/ledger.ts';
import type { PageRequest, Queryable } from '../../../projections/core/queries/db.ts';
import { principalOf } from '../../auth/principal.ts';
import { badRequest } from '../../errors.ts';
import { parseLimit } from '../../pagination.ts';

interface LedgerList {
  path: string;
  list: (db: Queryable, accountId: string, page: PageRequest) => Promise<{ cursor: string | null }>;
}

const LEDGER_LISTS: readonly LedgerList[] = [
  { path: '/portfolio/loyalty', list: listLoyalty },
  { path: '/portfolio/withdrawals', list: listWithdrawals },
  { path: '/portfolio/fees', list: listFees },
  { path: '/portfolio/adjustments', list: listAdjustments },
];

export function ledgerRoutes(ctx: AppContext): Router {
  const router = Router();
  for (const list of LEDGER_LISTS) {
    router.get(list.path, async (req, res) => {
      const principal = principalOf(req);
      const limit = parseLimit(req.query.limit);
      const cursor = req.query.cursor;
      if (cursor !== undefined && typeof cursor !== 'string') throw badRequest('cursor is invalid'); // e.g. given twice
      res.json(await list.list(ctx.pool, principal.account_id, { limit, cursor }));
    });
  }
  return router;
}
