// Projections with several nodes on one database: the lease that lets one node at a time run
// the projection runner, and the relay through which the other nodes receive what it announces.
//
// The relay row of a projection transaction (its changes and the position it reached) is
// written by the statement that commits that transaction, so a change is relayed if and only if
// its rows were committed: a leaseholder killed between the two cannot lose one, and two runners
// (a frozen leaseholder waking after another took over) cannot relay one twice (the second
// finds the checkpoint past the batch and announces nothing). Readers take the rows in `seq`
// order, which is commit order (the head row's lock is held to commit).

import type pg from 'pg';
import type { ProjectionChange } from '../projector.ts';

/** NOTIFY channel woken by every relay row (its payload is the row's seq). */
export const RELAY_CHANNEL = 'exchange_projection_relay';
/** The lease row's name. */
const LEASE_NAME = 'projections';

type Queryable = Pick<pg.PoolClient, 'query'>;

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** One relay row: the positions a transaction moved projectors to, and the changes it announced. */
export interface RelayEntry {
  seq: bigint;
  writer: string;
  positions: Map<string, bigint>;
  changes: ProjectionChange[];
}

interface RelayBody {
  /** projector name -> position, as decimal text */
  p: Record<string, string>;
  c: ProjectionChange[];
}

/**
 * The SQL (one statement, no trailing semicolon) that writes a relay row and notifies the
 * readers: run inside the projection transaction, before its COMMIT.
 */
export function relayStatement(
  writer: string,
  positions: ReadonlyMap<string, bigint>,
  changes: readonly ProjectionChange[],
): string {
  const body: RelayBody = { p: {}, c: changes as ProjectionChange[] };
  for (const [name, position] of positions) body.p[name] = position.toString();
  return (
    'WITH s AS (INSERT INTO public.projection_relay_head AS h (id, seq) VALUES (true, 1) ' +
    'ON CONFLICT (id) DO UPDATE SET seq = h.seq + 1 RETURNING seq), ' +
    `r AS (INSERT INTO public.projection_relay (seq, writer, body) SELECT seq, ${literal(writer)}, ${literal(JSON.stringify(body))} FROM s RETURNING seq) ` +
    `SELECT pg_notify(${literal(RELAY_CHANNEL)}, seq::text) FROM r`
  );
}

/** The newest relay row's seq (0 when there is none). */
export async function relayHead(db: Queryable): Promise<bigint> {
  const { rows } = await db.query<{ seq: string | null }>('SELECT max(seq)::text AS seq FROM public.projection_relay');
  return BigInt(rows[0]?.seq ?? '0');
}

/** Relay rows after `after`, in seq order (at most `limit`). */
export async function readRelay(db: Queryable, after: bigint, limit: number): Promise<RelayEntry[]> {
  const { rows } = await db.query<{ seq: string; writer: string; body: string }>(
    'SELECT seq::text AS seq, writer, body FROM public.projection_relay WHERE seq > $1 ORDER BY seq LIMIT $2',
    [after.toString(), limit],
  );
  return rows.map((row) => {
    const body = JSON.parse(row.body) as RelayBody;
    const positions = new Map<string, bigint>();
    for (const [name, position] of Object.entries(body.p)) positions.set(name, BigInt(position));
    return { seq: BigInt(row.seq), writer: row.writer, positions, changes: body.c };
  });
}

/** Deletes relay rows older than `retentionMs` (the database's clock). */
export async function trimRelay(db: Queryable, retentionMs: number): Promise<void> {
  await db.query(`DELETE FROM public.projection_relay WHERE created_at < now() - make_interval(secs => $1)`, [
    retentionMs / 1000,
  ]);
}

/**
 * Takes or renews the projection lease for `holder` for `ttlMs` (the database's clock, so the
 * nodes' clocks do not matter): true when `holder` holds it now. The row is taken when it is
 * free, expired, or already `holder`'s. `relaying`: the holder relays (and has for a while): the
 * row says since when, for the readers waiting to start.
 */
export async function takeLease(db: Queryable, holder: string, ttlMs: number, relaying = false): Promise<boolean> {
  const { rows } = await db.query<{ holder: string }>(
    `INSERT INTO public.projection_lease AS l (name, holder, epoch, expires_at, relaying_since)
     VALUES ($1, $2, 1, now() + make_interval(secs => $3), CASE WHEN $4::boolean THEN now() END)
     ON CONFLICT (name) DO UPDATE SET
       epoch = CASE WHEN l.holder = EXCLUDED.holder THEN l.epoch ELSE l.epoch + 1 END,
       relaying_since = CASE WHEN NOT $4::boolean THEN NULL
         WHEN l.holder = EXCLUDED.holder THEN COALESCE(l.relaying_since, now()) ELSE now() END,
       holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
     WHERE l.holder = EXCLUDED.holder OR l.expires_at < now()
     RETURNING holder`,
    [LEASE_NAME, holder, ttlMs / 1000, relaying],
  );
  return rows[0]?.holder === holder;
}

/** Gives the lease up at once (a node stopping cleanly): another node takes it at its next try. */
export async function releaseLease(db: Queryable, holder: string): Promise<void> {
  await db.query(
    "UPDATE public.projection_lease SET expires_at = now() - interval '1 second' WHERE name = $1 AND holder = $2",
    [LEASE_NAME, holder],
  );
}

/** Since when the current, unexpired leaseholder relays (undefined: it does not, or there is none). */
export async function relayingSince(db: Queryable): Promise<Date | undefined> {
  const { rows } = await db.query<{ relaying_since: Date | null }>(
    'SELECT relaying_since FROM public.projection_lease WHERE name = $1 AND expires_at >= now()',
    [LEASE_NAME],
  );
  return rows[0]?.relaying_since ?? undefined;
}

/** `node` reads the relay (said every second by each node without the lease). */
export async function markReader(db: Queryable, node: string): Promise<void> {
  await db.query(
    `INSERT INTO public.projection_relay_readers (node, seen_at) VALUES ($1, now())
     ON CONFLICT (node) DO UPDATE SET seen_at = now()`,
    [node],
  );
}

/** `node` stops reading the relay (a node stopping cleanly). */
export async function forgetReader(db: Queryable, node: string): Promise<void> {
  await db.query('DELETE FROM public.projection_relay_readers WHERE node = $1', [node]);
}

/** Whether a node other than `holder` said it reads the relay within `withinMs` (stale readers are forgotten). */
export async function readersWaiting(db: Queryable, holder: string, withinMs: number): Promise<boolean> {
  const { rows } = await db.query<{ waiting: boolean }>(
    `WITH gone AS (DELETE FROM public.projection_relay_readers WHERE seen_at < now() - interval '1 hour')
     SELECT EXISTS (SELECT 1 FROM public.projection_relay_readers
       WHERE node <> $1 AND seen_at >= now() - make_interval(secs => $2)) AS waiting`,
    [holder, withinMs / 1000],
  );
  return rows[0]?.waiting === true;
}
