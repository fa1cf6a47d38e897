// Positions: what trades, settlements and amendments made of each account's holding in a
// market. A position's size also moves its market's open interest.

import { abs, decimalOf, decimalText } from '../../../domain/money/decimal.ts';
import { positionView } from '../../../domain/readModel/render.ts';
import { renderPosition } from '../render.ts';
import { snapshotTable, upsertWritten, type Batch, type Slice } from './batch.ts';

/** core_positions: one row per account and market. */
export const POSITIONS_TABLE = snapshotTable({
  table: 'core_positions',
  key: ['account_id', 'market_id'],
  columns: [
    ['account_id', 'text'],
    ['market_id', 'text'],
    ['position', 'numeric'],
    ['contracts', 'numeric'],
  ],
});

export const positionsSlice: Slice = {
  name: 'positions',
  async apply(batch: Batch): Promise<void> {
    const positions = [...batch.fold.positions.values()].map(({ record, at }) => {
      const market = batch.store.markets.get(record.marketId)?.record;
      if (!market) throw new Error(`position in market ${record.marketId}, never listed`);
      return positionView(record, market, at.seq);
    });
    const written = await upsertWritten(batch.tx, POSITIONS_TABLE, positions, (view) => ({
      account_id: view.account_id,
      market_id: view.market_id,
      position: view.position,
      contracts: decimalText(abs(decimalOf(view.position))),
      seq: view.seq,
      doc: view,
    }));
    for (const view of written) {
      batch.changes.push({
        kind: 'position',
        account_id: view.account_id,
        market_id: view.market_id,
        doc: renderPosition(view),
        seq: view.seq,
      });
      batch.touchedMarkets.add(view.market_id);
    }
  },
};
