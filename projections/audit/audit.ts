// `exchange audit`: the journal folded from position zero and checked (journal.ts), and the core
// read models held against the fold (readModels.ts), in one report.
//
// With PostgreSQL read models, the audit opens one REPEATABLE READ, READ ONLY transaction, reads
// the core projector's checkpoint in it and folds the journal up to that position: the rows it
// then reads in the same snapshot are exactly what the projector had written for those records
// (rows and checkpoint commit together), however far the service has moved on meanwhile.

import type pg from 'pg';
import { money } from '../../domain/money/decimal.ts';
import type { EventStore } from '../../eventstore/port.ts';
import { coreProjector } from '../core/projector.ts';
import { readCheckpoint } from '../runtime/checkpoints.ts';
import { auditJournal, type Difference, type JournalAudit } from './journal.ts';
import { compareReadModels, type RowCounts } from './readModels.ts';

export type { Difference } from './journal.ts';

export interface AuditReport {
  ok: boolean;
  /** The last event-store position audited, and the head when the audit began (read after the checkpoint). */
  position: string;
  head: string;
  journal: { records: number; steps: number; facts: number; trades: number; transfers: number };
  entities: {
    members: number;
    orders: number;
    fills: number;
    positions: number;
    markets: number;
    settled_markets: number;
    ledger_entries: number;
  };
  /** Over every member (fees net of refunds), and the house's ledger accounts. */
  money: {
    deposits: string;
    withdrawals: string;
    adjustments: string;
    realised_pnl: string;
    fees: string;
    fee_revenue: string;
    outside: string;
    open_pools: string;
  };
  /** Null when the read models were not compared (none given, or the core projector has never run). */
  read_models: { checkpoint: string; projector_version: number; stored_version: number; rows: RowCounts } | null;
  /** What differs, in the order found (at most AUDIT_DIFFERENCES_MAX); the first names where to look. */
  differences: Difference[];
}

export interface AuditProgress {
  /** Positions folded so far, of `total`. */
  journal?(position: bigint, total: bigint): void;
  /** Read-model rows compared so far, of about `total`. */
  readModels?(rows: number, total: number): void;
}

function reportOf(audit: JournalAudit, head: bigint, readModels: AuditReport['read_models']): AuditReport {
  const totals = audit.totals();
  return {
    ok: audit.differences.length === 0,
    position: audit.position.toString(),
    head: head.toString(),
    journal: {
      records: audit.records,
      steps: audit.steps,
      facts: audit.facts,
      trades: audit.trades,
      transfers: audit.transfers,
    },
    entities: {
      members: audit.store.accounts.size,
      orders: audit.store.orders.size,
      fills: audit.store.fills.size,
      positions: audit.store.positions.size,
      markets: audit.store.markets.size,
      settled_markets: audit.settled.size,
      ledger_entries: audit.entries.size,
    },
    money: {
      deposits: money(totals.deposits),
      withdrawals: money(totals.withdrawals),
      adjustments: money(totals.adjustments),
      realised_pnl: money(totals.realisedPnl),
      fees: money(totals.fees),
      fee_revenue: money(totals.feeRevenue),
      outside: money(totals.outside),
      open_pools: money(totals.openPools),
    },
    read_models: readModels,
    differences: audit.differences,
  };
}

/**
 * Audits the journal of `store` and, given `pool`, the core read models in it. Without read
 * models (or before the core projector's first batch) the whole journal is audited.
 */
export async function auditExchange(
  store: EventStore,
  pool: pg.Pool | null,
  progress: AuditProgress = {},
): Promise<AuditReport> {
  if (pool === null) {
    const head = await store.headPosition();
    const audit = await auditJournal(store, { onProgress: (position) => progress.journal?.(position, head) });
    return reportOf(audit, head, null);
  }
  const client = await pool.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const projector = coreProjector();
    const checkpoint = await readCheckpoint(client, projector.name);
    // after the checkpoint: the head the report names is never behind what it audits
    const head = await store.headPosition();
    const upTo = checkpoint?.position;
    const audit = await auditJournal(store, {
      ...(upTo === undefined ? {} : { upTo }),
      onProgress: (position) => progress.journal?.(position, upTo ?? head),
    });
    let readModels: AuditReport['read_models'] = null;
    if (checkpoint && !audit.stopped) {
      const total =
        audit.store.accounts.size +
        audit.store.positions.size +
        audit.store.orders.size +
        audit.store.fills.size +
        audit.entries.size;
      const rows = await compareReadModels(client, audit, { onProgress: (done) => progress.readModels?.(done, total) });
      readModels = {
        checkpoint: checkpoint.position.toString(),
        projector_version: projector.version,
        stored_version: checkpoint.version,
        rows,
      };
    }
    await client.query('COMMIT');
    return reportOf(audit, head, readModels);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
