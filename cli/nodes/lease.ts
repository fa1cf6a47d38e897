// The writer lease: one row in PostgreSQL (`writer_lease`) naming the node that runs the engine,
// its advertised address, an epoch counting acquisitions, and when the lease ends. The writer
// renews it every LEASE_RENEW_MS; a node may take it only once it has ended (`expires_at` before
// the database's now(): every comparison uses the database's clock, so clocks of different hosts
// never meet). The writer keeps a deadline of its own on its monotonic clock: the renewal's
// start plus LEASE_MS. It decides nothing past that deadline, which falls before the database
// can let another node take the lease (the row's expiry is counted from a later instant, the
// statement's own). The lease has a connection of its own, so a busy pool never delays a renewal.
// Why a row and not an advisory lock: see docs/ARCHITECTURE.md, "Several nodes".

import pg from 'pg';
import type { Logger } from 'pino';

/** How long a lease lasts from its last renewal, in milliseconds (the failover bound's main part). */
export const LEASE_MS = 1_000;
/** The writer renews its lease this often, in milliseconds (several tries fit in one LEASE_MS). */
export const LEASE_RENEW_MS = 200;
/** A node without the lease looks for an ended one this often, in milliseconds (a read while a writer holds it). */
export const LEASE_POLL_MS = 50;
/** A lease statement that has not answered in this long is abandoned (the connection is replaced), in milliseconds. */
const LEASE_STATEMENT_TIMEOUT_MS = 500;

/** The lease as the database holds it. */
export interface WriterLeaseRow {
  nodeId: string;
  url: string;
  epoch: bigint;
  /** Whether it has not ended (on the database's clock). */
  valid: boolean;
}

interface Queryable {
  query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

interface LeaseRowText {
  node_id: string;
  url: string;
  epoch: string;
  valid: boolean;
}

const rowOf = (row: LeaseRowText): WriterLeaseRow => ({
  nodeId: row.node_id,
  url: row.url,
  epoch: BigInt(row.epoch),
  valid: row.valid,
});

/** The current writer lease, if any node ever took one: who holds it, its epoch, and whether it is still valid. */
export async function readWriterLease(db: Queryable): Promise<WriterLeaseRow | undefined> {
  const result = await db.query<LeaseRowText>(
    'SELECT node_id, url, epoch::text AS epoch, expires_at > now() AS valid FROM writer_lease',
  );
  const row = result.rows[0];
  return row ? rowOf(row) : undefined;
}

/** The lease this node holds: its id and epoch (the fencing epoch of everything it journals). */
export interface HeldLease {
  nodeId: string;
  epoch: bigint;
}

export class WriterLease {
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private epoch: bigint | undefined;
  /** performance.now() past which this node must not decide (its lease may have ended). */
  private deadline = 0;

  constructor(
    private readonly connectionString: string,
    readonly nodeId: string,
    readonly url: string,
    private readonly logger: Logger,
    private readonly leaseMs = LEASE_MS,
  ) {}

  /** The lease this node holds and may still decide under, else undefined. */
  held(): HeldLease | undefined {
    if (this.epoch === undefined || performance.now() >= this.deadline) return undefined;
    return { nodeId: this.nodeId, epoch: this.epoch };
  }

  /** How long ago this node's own deadline passed, in milliseconds (0 while it may decide, or holds nothing). */
  overdueMs(): number {
    if (this.epoch === undefined) return 0;
    return Math.max(0, performance.now() - this.deadline);
  }

  /**
   * Takes the lease if it has ended (or was never taken): at most one node succeeds. Answers the
   * lease as it stands after the attempt (ours when taken).
   */
  async tryAcquire(): Promise<WriterLeaseRow | undefined> {
    // a valid lease is only read (a poll writes nothing while a writer holds it)
    const current = await readWriterLease(this);
    if (current?.valid) return current;
    const started = performance.now();
    const result = await this.query<LeaseRowText>(
      `INSERT INTO writer_lease AS l (singleton, node_id, url, epoch, expires_at)
         VALUES (true, $1, $2, 1, now() + $3 * interval '1 millisecond')
       ON CONFLICT (singleton) DO UPDATE
         SET node_id = EXCLUDED.node_id, url = EXCLUDED.url, epoch = l.epoch + 1, expires_at = EXCLUDED.expires_at
         WHERE l.expires_at <= now()
       RETURNING node_id, url, epoch::text AS epoch, true AS valid`,
      [this.nodeId, this.url, this.leaseMs],
    );
    const taken = result.rows[0];
    if (taken) {
      const row = rowOf(taken);
      this.epoch = row.epoch;
      this.deadline = started + this.leaseMs;
      this.logger.info({ node_id: this.nodeId, epoch: String(row.epoch) }, 'writer lease taken');
      return row;
    }
    return readWriterLease(this);
  }

  /**
   * Extends the lease this node holds; false when another node took it since. A lease that ended
   * but that nobody took is still this node's (its epoch unchanged: nobody else decided meanwhile).
   */
  async renew(): Promise<boolean> {
    const epoch = this.epoch;
    if (epoch === undefined) return false;
    const started = performance.now();
    const result = await this.query(
      `UPDATE writer_lease SET expires_at = now() + $3 * interval '1 millisecond'
        WHERE node_id = $1 AND epoch = $2`,
      [this.nodeId, String(epoch), this.leaseMs],
    );
    if (result.rowCount === 1 && this.epoch === epoch) {
      this.deadline = started + this.leaseMs;
      return true;
    }
    this.epoch = undefined;
    return false;
  }

  /** Gives the lease up at once (a follower takes it at its next poll); this node decides nothing after. */
  async release(): Promise<void> {
    const epoch = this.epoch;
    this.epoch = undefined;
    if (epoch === undefined) return;
    await this.query(
      `UPDATE writer_lease SET expires_at = now() - interval '1 millisecond' WHERE node_id = $1 AND epoch = $2`,
      [this.nodeId, String(epoch)],
    );
    this.logger.info({ node_id: this.nodeId, epoch: String(epoch) }, 'writer lease released');
  }

  /** Drops the lease locally without a round trip (the node has stopped deciding). */
  forget(): void {
    this.epoch = undefined;
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.connecting = undefined;
    await client?.end().catch(() => undefined);
  }

  async query<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>> {
    const client = await this.connection();
    try {
      return await client.query<R>({ text, values, query_timeout: LEASE_STATEMENT_TIMEOUT_MS } as pg.QueryConfig);
    } catch (error) {
      // a failed or abandoned statement may leave the connection unusable: the next one opens anew
      if (this.client === client) {
        this.client = undefined;
        this.connecting = undefined;
        void client.end().catch(() => undefined);
      }
      throw error;
    }
  }

  private connection(): Promise<pg.Client> {
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.connectionString,
        application_name: 'exchange-lease',
        connectionTimeoutMillis: LEASE_STATEMENT_TIMEOUT_MS * 4,
      });
      client.on('error', (error) => {
        this.logger.warn({ err: error }, 'writer lease connection failed; reconnecting');
        if (this.client === client) {
          this.client = undefined;
          this.connecting = undefined;
        }
      });
      try {
        await client.connect();
      } catch (error) {
        this.connecting = undefined;
        throw error;
      }
      this.client = client;
      return client;
    })();
    return this.connecting;
  }
}
