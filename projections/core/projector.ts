// The core projector: accounts, balances, sport events, markets (with their book levels, trade
// tape and totals), orders, fills, positions and ledger entries, all fed by the engine journal:
// a batch's facts are folded onto the stored rows they name (projections/facts), and each slice
// writes what changed, rendered as REST shows it.
// One projector, so one transaction and one checkpoint cover every core table: a market's
// book, tape and open interest are never seen out of step with each other, and a rebuild
// swaps them in together. Each slice writes its own tables; the order below matters only in
// that announcements about markets are rendered after every slice has written.

import type pg from 'pg';
import type { RecordedEvent } from '../../eventstore/port.ts';
import type { ProjectionChange, Projector } from '../projector.ts';
import { FactFold, namedBy } from '../facts/fold.ts';
import { engineStepFilter, journaledEventsOf } from './engineEvents.ts';
import { loadCore } from './load.ts';
import { getMarketsByIds } from './queries/markets.ts';
import { CORE_SCHEMA_SQL, CORE_TABLES } from './schema.ts';
import { accountsSlice } from './slices/accounts.ts';
import type { Batch, Slice } from './slices/batch.ts';
import { fillsSlice } from './slices/fills.ts';
import { ledgerSlice } from './slices/ledger.ts';
import { marketsSlice } from './slices/markets.ts';
import { ordersSlice } from './slices/orders.ts';
import { positionsSlice } from './slices/positions.ts';
import { marketStatsSlice } from './slices/marketStats.ts';

const CORE_PROJECTOR_NAME = 'core';
/** Bump when the schema or the handling changes: the runner then rebuilds from zero. */
const CORE_PROJECTOR_VERSION = 6;

const SLICES: readonly Slice[] = [
  accountsSlice,
  marketsSlice,
  ordersSlice,
  fillsSlice,
  positionsSlice,
  ledgerSlice,
  marketStatsSlice,
];

/** Account → user ids never change; a bounded cache spares a query per batch. */
const USER_ID_CACHE_MAX = 100_000;

export function coreProjector(): Projector {
  const userIdOf = new Map<string, string>();

  async function resolveUserIds(tx: pg.PoolClient, accountIds: Set<string>): Promise<void> {
    const missing = [...accountIds].filter((id) => !userIdOf.has(id));
    if (missing.length === 0) return;
    if (userIdOf.size + missing.length > USER_ID_CACHE_MAX) userIdOf.clear();
    const result = await tx.query<{ account_id: string; user_id: string }>(
      'SELECT account_id, user_id FROM core_accounts WHERE account_id = ANY($1::text[])',
      [missing],
    );
    for (const row of result.rows) userIdOf.set(row.account_id, row.user_id);
  }

  return {
    name: CORE_PROJECTOR_NAME,
    version: CORE_PROJECTOR_VERSION,
    tables: [...CORE_TABLES],
    schemaSql: CORE_SCHEMA_SQL,
    filter: engineStepFilter,
    async handle(tx: pg.PoolClient, records: RecordedEvent[]): Promise<ProjectionChange[]> {
      const events = journaledEventsOf(records);
      if (events.length === 0) return [];
      const entryIds: string[] = [];
      for (const { event } of events) {
        if ((event.type === 'Transferred' && event.id !== null) || event.type === 'PointsCredited')
          entryIds.push(event.id!);
        else if (event.type === 'ReferralCredited') entryIds.push(event.referrer_entry_id, event.referee_entry_id);
      }
      const store = await loadCore(tx, namedBy(events), entryIds);
      const fold = new FactFold(store);
      for (const fact of events) fold.apply(fact);
      const batch: Batch = {
        tx,
        events,
        fold,
        store,
        changes: [],
        touchedMarkets: new Set(),
        views: { orders: new Map(), fills: new Map() },
      };
      for (const slice of SLICES) await slice.apply(batch);

      const nowUs = (events[events.length - 1] as { nowUs: number }).nowUs;
      const markets = await getMarketsByIds(tx, [...batch.touchedMarkets], nowUs);
      for (const market of markets) batch.changes.push({ kind: 'market', market_id: market.market_id, doc: market });

      const accountIds = new Set(batch.changes.flatMap((c) => (c.account_id ? [c.account_id] : [])));
      await resolveUserIds(tx, accountIds);
      return batch.changes.map((change) => {
        const keys: Record<string, string> = {};
        if (change.account_id) {
          keys.account_id = change.account_id;
          const userId = userIdOf.get(change.account_id);
          if (userId) keys.user_id = userId;
        }
        if (change.market_id) keys.market_id = change.market_id;
        // the document is read through: one rendered on read stays unrendered until someone reads it
        const announced: ProjectionChange = {
          projector: CORE_PROJECTOR_NAME,
          kind: change.kind,
          keys,
          get doc(): unknown {
            return change.doc;
          },
        };
        if (change.seq !== undefined) announced.seq = change.seq;
        return announced;
      });
    },
  };
}
