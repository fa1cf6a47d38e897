// PostgreSQL event store (the default adapter).
//
// Ordering: every append transaction first locks the single `event_position` counter row and
// holds it until commit, so transactions take positions in commit order and a reader of
// "position > checkpoint" can never see a later position before an earlier one commits.
// Throughput: appends are group-committed. Callers queue; one writer takes everything waiting
// (bounded) into one transaction, checks each append's expected revision in order against the
// locked state, and resolves or rejects each caller on its own. When every append of a group
// names its revision exactly (the engine's do), the group is first tried as ONE autocommit
// statement (one round trip); it falls back to that transaction whenever it cannot decide alone. If the batch transaction fails
// for an unforeseen reason, each append is retried alone so one bad append fails only itself.
// Subscribers are woken by in-process commits, LISTEN/NOTIFY from other processes, and a poll.

import pg from 'pg';
import {
  DuplicateEventId,
  type AppendResult,
  type BatchHandler,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type ReadStreamOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
} from './port.ts';
import { checkExpectedRevision } from './revision.ts';
import { pollingSubscription } from './subscription.ts';

export const NOTIFY_CHANNEL = 'exchange_events';
/** Bounds of one group-commit transaction. */
const GROUP_APPENDS_MAX = 1000;
const GROUP_EVENTS_MAX = 10_000;
const POLL_INTERVAL_MS = 500;
const LISTEN_RECONNECT_DELAY_MS = 1000;

interface PendingAppend {
  stream: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  dataJson: string[];
  metadataJson: string[];
  resolve(result: AppendResult): void;
  reject(error: unknown): void;
}

interface EventRow {
  position: string;
  stream: string;
  revision: string;
  id: string;
  type: string;
  /** JSON texts (text columns, migration 0003). */
  data: string;
  metadata: string;
  recorded_at: Date;
}

const COLUMNS = 'position, stream, revision, id, type, data, metadata, recorded_at';

function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.id,
    stream: row.stream,
    type: row.type,
    revision: BigInt(row.revision),
    position: BigInt(row.position),
    data: JSON.parse(row.data) as unknown,
    metadata: (JSON.parse(row.metadata) as Record<string, unknown> | null) ?? {},
    recordedAt: row.recorded_at,
  };
}

/** First statement of every append transaction: the lock that orders commits. */
export const LOCK_POSITION_SQL = 'SELECT position FROM event_position FOR UPDATE';

interface StateRow {
  kind: string;
  stream: string;
  revision: string | null;
  id: string | null;
  position: string | null;
}

const textArrayLiteral = (client: pg.PoolClient, values: readonly string[]): string =>
  `ARRAY[${values.map((value) => client.escapeLiteral(value)).join(',')}]::text[]`;

/** The opening of an append transaction: BEGIN, the position lock, then the streams' and ids' state. */
function beginLockAndStateSql(client: pg.PoolClient, streams: readonly string[], ids: readonly string[]): string {
  return `BEGIN; ${LOCK_POSITION_SQL};
  SELECT 'stream' AS kind, s AS stream,
         (SELECT e.revision FROM events e WHERE e.stream = s ORDER BY e.revision DESC LIMIT 1) AS revision,
         NULL::text AS id, NULL::bigint AS position
    FROM unnest(${textArrayLiteral(client, streams)}) AS s
  UNION ALL
  SELECT 'id', stream, revision, id, position FROM events WHERE id = ANY(${textArrayLiteral(client, ids)})`;
}

// The batch travels as a few parameters: the short columns as arrays and the event bodies as ONE
// text each for data and metadata, the bodies' JSON texts (each serialised once, in `append`)
// joined by newlines. JSON.stringify never writes a raw newline (inside strings it is escaped), so
// splitting on it gives the bodies back exactly; ROWS FROM zips the columns by position. node-pg
// would otherwise escape every element of an array parameter on the main thread, and a json
// column would make the server parse every body again; both dominated the cost of large batches.
const INSERT_SQL = `
  WITH inserted AS (
    INSERT INTO events (position, stream, revision, id, type, data, metadata)
    SELECT * FROM ROWS FROM (
      unnest($1::bigint[]), unnest($2::text[]), unnest($3::bigint[]), unnest($4::text[]), unnest($5::text[]),
      string_to_table($6::text, E'\\n'), string_to_table($7::text, E'\\n')
    )
  ), moved AS (
    UPDATE event_position SET position = $8::bigint
  )
  SELECT pg_notify('${NOTIFY_CHANNEL}', $8::text)`;

const UNIQUE_VIOLATION = '23505';

// The one-statement append (see writeGroupInOneStatement): $1/$2 the streams to check and the
// revision each must have now (-1: no stream), $3 the number of rows, $4.. the rows as in
// INSERT_SQL. The counter row's UPDATE takes the lock and the positions; when a check fails it
// updates nothing, so nothing is inserted and no row comes back.
const ONE_STATEMENT_APPEND_SQL = `
  WITH head AS (
    UPDATE event_position SET position = position + $3::bigint
     WHERE NOT EXISTS (
       SELECT 1 FROM unnest($1::text[], $2::bigint[]) AS c(stream, current)
        WHERE coalesce((SELECT e.revision FROM events e WHERE e.stream = c.stream ORDER BY e.revision DESC LIMIT 1), -1) <> c.current)
    RETURNING position - $3::bigint AS head
  ), inserted AS (
    INSERT INTO events (position, stream, revision, id, type, data, metadata)
    SELECT head.head + r.ord, r.stream, r.revision, r.id, r.type, r.data, r.metadata
      FROM head, ROWS FROM (
        unnest($4::text[]), unnest($5::bigint[]), unnest($6::text[]), unnest($7::text[]),
        string_to_table($8::text, E'\\n'), string_to_table($9::text, E'\\n')
      ) WITH ORDINALITY AS r(stream, revision, id, type, data, metadata, ord)
  )
  SELECT head::text AS head, pg_notify('${NOTIFY_CHANNEL}', (head + $3::bigint)::text) FROM head`;

/** The rows of one insert, column by column, as INSERT_SQL and ONE_STATEMENT_APPEND_SQL take them. */
class InsertRows {
  private readonly streams: string[] = [];
  private readonly revisions: string[] = [];
  private readonly ids: string[] = [];
  private readonly types: string[] = [];
  private readonly data: string[] = [];
  private readonly metadata: string[] = [];

  add(append: PendingAppend, event: NewEvent, index: number, revision: bigint): void {
    this.streams.push(append.stream);
    this.revisions.push(String(revision));
    this.ids.push(event.id);
    this.types.push(event.type);
    this.data.push(append.dataJson[index]!);
    this.metadata.push(append.metadataJson[index]!);
  }

  /** streams, revisions, ids, types, then the data and metadata texts joined by newlines. */
  parameters(): [string[], string[], string[], string[], string, string] {
    return [this.streams, this.revisions, this.ids, this.types, this.data.join('\n'), this.metadata.join('\n')];
  }
}

/** Metadata is most often empty: one shared text for it. */
const EMPTY_METADATA_JSON = '{}';

/** JSON text of a value, or an error for what JSON cannot hold (so that append fails alone). */
function jsonText(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new TypeError('event data and metadata must be JSON values');
  return text;
}

export interface PostgresEventStoreOptions {
  pool: pg.Pool;
  /** For the LISTEN connection; without it one pooled connection is held for it. */
  connectionString?: string;
  pollIntervalMs?: number;
}

export class PostgresEventStore implements EventStore {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly pending: PendingAppend[] = [];
  private writing: Promise<void> | undefined;
  private readonly wakeListeners = new Set<() => void>();
  private listener: { release(): Promise<void> } | undefined;
  private listenStarting: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: PostgresEventStoreOptions) {
    this.pool = options.pool;
  }

  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    return new Promise<AppendResult>((resolve, reject) => {
      let dataJson: string[];
      let metadataJson: string[];
      try {
        // Serialised up front so a value JSON cannot hold fails this append alone.
        dataJson = events.map((event) => event.json ?? jsonText(event.data ?? null));
        metadataJson = events.map((event) => (event.metadata == null ? EMPTY_METADATA_JSON : jsonText(event.metadata)));
      } catch (error) {
        reject(error);
        return;
      }
      this.pending.push({ stream, events, expected, dataJson, metadataJson, resolve, reject });
      this.kick();
    });
  }

  /** Starts the writer unless it runs; an append queued while it was finishing restarts it. */
  private kick(): void {
    if (this.writing) return;
    this.writing = this.drain().finally(() => {
      this.writing = undefined;
      if (this.pending.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const group: PendingAppend[] = [];
      let eventCount = 0;
      while (this.pending.length > 0 && group.length < GROUP_APPENDS_MAX) {
        const next = this.pending[0]!;
        if (group.length > 0 && eventCount + next.events.length > GROUP_EVENTS_MAX) break;
        group.push(this.pending.shift()!);
        eventCount += next.events.length;
      }
      try {
        if (!(await this.writeGroupInOneStatement(group))) await this.writeGroup(group);
      } catch (error) {
        if (group.length === 1) {
          group[0]!.reject(error);
        } else {
          for (const append of group) {
            try {
              await this.writeGroup([append]);
            } catch (singleError) {
              append.reject(singleError);
            }
          }
        }
      }
    }
  }

  /**
   * The common case in one round trip: every append of the group names its stream's revision
   * exactly (a number, or `no_stream`) and brings new ids. One autocommit statement then checks
   * each stream's revision, takes the positions from the locked counter row and inserts. It writes
   * nothing and answers false when it cannot decide alone (a revision differs, an id exists, an
   * append is empty, `any`/`stream_exists`): the full transaction below then decides and reports.
   * The statement's reads may predate the counter lock when another process appended meanwhile;
   * the unique (stream, revision) and id constraints then fail the statement, never a wrong write.
   */
  private async writeGroupInOneStatement(group: PendingAppend[]): Promise<boolean> {
    const checkedStreams: string[] = [];
    const checkedRevisions: string[] = [];
    const after = new Map<string, bigint>(); // each stream's revision once the earlier appends are in
    let rowCount = 0;
    for (const append of group) {
      if (append.events.length === 0) return false;
      const { expected, stream } = append;
      const current = expected === 'no_stream' ? -1n : typeof expected === 'bigint' ? expected : undefined;
      if (current === undefined) return false;
      const earlier = after.get(stream);
      if (earlier === undefined) {
        checkedStreams.push(stream);
        checkedRevisions.push(String(current));
      } else if (earlier !== current) {
        return false;
      }
      after.set(stream, current + BigInt(append.events.length));
      rowCount += append.events.length;
    }
    const rows = new InsertRows();
    for (const append of group) {
      const first = (append.expected === 'no_stream' ? -1n : (append.expected as bigint)) + 1n;
      append.events.forEach((event, index) => rows.add(append, event, index, first + BigInt(index)));
    }
    let head: bigint;
    try {
      const result = await this.pool.query<{ head: string }>({
        name: 'es_append_one_statement',
        text: ONE_STATEMENT_APPEND_SQL,
        values: [checkedStreams, checkedRevisions, rowCount, ...rows.parameters()],
      });
      if (result.rows.length === 0) return false; // a revision differs: the full path reports it
      head = BigInt(result.rows[0]!.head);
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) return false; // an id exists, or a concurrent writer
      throw error;
    }
    let position = head;
    for (const append of group) {
      position += BigInt(append.events.length);
      const first = (append.expected === 'no_stream' ? -1n : (append.expected as bigint)) + 1n;
      append.resolve({ nextRevision: first + BigInt(append.events.length) - 1n, position });
    }
    for (const listener of this.wakeListeners) listener();
    return true;
  }

  /** One transaction for the group. Rejections decided by the rules are per append; a thrown error fails the group. */
  private async writeGroup(group: PendingAppend[]): Promise<void> {
    const client = await this.pool.connect();
    const outcomes: Array<{ append: PendingAppend; result?: AppendResult; error?: unknown }> = [];
    try {
      const streams = [...new Set(group.map((append) => append.stream))];
      const ids = group.flatMap((append) => append.events.map((event) => event.id));
      // BEGIN, the lock and the state read travel as one simple query (one round trip instead of
      // three). Each statement of it takes its own snapshot, so the state is read after the lock
      // is held, as with separate queries. Stream names and ids go in as escaped literals.
      const opened = (await client.query(beginLockAndStateSql(client, streams, ids))) as unknown as [
        unknown,
        pg.QueryResult<{ position: string }>,
        pg.QueryResult<StateRow>,
      ];
      let head = BigInt(opened[1].rows[0]!.position);
      const state = opened[2];
      const revisions = new Map<string, bigint | undefined>();
      const known = new Map<string, { stream: string; revision: bigint; position: bigint }>();
      for (const row of state.rows) {
        if (row.kind === 'stream') revisions.set(row.stream, row.revision === null ? undefined : BigInt(row.revision));
        else
          known.set(row.id!, { stream: row.stream, revision: BigInt(row.revision!), position: BigInt(row.position!) });
      }

      const positions: string[] = [];
      const rows = new InsertRows();
      for (const append of group) {
        try {
          outcomes.push({
            append,
            result: this.decide(append, revisions, known, head, (event, index, revision, position) => {
              positions.push(String(position));
              rows.add(append, event, index, revision);
              head = position;
            }),
          });
        } catch (error) {
          outcomes.push({ append, error });
        }
      }
      if (positions.length > 0) {
        await client.query({
          name: 'es_insert',
          text: INSERT_SQL,
          values: [positions, ...rows.parameters(), String(head)],
        });
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      client.release(error as Error); // a connection in an unknown state is discarded, not reused
      throw error;
    }
    client.release();
    for (const outcome of outcomes) {
      if (outcome.error !== undefined) outcome.append.reject(outcome.error);
      else outcome.append.resolve(outcome.result!);
    }
    for (const listener of this.wakeListeners) listener();
  }

  /** Applies the append rules to the locked state; calls `write` for each new event. */
  private decide(
    append: PendingAppend,
    revisions: Map<string, bigint | undefined>,
    known: Map<string, { stream: string; revision: bigint; position: bigint }>,
    head: bigint,
    write: (event: NewEvent, index: number, revision: bigint, position: bigint) => void,
  ): AppendResult {
    const { stream, events, expected } = append;
    const already = events.map((event) => known.get(event.id));
    if (events.length > 0 && already.every((found) => found !== undefined && found.stream === stream)) {
      const last = already[already.length - 1]!;
      return { nextRevision: last.revision, position: last.position };
    }
    const seen = new Set<string>();
    for (const [index, event] of events.entries()) {
      if (already[index] !== undefined || seen.has(event.id)) throw new DuplicateEventId(stream, event.id);
      seen.add(event.id);
    }
    const current = revisions.get(stream);
    checkExpectedRevision(stream, expected, current);
    let revision = current ?? -1n;
    let position = head;
    for (const [index, event] of events.entries()) {
      revision += 1n;
      position += 1n;
      write(event, index, revision, position);
      known.set(event.id, { stream, revision, position });
    }
    if (events.length > 0) revisions.set(stream, revision);
    return { nextRevision: revision, position };
  }

  async readStream(stream: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const direction = options.direction ?? 'forwards';
    const from = options.fromRevision ?? (direction === 'forwards' ? 'start' : 'end');
    const limit = options.maxCount ?? null;
    let result: pg.QueryResult<EventRow>;
    if (direction === 'forwards') {
      if (from === 'end') return [];
      const start = from === 'start' ? 0n : from;
      result = await this.pool.query<EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE stream = $1 AND revision >= $2 ORDER BY revision LIMIT $3`,
        [stream, String(start), limit],
      );
    } else {
      const end = from === 'end' ? null : from === 'start' ? '0' : String(from);
      result = await this.pool.query<EventRow>(
        `SELECT ${COLUMNS} FROM events WHERE stream = $1 AND ($2::bigint IS NULL OR revision <= $2::bigint)
          ORDER BY revision DESC LIMIT $3`,
        [stream, end, limit],
      );
    }
    return result.rows.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const result = await this.pool.query<EventRow>({
      name: 'es_read_all',
      text: `SELECT ${COLUMNS} FROM events WHERE position > $1 ORDER BY position LIMIT $2`,
      values: [String(options.after ?? -1n), options.maxCount ?? null],
    });
    return result.rows.map(toRecorded);
  }

  async headPosition(): Promise<bigint> {
    const result = await this.pool.query<{ position: string }>('SELECT position FROM event_position');
    return BigInt(result.rows[0]?.position ?? '-1');
  }

  subscribeToAll(handler: BatchHandler, options?: SubscribeOptions): Subscription {
    void this.ensureListening();
    return pollingSubscription(
      {
        read: (after, maxCount) => this.readAll({ after, maxCount }),
        onWake: (listener) => {
          this.wakeListeners.add(listener);
          return () => this.wakeListeners.delete(listener);
        },
        pollIntervalMs: this.options.pollIntervalMs ?? POLL_INTERVAL_MS,
      },
      handler,
      options,
    );
  }

  /** LISTEN for commits by other processes; on connection loss reconnect (the poll covers the gap). */
  private ensureListening(): Promise<void> {
    if (this.listener || this.closed) return Promise.resolve();
    this.listenStarting ??= this.listen().finally(() => {
      this.listenStarting = undefined;
    });
    return this.listenStarting;
  }

  private async listen(): Promise<void> {
    const wakeAll = () => {
      for (const listener of this.wakeListeners) listener();
    };
    const reconnect = () => {
      this.listener = undefined;
      if (!this.closed) setTimeout(() => void this.ensureListening(), LISTEN_RECONNECT_DELAY_MS).unref();
    };
    try {
      if (this.options.connectionString) {
        const client = new pg.Client({ connectionString: this.options.connectionString });
        client.on('error', () => undefined);
        client.on('end', reconnect);
        client.on('notification', wakeAll);
        await client.connect();
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
        this.listener = { release: () => client.end() };
      } else {
        const client = await this.pool.connect();
        client.on('error', () => undefined);
        client.on('end', reconnect);
        client.on('notification', wakeAll);
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
        this.listener = {
          release: async () => {
            client.removeListener('end', reconnect);
            client.release(true);
          },
        };
      }
      if (this.closed) await this.listener?.release();
    } catch {
      reconnect();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.writing) await this.writing;
    await this.listenStarting;
    const listener = this.listener;
    this.listener = undefined;
    await listener?.release().catch(() => undefined);
  }
}
