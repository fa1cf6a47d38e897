// GET /positions: the account's open (non-zero) positions, largest first by contracts held
// (|position|), ties by market_id. Keyset paged like every list, though one account rarely
// holds more than a page.

import type { PositionView } from '../../../domain/views.ts';
import { renderPosition, type PositionWire } from '../render.ts';
import { cursorParts, limitOf, pageFrom, Where, type PageRequest, type Queryable } from './db.ts';

interface PositionPage {
  cursor: string | null;
  positions: PositionWire[];
}

interface Row {
  doc: PositionView;
  key_contracts: string;
  key_market: string;
}

export async function listPositions(
  db: Queryable,
  accountId: string,
  page: PageRequest = {},
  filters: { marketIds?: readonly string[] } = {},
): Promise<PositionPage> {
  const limit = limitOf(page);
  const w = new Where();
  w.and(`account_id = ${w.param(accountId)}`).and('position <> 0');
  w.anyOf('market_id', filters.marketIds);
  const after = cursorParts(page.cursor, ['dec', 'text']);
  if (after) {
    const contracts = w.param(after[0]);
    w.and(
      `(contracts < ${contracts}::numeric OR (contracts = ${contracts}::numeric AND market_id > ${w.param(after[1])}))`,
    );
  }
  const result = await db.query<Row>(
    `SELECT doc, contracts::text AS key_contracts, market_id AS key_market FROM core_positions ${w.sql()} ORDER BY contracts DESC, market_id ASC LIMIT ${w.param(limit + 1)}`,
    w.values,
  );
  const { page: rows, cursor } = pageFrom(result.rows, limit, (row) => [row.key_contracts, row.key_market]);
  return { cursor, positions: rows.map((row) => renderPosition(row.doc)) };
}
