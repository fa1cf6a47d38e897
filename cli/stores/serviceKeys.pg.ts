// Keys the whole installation shares (table service_keys): every node reads the same one.

import type pg from 'pg';

/** The key stored under `name`; when there is none yet, `offer` is stored (the first offer wins). */
export async function sharedServiceKey(pool: pg.Pool, name: string, offer: string): Promise<string> {
  // a node offering at the same moment as another may find neither its row nor the other's in
  // its statement's snapshot: it asks again, and then sees the one kept
  for (let attempt = 1; ; attempt++) {
    const { rows } = await pool.query<{ value: string }>(
      `WITH offered AS (INSERT INTO service_keys (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value)
       SELECT value FROM offered UNION ALL SELECT value FROM service_keys WHERE name = $1`,
      [name, offer],
    );
    const value = rows[0]?.value;
    if (value !== undefined) return value;
    if (attempt >= 3) throw new Error(`service key ${name} could not be read`);
  }
}
