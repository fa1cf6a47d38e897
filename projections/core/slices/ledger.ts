// Ledger entries: LedgerEntryRecorded (deposits, withdrawals, adjustments, fees, refunds,
// settlements, loyalty). An entry recorded again (same id) replaces the stored one.

import type { LedgerEntryView } from '../../../domain/views.ts';
import { newestByKey, type JournaledEvent } from '../engineEvents.ts';
import { renderLedgerEntry } from '../render.ts';
import { upsertSnapshots, type Batch, type Slice } from './batch.ts';

export const ledgerSlice: Slice = {
  name: 'ledger',
  async apply(batch: Batch): Promise<void> {
    const entries: Array<{ item: LedgerEntryView; key: string; at: JournaledEvent }> = [];
    for (const at of batch.events) {
      if (at.event.type === 'LedgerEntryRecorded') entries.push({ item: at.event.entry, key: at.event.entry.id, at });
    }
    const newest = newestByKey(entries);
    const written = await upsertSnapshots(batch.tx, {
      table: 'core_ledger_entries',
      key: ['id'],
      columns: [['id', 'text'], ['account_id', 'text'], ['type', 'text'], ['seq', 'bigint'], ['ins_pos', 'bigint'], ['ins_idx', 'integer'], ['doc', 'json']],
      insertOnly: ['ins_pos', 'ins_idx'],
    }, newest.map(({ item, at, first }) => ({ id: item.id, account_id: item.account_id, type: item.type, seq: at.seq, ins_pos: first.pos, ins_idx: first.idx, doc: item })));
    const ids = new Set(written.map((row) => row.id));
    for (const { item } of newest) {
      if (ids.has(item.id)) batch.changes.push({ kind: 'ledger_entry', account_id: item.account_id, ...(item.market_id ? { market_id: item.market_id } : {}), doc: renderLedgerEntry(item) });
    }
  },
};
