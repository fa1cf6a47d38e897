// The sport event catalogue (admin answers): one event by id.

import type { SportEventView } from '../../../domain/views.ts';
import { renderSportEvent, type SportEventWire } from '../render.ts';
import type { Queryable } from './db.ts';

export async function getSportEvent(db: Queryable, eventId: string): Promise<SportEventWire | null> {
  const result = await db.query<{ doc: SportEventView }>('SELECT doc FROM core_sport_events WHERE event_id = $1', [
    eventId,
  ]);
  const row = result.rows[0];
  return row ? renderSportEvent(row.doc) : null;
}
