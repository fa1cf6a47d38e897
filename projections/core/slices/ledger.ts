// Ledger entries: one per transfer with an id (deposits, withdrawals, adjustments, fees, refunds,
// settlements) and per points credit (rollup), as the fold recorded them.

import { ledgerEntryView } from '../../../domain/readModel/render.ts';
import { renderLedgerEntry } from '../render.ts';
import { snapshotTable, upsertWritten, type Batch, type Slice } from './batch.ts';

/** core_ledger_entries: one row per ledger entry, keeping where it was first inserted. */
export const LEDGER_ENTRIES_TABLE = snapshotTable({
  table: 'core_ledger_entries',
  key: ['id'],
  columns: [
    ['id', 'text'],
    ['account_id', 'text'],
    ['type', 'text'],
  ],
  placed: true,
});

export const ledgerSlice: Slice = {
  name: 'ledger',
  async apply(batch: Batch): Promise<void> {
    const entries = batch.fold.entries.map(({ entry, at }) => ({ view: ledgerEntryView(entry, at.nowUs, at.seq), at }));
    const written = await upsertWritten(batch.tx, LEDGER_ENTRIES_TABLE, entries, ({ view, at }) => ({
      id: view.id,
      account_id: view.account_id,
      type: view.type,
      seq: at.seq,
      ins_pos: at.pos,
      ins_idx: at.idx,
      doc: view,
    }));
    for (const { view } of written)
      batch.changes.push({
        kind: 'ledger_entry',
        account_id: view.account_id,
        ...(view.market_id ? { market_id: view.market_id } : {}),
        doc: renderLedgerEntry(view),
      });
  },
};
