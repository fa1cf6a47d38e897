// One node of the service: the writer (it holds the writer lease and runs the engine's pipeline)
// or a follower (its engine replica applies the journal as it lands; writes are forwarded to the
// writer). Every node serves the whole API through the EngineGateway this builds: `submit`
// decides locally on the writer and forwards on a follower; `live` and `books` are the node's
// one publisher, which the replica and the writer's pipeline publish through in turn (so the
// feed and the live reads never change source when the role changes); `sync` makes a follower's
// read wait until its replica has passed every write acknowledged before the read.
//
// Roles move with the lease (lease.ts): a follower polls for an ended lease every LEASE_POLL_MS;
// on taking it, it reads the journal to its head (the replica's `finish`) and starts a pipeline
// on that state, gated by the lease (it decides nothing once the lease may have ended). A writer
// renews every LEASE_RENEW_MS; when it loses the lease, or its engine stops (fenced by a newer
// writer's append), it stops deciding, gives the lease up and rejoins as a follower from the
// journal. A lone node takes the lease at its first poll. On stop a writer journals and answers
// what is in flight, releases the lease (a follower takes it at its next poll), then snapshots.
//
// The registry row (`exchange_nodes`) is refreshed every NODE_HEARTBEAT_MS with the role and
// position, for `exchange nodes`; /metrics has exchange_node_role and exchange_replication_lag_records.

import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { Gauge, type Registry } from 'prom-client';
import type { Engine } from '../../domain/engine/engine.ts';
import { accountsNamedBy } from '../../domain/engine/events.ts';
import type { EngineInput } from '../../domain/engine/inputs.ts';
import { ENGINE_STREAM } from '../../domain/engine/journal/journal.ts';
import { EngineStoppedError, type EngineGateway, type EngineReply, type LiveView } from '../../engine/gateway.ts';
import { startEngine, type EngineDeps, type RunningEngine } from '../../engine/process.ts';
import { Publisher } from '../../engine/publisher.ts';
import { recover, type Recovered } from '../../engine/recovery.ts';
import { Replica } from '../../engine/replica.ts';
import { WRITER_LEASE_ENDED } from '../../engine/writerGate.ts';
import { READ_YOUR_WRITES_WAIT_MS } from '../../commands/readYourWrites.ts';
import {
  FORWARDING_REFUSED,
  ForwardingClient,
  NotTheWriter,
  startForwardingServer,
  type ForwardingServer,
} from './forwarding.ts';
import { LEASE_MS, LEASE_POLL_MS, LEASE_RENEW_MS, WriterLease, readWriterLease, type HeldLease } from './lease.ts';

/** Each node refreshes its registry row this often, in milliseconds. */
export const NODE_HEARTBEAT_MS = 1_000;
/** A starting node waits this long, in milliseconds, for a writer (itself or another) before it reports ready anyway. */
export const WRITER_WAIT_AT_START_MS = 3 * LEASE_MS;
/** A follower answers a forwarded write once its replica has passed it, waiting this long at most, in milliseconds. */
export const FORWARDED_WRITE_REPLICA_WAIT_MS = READ_YOUR_WRITES_WAIT_MS;
/** After its replica failed (or could not start), a follower rebuilds it from the journal after this long, in milliseconds. */
export const REPLICA_RESTART_DELAY_MS = 1_000;
/** A node that has just become the writer lets a write wait this long, in milliseconds, for its pipeline to start. */
const BECOMING_WRITER_WAIT_MS = 5_000;

export type NodeRole = 'writer' | 'follower';

/** What a node needs: what its engine needs when it writes, and how to reach the others and the database. */
export interface NodeDeps extends Pick<
  EngineDeps,
  'store' | 'clock' | 'logger' | 'writes' | 'dataDir' | 'snapshotSource'
> {
  /** NODE_URL: the address other nodes forward writes to (default http://127.0.0.1:<free port>). */
  nodeUrl: string | undefined;
  /** The shared ADMIN_TOKEN: the forwarding listener's secret is derived from it. */
  adminToken: string;
  pool: pg.Pool;
  connectionString: string;
  registry?: Registry;
  /** Lease length (tests shorten it); default LEASE_MS. */
  leaseMs?: number;
  /** The writer's engine queue bound (tests shorten it); default ENGINE_QUEUE_INPUTS_MAX. */
  queueInputsMax?: number;
}

export interface RunningNode extends EngineGateway {
  readonly nodeId: string;
  /** The advertised forwarding address. */
  readonly url: string;
  readonly live: LiveView;
  /** The node's publisher: the books' levels for the feed, whichever role publishes. */
  readonly publisher: Publisher;
  role(): NodeRole;
  /** The journal position this node's state has reached (never decreasing). */
  position(): bigint;
  /** Resolves once this node's state has passed every write acknowledged before the call (bounded). */
  sync(): Promise<void>;
  /** The writer lease this node holds (its id and epoch), if it is the writer. */
  heldLease(): HeldLease | undefined;
  /** The engine as this node holds it now (read-only use: tests, diagnostics). */
  engine(): Engine;
  stop(): Promise<void>;
}

interface NodeRow {
  node_id: string;
  url: string;
  role: string;
  position: string;
}

export async function startNode(deps: NodeDeps): Promise<RunningNode> {
  const { store, logger, pool } = deps;
  const nodeId = randomUUID();
  const log = logger.child({ node_id: nodeId });
  const recovered = await recover(store, deps.dataDir);
  let stateOf = () => recovered.engine.state;
  const publisher = new Publisher(
    deps.writes,
    log,
    () => stateOf(),
    recovered.position,
    recovered.places,
    recovered.bookSequence.entries(),
  );

  let role = 'follower' as 'follower' | 'becoming' | 'writer';
  /** Read anew each time (the role changes across awaits). */
  const isWriter = (): boolean => role === 'writer';
  /**
   * The role this node reports (readyz, registry, metrics): the writer only while its own lease
   * deadline holds, so a writer thawed past its lease never says "writer" beside the node that
   * took over, even before its next renewal tells it.
   */
  const reportedRole = (): NodeRole => (role === 'writer' && lease.held() !== undefined ? 'writer' : 'follower');
  let writer: RunningEngine | undefined;
  let replica: Replica | undefined;
  let becoming: Promise<void> | undefined;
  /** The valid writer's forwarding address, as last read from the lease (another node's). */
  let writerUrl: string | undefined;
  let stopping = false;
  let draining = false;
  let reached = recovered.position;
  let lagRecords = 0;
  /** Role changes run one at a time, in order. */
  let transitions: Promise<void> = Promise.resolve();
  const transition = (run: () => Promise<void>): Promise<void> => {
    transitions = transitions.then(run).catch((error: unknown) => log.error({ err: error }, 'node role change failed'));
    return transitions;
  };

  const newReplica = (from: Recovered): Replica => {
    const made = new Replica(from, {
      store,
      logger: log,
      publisher,
      dataDir: deps.dataDir,
      snapshotSource: deps.snapshotSource,
      onFailure: () => {
        setTimeout(() => {
          if (replica === made && !stopping) void transition(restartReplica);
        }, REPLICA_RESTART_DELAY_MS).unref();
      },
    });
    stateOf = () => made.engine.state;
    return made;
  };

  /** A follower's replica anew from the journal (snapshot + tail), published from scratch. */
  const restartReplica = async (): Promise<void> => {
    if (stopping || role !== 'follower') return;
    await replica?.stop(false);
    replica = undefined;
    let from: Recovered;
    try {
      from = await recover(store, deps.dataDir);
    } catch (error) {
      log.error({ err: error }, 'engine replica could not recover from the journal; retrying');
      setTimeout(() => void transition(restartReplica), REPLICA_RESTART_DELAY_MS).unref();
      return;
    }
    const made = newReplica(from);
    publisher.reset(from.position, from.places, from.bookSequence.entries());
    replica = made;
    made.start();
  };

  const promote = async (): Promise<void> => {
    if (stopping || role !== 'follower' || !lease.held()) return;
    role = 'becoming';
    writerUrl = undefined;
    client.writerAt(undefined); // the node that held the lease before holds it no more
    let ready!: () => void;
    becoming = new Promise<void>((resolve) => (ready = resolve));
    try {
      const from = replica;
      replica = undefined;
      const head = from ? await from.finish() : await recover(store, deps.dataDir);
      if (!from) publisher.reset(head.position, head.places, head.bookSequence.entries());
      const engine = await startEngine({
        store,
        clock: deps.clock,
        logger: log,
        writes: deps.writes,
        dataDir: deps.dataDir,
        snapshotSource: deps.snapshotSource,
        recovered: head,
        publisher,
        queueInputsMax: deps.queueInputsMax,
        mayDecide: () => lease.held() !== undefined,
      });
      stateOf = () => engine.engine.state;
      writer = engine;
      role = 'writer';
      const held = lease.held();
      log.info({ epoch: held ? String(held.epoch) : null, position: String(head.position) }, 'this node is the writer');
    } catch (error) {
      log.error({ err: error }, 'taking over as the writer failed; giving the lease up');
      role = 'follower';
      await lease.release().catch(() => lease.forget());
      await restartReplica();
    } finally {
      becoming = undefined;
      ready();
    }
  };

  const demote = async (reason: string): Promise<void> => {
    if (role !== 'writer') return;
    log.warn({ reason }, 'this node stops being the writer; it rejoins as a follower');
    role = 'follower';
    const engine = writer;
    writer = undefined;
    if (engine) {
      engine.halt(reason);
      await engine.stop();
    }
    await lease.release().catch(() => lease.forget());
    await restartReplica();
  };

  /** The writer's own submit (also what the forwarding listener answers with). */
  const submitHere = async (input: EngineInput): Promise<EngineReply> => {
    if (role === 'becoming' && becoming) {
      await Promise.race([becoming, new Promise((resolve) => setTimeout(resolve, BECOMING_WRITER_WAIT_MS).unref())]);
    }
    // a writer whose renewal is late queues the input: its gate decides it once the lease is renewed
    if (draining || role !== 'writer' || !writer) throw new NotTheWriter();
    return writer.submit(input);
  };

  const forward = async (input: EngineInput, again = false): Promise<EngineReply> => {
    let url = writerUrl;
    if (url === undefined) {
      const row = await readWriterLease(pool).catch(() => undefined);
      url = row?.valid && row.nodeId !== nodeId ? row.url : undefined;
      writerUrl = url;
    }
    if (url === undefined) throw new EngineStoppedError('no node is the writer right now (a follower is taking over)');
    let reply: EngineReply;
    try {
      reply = await client.submit(url, input);
    } catch (error) {
      if (error instanceof EngineStoppedError && error.reason === FORWARDING_REFUSED) log.error(FORWARDING_REFUSED);
      if (!(error instanceof NotTheWriter)) throw error;
      writerUrl = undefined;
      if (again) throw new EngineStoppedError('the writer moved to another node');
      return forward(input, true);
    }
    // read-your-writes through this node: answer once the replica holds the write
    const following = replica;
    const applied = following
      ? await following.waitFor(reply.position, FORWARDED_WRITE_REPLICA_WAIT_MS)
      : role === 'writer' && position() >= reply.position;
    if (!applied) {
      const accounts = accountsNamedBy(reply.events);
      if ('account_id' in input) accounts.add(input.account_id);
      for (const accountId of accounts) deps.writes.note(accountId, reply.position);
    }
    return reply;
  };

  /** The position of the journal's last record, read now (from the database, or the event store). */
  const journalHead = async (): Promise<{ position: bigint; revision: bigint }> => {
    if (store.kind === 'postgres') {
      const result = await pool.query<{ position: string; revision: string }>(
        'SELECT position::text AS position, revision::text AS revision FROM events WHERE stream = $1 ORDER BY revision DESC LIMIT 1',
        [ENGINE_STREAM],
      );
      const row = result.rows[0];
      return row
        ? { position: BigInt(row.position), revision: BigInt(row.revision) }
        : { position: -1n, revision: -1n };
    }
    const [last] = await store.readStream(ENGINE_STREAM, { direction: 'backwards', fromRevision: 'end', maxCount: 1 });
    return last ? { position: last.position, revision: last.revision } : { position: -1n, revision: -1n };
  };

  const position = (): bigint => {
    const now = publisher.live.position;
    if (now > reached) reached = now;
    return reached;
  };

  const forwardServer: ForwardingServer = await startForwardingServer({
    ...forwardingAddress(deps.nodeUrl),
    adminToken: deps.adminToken,
    submit: submitHere,
    logger: log,
  });
  const url = deps.nodeUrl ?? `http://127.0.0.1:${forwardServer.port}`;
  const client = new ForwardingClient(deps.adminToken);
  const lease = new WriterLease(deps.connectionString, nodeId, url, log, deps.leaseMs ?? LEASE_MS);

  replica = newReplica(recovered);
  replica.start();

  // the lease: renewed by the writer (and while it takes over), looked for by a follower
  let leaseTimer: NodeJS.Timeout | undefined;
  let leaseTick: Promise<void> = Promise.resolve();
  let leaseFailures = 0;
  const tickLease = async (): Promise<void> => {
    try {
      if (role === 'writer' || role === 'becoming') {
        const renewed = await lease.renew();
        if (!renewed) void transition(() => demote(WRITER_LEASE_ENDED));
        else if (writer?.stopped === undefined) writer?.wake();
        else {
          const why = writer.stopped;
          void transition(() => demote(`the engine stopped: ${why}`));
        }
      } else {
        const row = await lease.tryAcquire();
        if (row && row.nodeId === nodeId && lease.held()) void transition(promote);
        else {
          writerUrl = row?.valid ? row.url : undefined;
          // forwards in flight to a node whose lease ended are refused now (503), not after their timeout
          client.writerAt(writerUrl);
        }
      }
      leaseFailures = 0;
    } catch (error) {
      if (leaseFailures++ % 50 === 0) log.warn({ err: error }, 'writer lease statement failed; retrying');
      // the gate already decides nothing; past another lease length without a renewal, the queued inputs are refused
      if (role === 'writer' && lease.overdueMs() > (deps.leaseMs ?? LEASE_MS))
        void transition(() => demote('the writer lease could not be renewed'));
    }
  };
  const scheduleLease = (): void => {
    if (stopping) return;
    leaseTimer = setTimeout(
      () => {
        leaseTick = tickLease().finally(scheduleLease);
      },
      role === 'follower' ? LEASE_POLL_MS : LEASE_RENEW_MS,
    );
  };
  leaseTick = tickLease().finally(scheduleLease);

  // the registry row and the lag gauge
  const startedAt = new Date();
  const heartbeat = async (): Promise<void> => {
    const row: NodeRow = {
      node_id: nodeId,
      url,
      role: reportedRole(),
      position: String(position()),
    };
    const head = await journalHead();
    const own = role === 'writer' ? head.revision : (replica?.revision ?? -1n);
    lagRecords = Math.max(0, Number(head.revision - own));
    await pool.query(
      `INSERT INTO exchange_nodes (node_id, url, role, position, heartbeat_at, started_at)
       VALUES ($1, $2, $3, $4, now(), $5)
       ON CONFLICT (node_id) DO UPDATE SET url = EXCLUDED.url, role = EXCLUDED.role,
         position = EXCLUDED.position, heartbeat_at = now()`,
      [row.node_id, row.url, row.role, row.position, startedAt],
    );
  };
  let heartbeats = 0;
  const heartbeatTimer = setInterval(() => {
    heartbeat().catch((error: unknown) => {
      if (heartbeats++ % 30 === 0) log.warn({ err: error }, 'node registry heartbeat failed');
    });
  }, NODE_HEARTBEAT_MS);
  heartbeatTimer.unref();

  if (deps.registry) {
    new Gauge({
      name: 'exchange_node_role',
      help: 'This node\'s role: 1 on the series of its role ("writer" or "follower"), 0 on the other',
      labelNames: ['role'],
      registers: [deps.registry],
      collect() {
        const reported = reportedRole();
        this.set({ role: 'writer' }, reported === 'writer' ? 1 : 0);
        this.set({ role: 'follower' }, reported === 'writer' ? 0 : 1);
      },
    });
    new Gauge({
      name: 'exchange_replication_lag_records',
      help: "Journal records this node's state is behind the journal's head (0 on the writer), as of the last heartbeat",
      registers: [deps.registry],
      collect() {
        this.set(role === 'writer' ? 0 : lagRecords);
      },
    });
  }

  // a starting node waits (bounded) until there is a writer: itself (a lone node) or another
  const settled = performance.now() + WRITER_WAIT_AT_START_MS;
  while (role !== 'writer' && writerUrl === undefined && performance.now() < settled) {
    await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS / 2));
    await transitions;
  }
  await transitions;
  await heartbeat().catch((error: unknown) => log.warn({ err: error }, 'node registry heartbeat failed'));

  let stopped: Promise<void> | undefined;
  return {
    nodeId,
    url,
    publisher,
    get live() {
      return publisher.live;
    },
    role: reportedRole,
    position,
    heldLease: () => (role === 'writer' ? lease.held() : undefined),
    engine: () => writer?.engine ?? replica?.engine ?? recovered.engine,
    async submit(input) {
      if (role !== 'follower') {
        try {
          return await submitHere(input);
        } catch (error) {
          if (!(error instanceof NotTheWriter)) throw error;
          if (draining) throw new EngineStoppedError('this node is handing the writer role over; retry shortly');
        }
      }
      return forward(input);
    },
    async sync() {
      if (role === 'writer') return;
      // the database unreachable: the read goes on (the read models answer 503 meanwhile)
      const head = await journalHead().catch((err: unknown) => {
        log.warn(
          { err },
          "read-your-writes: the journal's head could not be read; the read goes on from this node's state",
        );
        return undefined;
      });
      if (!head) return;
      const deadline = performance.now() + READ_YOUR_WRITES_WAIT_MS;
      // a replica being rebuilt, or a node taking the writer role over, has no state to read yet: wait for it (bounded)
      while (!isWriter() && performance.now() < deadline) {
        const following = replica;
        if (following && following.failure === undefined) {
          if (!(await following.waitFor(head.position, deadline - performance.now())))
            log.warn(
              { position: String(head.position), reached: String(following.position) },
              "read-your-writes: this node's replica did not reach the journal's head in time; the read goes on from what it holds",
            );
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, LEASE_POLL_MS / 4));
      }
    },
    stop() {
      stopped ??= (async () => {
        stopping = true;
        clearTimeout(leaseTimer);
        clearInterval(heartbeatTimer);
        await leaseTick;
        await transitions;
        if (becoming) await becoming;
        if (role === 'writer' && writer) {
          // hand over: take nothing new, journal and answer what is in flight, give the lease up, then snapshot
          draining = true;
          await writer.stop({ beforeSnapshot: () => lease.release().catch(() => lease.forget()) });
        } else {
          await lease.release().catch(() => lease.forget());
        }
        await replica?.stop(true);
        await forwardServer.close();
        client.close();
        await pool.query('DELETE FROM exchange_nodes WHERE node_id = $1', [nodeId]).catch(() => undefined);
        await lease.close();
      })();
      return stopped;
    },
  };
}

/** Where the forwarding listener binds: NODE_URL's port on every interface, else a free port on loopback. */
function forwardingAddress(nodeUrl: string | undefined): { host: string; port: number } {
  if (nodeUrl === undefined) return { host: '127.0.0.1', port: 0 };
  const parsed = new URL(nodeUrl);
  return { host: '0.0.0.0', port: parsed.port === '' ? 80 : Number(parsed.port) };
}
