// Positions: PositionChanged. A position's size also moves its market's open interest.

import { abs, decimalOf, decimalText } from '../../../domain/money/decimal.ts';
import type { PositionView } from '../../../domain/views.ts';
import { newestByKey, type JournaledEvent } from '../engineEvents.ts';
import { renderPosition } from '../render.ts';
import { upsertSnapshots, type Batch, type Slice } from './batch.ts';

export const positionsSlice: Slice = {
  name: 'positions',
  async apply(batch: Batch): Promise<void> {
    const positions: Array<{ item: PositionView; key: string; at: JournaledEvent }> = [];
    for (const at of batch.events) {
      if (at.event.type === 'PositionChanged') {
        const p = at.event.position;
        positions.push({ item: p, key: `${p.account_id}|${p.market_id}`, at });
      }
    }
    const newest = newestByKey(positions);
    const written = await upsertSnapshots(batch.tx, {
      table: 'core_positions',
      key: ['account_id', 'market_id'],
      columns: [['account_id', 'text'], ['market_id', 'text'], ['position', 'numeric'], ['contracts', 'numeric'], ['seq', 'bigint'], ['doc', 'json']],
    }, newest.map(({ item, at }) => ({
      account_id: item.account_id,
      market_id: item.market_id,
      position: item.position,
      contracts: decimalText(abs(decimalOf(item.position))),
      seq: at.seq,
      doc: item,
    })));
    const keys = new Set(written.map((row) => `${row.account_id}|${row.market_id}`));
    for (const { item } of newest) {
      if (!keys.has(`${item.account_id}|${item.market_id}`)) continue;
      batch.changes.push({ kind: 'position', account_id: item.account_id, market_id: item.market_id, doc: renderPosition(item) });
      batch.touchedMarkets.add(item.market_id);
    }
  },
};
