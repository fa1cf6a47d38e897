// The sport event catalogue (admin, joins): by id, or listed by start time then event_id.

import type { SportEventView } from '../../../domain/views.ts';
import { renderSportEvent, type SportEventWire } from '../render.ts';
import { cursorParts, limitOf, listFilter, pageFrom, Where, type PageRequest, type Queryable } from './db.ts';

export async function getSportEvent(db: Queryable, eventId: string): Promise<SportEventWire | null> {
  const result = await db.query<{ doc: SportEventView }>('SELECT doc FROM core_sport_events WHERE event_id = $1', [eventId]);
  const row = result.rows[0];
  return row ? renderSportEvent(row.doc) : null;
}

export interface SportEventFilters {
  eventIds?: readonly string[];
  /** Case-insensitive. */
  sports?: readonly string[];
  competitions?: readonly string[];
  status?: 'scheduled' | 'in_progress';
}

export async function listSportEvents(db: Queryable, filters: SportEventFilters = {}, page: PageRequest = {}): Promise<{ cursor: string | null; events: SportEventWire[] }> {
  const limit = limitOf(page);
  const w = new Where();
  const eventIds = listFilter(filters.eventIds);
  if (eventIds) w.and(`event_id = ANY(${w.param(eventIds)}::text[])`);
  const sports = listFilter(filters.sports);
  if (sports) w.and(`sport_lc = ANY(${w.param(sports.map((s) => s.toLowerCase()))}::text[])`);
  const competitions = listFilter(filters.competitions);
  if (competitions) w.and(`competition_lc = ANY(${w.param(competitions.map((s) => s.toLowerCase()))}::text[])`);
  if (filters.status) w.and(`status = ${w.param(filters.status)}`);
  const after = cursorParts(page.cursor, ['int', 'text']);
  if (after) w.and(`(start_us, event_id) > (${w.param(after[0])}::bigint, ${w.param(after[1])}::text)`);
  const result = await db.query<{ doc: SportEventView; key_start: string; key_event: string }>(
    `SELECT doc, start_us::text AS key_start, event_id AS key_event FROM core_sport_events ${w.sql()} ORDER BY start_us, event_id LIMIT ${w.param(limit + 1)}`,
    w.values,
  );
  const { page: rows, cursor } = pageFrom(result.rows, limit, (row) => [row.key_start, row.key_event]);
  return { cursor, events: rows.map((row) => renderSportEvent(row.doc)) };
}
