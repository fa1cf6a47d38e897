// Sport events and markets, as the fold changed them (scheduled, started, updated; listed,
// catalogue, status, last trade price, result, archived). A market row
// carries copies of its event's start, sport and competition so the market list filters and
// pages on one table; they are refreshed whenever either side changes.

import { marketView, sportEventView } from '../../../domain/readModel/render.ts';
import { sportKey } from '../../../domain/leaderboard/board.ts';
import { marketTier } from '../market.ts';
import { renderSportEvent } from '../render.ts';
import { snapshotTable, upsertWritten, type Batch, type Slice } from './batch.ts';

const lower = (s: string | null): string | null => (s === null ? null : s.toLowerCase());

/** core_sport_events: one row per sport event, with what its lists filter and sort on. */
const SPORT_EVENTS_TABLE = snapshotTable({
  table: 'core_sport_events',
  key: ['event_id'],
  columns: [
    ['event_id', 'text'],
    ['start_us', 'bigint'],
    ['status', 'text'],
    ['sport_lc', 'text'],
    ['competition_lc', 'text'],
    ['sport_key', 'text'],
  ],
});

/** core_markets: one row per market, with what its lists filter on. */
const MARKETS_TABLE = snapshotTable({
  table: 'core_markets',
  key: ['market_id'],
  columns: [
    ['market_id', 'text'],
    ['event_id', 'text'],
    ['status', 'text'],
    ['trading', 'boolean'],
    ['tier', 'smallint'],
    ['archived', 'boolean'],
  ],
});

export const marketsSlice: Slice = {
  name: 'markets',
  async apply(batch: Batch): Promise<void> {
    const events = [...batch.fold.sportEvents.values()].map(({ record, at }) => ({
      item: sportEventView(record),
      seq: at.seq,
    }));
    const markets = [...batch.fold.markets.values()].map(({ record, at }) => ({
      item: marketView(record),
      seq: at.seq,
    }));
    if (events.length === 0 && markets.length === 0) return;

    const writtenEvents = await upsertWritten(batch.tx, SPORT_EVENTS_TABLE, events, ({ item, seq }) => ({
      event_id: item.event_id,
      start_us: item.start,
      status: item.status,
      sport_lc: lower(item.sport),
      competition_lc: lower(item.competition),
      sport_key: sportKey(item.sport),
      seq,
      doc: item,
    }));
    const eventIds = writtenEvents.map(({ item }) => item.event_id);
    for (const { item } of writtenEvents) batch.changes.push({ kind: 'sport_event', doc: renderSportEvent(item) });

    const writtenMarkets = await upsertWritten(batch.tx, MARKETS_TABLE, markets, ({ item, seq }) => ({
      market_id: item.market_id,
      event_id: item.event_id,
      status: item.status,
      trading: item.trading,
      tier: marketTier(item.status, item.trading),
      archived: item.archived_at !== null,
      seq,
      doc: item,
    }));
    const marketIds = writtenMarkets.map(({ item }) => item.market_id);
    for (const id of marketIds) batch.touchedMarkets.add(id);

    // copy event fields onto new markets and onto every market of a changed event
    await batch.tx.query(
      `
      UPDATE core_markets m SET event_start = e.start_us, sport_lc = e.sport_lc, competition_lc = e.competition_lc
      FROM core_sport_events e
      WHERE e.event_id = m.event_id AND (m.market_id = ANY($1::text[]) OR m.event_id = ANY($2::text[]))
        AND (m.event_start, m.sport_lc, m.competition_lc) IS DISTINCT FROM (e.start_us, e.sport_lc, e.competition_lc)`,
      [marketIds, eventIds],
    );
    if (eventIds.length > 0) {
      const ofEvents = await batch.tx.query<{ market_id: string }>(
        'SELECT market_id FROM core_markets WHERE event_id = ANY($1::text[])',
        [eventIds],
      );
      for (const row of ofEvents.rows) batch.touchedMarkets.add(row.market_id);
    }
  },
};
