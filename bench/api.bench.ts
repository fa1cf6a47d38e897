// REST API benchmark: starts the service as a child process (embedded PostgreSQL under a
// temporary DATA_DIR), sets up an account, a market and a read_write API key through the admin
// API, then measures over HTTP:
//   1. signed single POST /api/v1/orders at 50 concurrent connections;
//   2. signed POST /api/v1/orders/batched with 100 orders per batch.
// In the same run, for ratios that mean something on a shared machine: an express 5 hello-world
// (bench/support/hello.mjs, same node flags) driven by the same load generator and connections
// (`express_hello_per_s`, `single_vs_express`); plain 100-row INSERTs into a narrow table on the
// service's own PostgreSQL at the batched concurrency (`raw_insert_rows_per_s`,
// `batched_vs_raw_insert`); and, while the single orders run, the projection lag: a separate
// reader (its own key and connections) times each sampled order from its 200 until
// its history row is readable in PostgreSQL, i.e. GET /api/v1/orders?order_ids={id} (every
// status: a read model read) lists it (`projection_lag_p50_ms`, `projection_lag_p99_ms`).
// Then, on the quiet service, read-your-writes: the member places one order, and as soon as the
// 200 arrives reads it back with GET /api/v1/orders/{id} through another connection (answered
// from the engine's live view); the time of that read, until it answers the order
// (`read_your_write_p50_ms`, `read_your_write_p99_ms`), one pair at a time.
// Prints orders/s and p50/p99 latency, and (on Linux, when the bench starts the service) the CPU
// time per order of the service process and of its PostgreSQL processes, from /proc; the last
// line is one JSON object.
//
// Environment: BENCH_SINGLE_ORDERS (default 20000), BENCH_BATCHES (default 400),
// BENCH_CONCURRENCY (default 50), BENCH_BATCH_CONCURRENCY (default 8), BENCH_URL (use a running
// service instead of starting one; then ADMIN_TOKEN is required), BENCH_PROJECTION_LAG_SAMPLE_EVERY
// (default 40; 0 runs the single orders without the lag reader, whose reads add to the service's
// CPU per order: use it to compare with a build whose bench had no reader),
// BENCH_READ_YOUR_WRITE_SAMPLES (default 2000; 0 skips the read-your-writes pairs),
// BENCH_NODES (default 1; 2 or more starts that many nodes on a standalone PostgreSQL,
// tests/support/cluster.ts, runs everything above against the writer, and after the writer's
// single orders places as many through a follower, whose requests it forwards to the writer: the
// `follower_single_*` figures, beside the writer's of the same run, are the cost of forwarding).

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { embeddedConnectionString, livePortOf } from '../eventstore/postgres/embedded.ts';
import { LoadClient } from './support/loadClient.ts';
import { percentile, round, runPool } from './support/pool.ts';
import { freePort, startNodeFlags, startReference } from './support/childService.ts';
import { startCluster, type ClusterNode } from '../tests/support/cluster.ts';
import { createSigner, type RequestSigner } from '@event-exchange/client';

const SINGLE_ORDERS = Number(process.env.BENCH_SINGLE_ORDERS ?? 20_000);
const BATCHES = Number(process.env.BENCH_BATCHES ?? 400);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
const BATCH_CONCURRENCY = Number(process.env.BENCH_BATCH_CONCURRENCY ?? 8);
const BATCH_SIZE = 100;
const WARMUP_ORDERS = 1_000;
/** The bench's one account holds every order it places (none cross): above warm-up + single + batched. */
const LIVE_ORDERS_ALLOWED = 1_000_000;
/** Per-account request limits for the bench's account (settings `rate_limits`): far above any rate it reaches. */
const BENCH_RATE_LIMIT_PER_SECOND = 1_000_000;
const STARTUP_TIMEOUT_MS = 120_000;
/** The service's warnings the bench prints (on stderr) at most, from its start. */
const SERVICE_WARNINGS_SHOWN_MAX = 20;
const benchStartedAt = performance.now();
const uptimeS = (): string => ((performance.now() - benchStartedAt) / 1000).toFixed(1);
/** Nodes of the service: 1 is the service alone on its embedded PostgreSQL. */
const NODES = Number(process.env.BENCH_NODES ?? 1);

interface Answer {
  status: number;
  body: string;
}

// A lean load generator (bench/support/loadClient.ts): the less CPU the client spends per
// request, the more of this 2-core machine is left to the service and its PostgreSQL.
const clients = new Map<string, LoadClient>();

async function request(
  baseUrl: URL,
  method: string,
  pathWithQuery: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  let client = clients.get(baseUrl.origin);
  if (!client) {
    client = new LoadClient(baseUrl.hostname, Number(baseUrl.port), CONCURRENCY + 8);
    clients.set(baseUrl.origin, client);
  }
  return client.request(
    method,
    pathWithQuery,
    {
      'user-agent': 'api-bench/1',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    body,
  );
}

/** utime + stime (clock ticks) of a process, and stime alone, from /proc/<pid>/stat; 0 when it is gone. */
function processTicks(pid: number): { total: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from the 3rd (state) on
    return { total: Number(fields[11]) + Number(fields[12]), system: Number(fields[12]) };
  } catch {
    return { total: 0, system: 0 };
  }
}

/**
 * CPU ticks of `pid` itself (`own`; `ownSystem` of them in the kernel) and of all its descendants
 * (the embedded PostgreSQL server and backends).
 */
function cpuTicks(pid: number): { own: number; ownSystem: number; descendants: number } {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // the process ended while we looked
    }
  }
  let descendants = 0;
  const pending = [...(children.get(pid) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    descendants += processTicks(next).total;
    pending.push(...(children.get(next) ?? []));
  }
  const own = processTicks(pid);
  return { own: own.total, ownSystem: own.system, descendants };
}

/** With BENCH_NODES: the standalone PostgreSQL's server process (its backends are its descendants). */
let standalonePostgresPid: number | undefined;

/** CPU ticks of the standalone PostgreSQL (0 when the service runs its own, embedded, as its descendant). */
function standalonePostgresTicks(): number {
  if (standalonePostgresPid === undefined) return 0;
  const ticks = cpuTicks(standalonePostgresPid);
  return ticks.own + ticks.descendants;
}

/** The unit of /proc's CPU times (0 when it cannot be read). */
function clockTicksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    return 0;
  }
}

const SETTLE_WINDOW_MS = 500;
/** Busy below this share of one core (service and its PostgreSQL together) counts as settled. */
const SETTLED_CPU_SHARE = 0.1;
const SETTLE_WAIT_MS_MAX = 30_000;

/**
 * Waits until the service and its PostgreSQL use under a tenth of a core over half a second
 * (at most 30 s; nothing to wait for off Linux or with BENCH_URL).
 */
async function serviceSettled(pid: number | undefined): Promise<void> {
  const ticksPerSecond = clockTicksPerSecond();
  if (pid === undefined || !(ticksPerSecond > 0) || process.platform !== 'linux') return;
  const deadline = performance.now() + SETTLE_WAIT_MS_MAX;
  while (performance.now() < deadline) {
    const before = cpuTicks(pid);
    const postgresBefore = standalonePostgresTicks();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_WINDOW_MS));
    const after = cpuTicks(pid);
    const postgresTicks = standalonePostgresTicks() - postgresBefore;
    const busySeconds =
      (after.own - before.own + after.descendants - before.descendants + postgresTicks) / ticksPerSecond;
    if (busySeconds < SETTLED_CPU_SHARE * (SETTLE_WINDOW_MS / 1000)) return;
  }
}

/**
 * Microseconds of CPU per order around `run`: of the service and of its PostgreSQL (null off Linux
 * or with BENCH_URL), and of this load generator itself.
 */
async function measureCpu<T>(
  pid: number | undefined,
  orders: number,
  run: () => Promise<T>,
): Promise<ServiceCpu<T> & { clientUs: number }> {
  const clientBefore = process.cpuUsage();
  const measured = await measureServiceCpu(pid, orders, run);
  const client = process.cpuUsage(clientBefore);
  return { ...measured, clientUs: round((client.user + client.system) / orders, 0) };
}

/** Service CPU per order (µs): all of it, the kernel's part of it (system time), and its PostgreSQL's. */
interface ServiceCpu<T> {
  result: T;
  serviceUs: number | null;
  serviceSystemUs: number | null;
  postgresUs: number | null;
}

async function measureServiceCpu<T>(
  pid: number | undefined,
  orders: number,
  run: () => Promise<T>,
): Promise<ServiceCpu<T>> {
  const ticksPerSecond = pid === undefined ? 0 : clockTicksPerSecond();
  if (pid === undefined || !(ticksPerSecond > 0) || process.platform !== 'linux')
    return { result: await run(), serviceUs: null, serviceSystemUs: null, postgresUs: null };
  const before = cpuTicks(pid);
  const postgresBefore = standalonePostgresTicks();
  const result = await run();
  const after = cpuTicks(pid);
  const postgresTicks = standalonePostgresTicks() - postgresBefore;
  const perOrder = (ticks: number) => round(((ticks / ticksPerSecond) * 1e6) / orders, 0);
  return {
    result,
    serviceUs: perOrder(after.own - before.own),
    serviceSystemUs: perOrder(after.ownSystem - before.ownSystem),
    postgresUs: perOrder(after.descendants - before.descendants + postgresTicks),
  };
}

async function startService(): Promise<{
  baseUrl: URL;
  adminUrl: URL;
  adminToken: string;
  pid: number | undefined;
  stop: () => Promise<void>;
  /** With BENCH_NODES: a follower (the service above is the writer). */
  follower?: ClusterNode;
}> {
  if (NODES > 1) {
    const cluster = await startCluster({ nodes: NODES, durable: true, stderr: 'inherit' });
    try {
      const writer = await cluster.writer();
      const follower = cluster.nodes.find((node) => node !== writer)!;
      benchPostgresUrl = cluster.databaseUrl;
      standalonePostgresPid = Number(
        readFileSync(path.join(cluster.postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
      );
      return {
        baseUrl: writer.baseUrl,
        adminUrl: writer.adminUrl,
        adminToken: cluster.adminToken,
        pid: writer.pid,
        stop: () => cluster.stop(),
        follower,
      };
    } catch (error) {
      await cluster.stop();
      throw error;
    }
  }
  if (process.env.BENCH_URL) {
    const adminToken = process.env.ADMIN_TOKEN;
    if (!adminToken) throw new Error('BENCH_URL needs ADMIN_TOKEN');
    // the operator listener: BENCH_ADMIN_URL, else the service's default on this machine
    return {
      baseUrl: new URL(process.env.BENCH_URL),
      adminUrl: new URL(process.env.BENCH_ADMIN_URL ?? 'http://127.0.0.1:8082'),
      adminToken,
      pid: undefined,
      stop: async () => undefined,
    };
  }
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'exchange-api-bench-'));
  benchDataDir = dataDir;
  chmodSync(dataDir, 0o755); // embedded PostgreSQL runs as the postgres user when we are root
  const port = await freePort();
  const adminPort = await freePort();
  const adminToken = randomBytes(24).toString('hex');
  // BENCH_SERVICE_FLAGS: extra node flags for the service alone (e.g. --cpu-prof --cpu-prof-dir=prof)
  const extraFlags = (process.env.BENCH_SERVICE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.startsWith('--'));
  const child: ChildProcess = spawn(process.execPath, [...startNodeFlags(), ...extraFlags, 'cli/bin.js', 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      WS_PORT: String(await freePort()),
      ADMIN_PORT: String(adminPort),
      DATA_DIR: dataDir,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      DEMO: '0',
      TEST_CLOCK: '0',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let logTail = '';
  // the service logs at warn: every line is a warning or worse, shown as it comes (a figure out of
  // line, such as a projection lag of seconds, then has its cause beside it), the first few only
  let partial = '';
  let shown = 0;
  child.stdout?.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    logTail = (logTail + text).slice(-4_000);
    const lines = (partial + text).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      if (shown < SERVICE_WARNINGS_SHOWN_MAX) console.error(`service (${uptimeS()} s): ${line.slice(0, 1_000)}`);
      else if (shown === SERVICE_WARNINGS_SHOWN_MAX) console.error('service: further warnings not shown');
      shown++;
    }
  });
  const baseUrl = new URL(`http://127.0.0.1:${port}`);
  // SIGTERM first: the service then stops its embedded PostgreSQL (SIGKILL would orphan it).
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 15_000))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${logTail}`);
      const ok = await request(baseUrl, 'GET', '/healthz', {}).then(
        (a) => a.status === 200,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('service did not become healthy');
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, adminUrl: new URL(`http://127.0.0.1:${adminPort}`), adminToken, pid: child.pid, stop };
}

async function admin(
  adminUrl: URL,
  token: string,
  method: string,
  route: string,
  body: unknown,
): Promise<Record<string, any>> {
  const answer = await request(
    adminUrl,
    method,
    `/admin/v1${route}`,
    { authorization: `Bearer ${token}` },
    JSON.stringify(body),
  );
  if (answer.status !== 200) throw new Error(`admin ${method} ${route}: ${answer.status} ${answer.body}`);
  return JSON.parse(answer.body);
}

/** Signs with the client package (node:crypto in Node); the signature of one (ms, method, path) is reused within that ms. */
class Signer {
  private readonly signer: RequestSigner;
  private last = { stamp: '', method: '', path: '', signature: '' };
  constructor(
    readonly keyId: string,
    seedBase64: string,
  ) {
    this.signer = createSigner(keyId, seedBase64);
  }
  headers(method: string, pathWithQuery: string): Record<string, string> {
    const nowMs = Date.now();
    const stamp = String(nowMs);
    if (this.last.stamp !== stamp || this.last.method !== method || this.last.path !== pathWithQuery) {
      const signature = this.signer.headers(method, pathWithQuery, nowMs)['X-SVC-ACCESS-SIGNATURE'];
      this.last = { stamp, method, path: pathWithQuery, signature };
    }
    return {
      'x-svc-access-key': this.keyId,
      'x-svc-access-timestamp': stamp,
      'x-svc-access-signature': this.last.signature,
    };
  }
}

/** Resting orders that never cross: buys at 0.01..0.45, sells at 0.55..0.99. */
function orderBody(marketId: string, i: number): Record<string, unknown> {
  const buy = i % 2 === 0;
  const cents = buy ? 1 + (i % 45) : 55 + (i % 45);
  return {
    action: buy ? 'buy' : 'sell',
    market_id: marketId,
    order_type: 'limit',
    price: (cents / 100).toFixed(2),
    quantity: '1',
    client_order_id: `b${i}`,
  };
}

/** The id of the last order placed in a `POST /orders/batched` answer (`{results: [{order}|{errors}]}`). */
function lastOrderIdOf(body: string): string | undefined {
  const results = (JSON.parse(body) as { results?: Array<{ order?: { id?: string } }> }).results ?? [];
  for (let i = results.length - 1; i >= 0; i--) {
    const id = results[i]?.order?.id;
    if (id) return id;
  }
  return undefined;
}

const CATCH_UP_WAIT_MS_MAX = 120_000;
/** Rounds of the express reference; the median is the reference. */
const EXPRESS_ROUNDS = 3;

/** A read of the order from the read models (every status: the live view does not answer it); lists it once PostgreSQL holds it. */
const historyPathOf = (orderId: string): string => `/api/v1/orders?order_ids=${orderId}`;
const listsOrder = (answer: Answer, orderId: string): boolean =>
  answer.status === 200 && answer.body.includes(`"id":"${orderId}"`);

/**
 * Waits until the read models list the batches' last order: they have then passed every order
 * placed. Until then the service is still projecting, and a reference measured meanwhile would
 * share the machine with that work.
 */
async function readModelsCaughtUp(baseUrl: URL, signer: Signer, orderId: string): Promise<void> {
  const orderPath = historyPathOf(orderId);
  const deadline = performance.now() + CATCH_UP_WAIT_MS_MAX;
  while (performance.now() < deadline) {
    const answer = await request(baseUrl, 'GET', orderPath, signer.headers('GET', orderPath));
    if (listsOrder(answer, orderId)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`the read models did not show order ${orderId} within ${CATCH_UP_WAIT_MS_MAX} ms of the last batch`);
}

/** The service's DATA_DIR when the bench started it (the raw-insert reference uses its PostgreSQL). */
let benchDataDir: string | undefined;
/** With BENCH_NODES: the nodes' standalone PostgreSQL, for the raw-insert reference. */
let benchPostgresUrl: string | undefined;

/** The express hello-world reference (bench/support/hello.mjs) with the service's node flags. */
async function startHello(): Promise<{ baseUrl: URL; stop: () => Promise<void> }> {
  const reference = await startReference('bench/support/hello.mjs');
  return { baseUrl: reference.url, stop: reference.stop };
}

/**
 * Plain 100-row INSERTs into a narrow order-like table on the service's own PostgreSQL (durable
 * settings, as the service runs it), at the batched phase's concurrency: what "one plain row per
 * order" costs on this machine. Null when the service is not the bench's own (BENCH_URL).
 */
async function rawInsertRowsPerS(): Promise<number | null> {
  let connectionString = benchPostgresUrl;
  if (connectionString === undefined) {
    if (!benchDataDir) return null;
    const clusterDir = path.join(benchDataDir, 'postgres');
    const port = livePortOf(clusterDir);
    if (port === undefined) return null;
    connectionString = embeddedConnectionString(clusterDir, port, 'exchange');
  }
  const pool = new pg.Pool({ connectionString, max: BATCH_CONCURRENCY });
  try {
    await pool.query(
      'CREATE TABLE IF NOT EXISTS bench_raw_orders (id uuid PRIMARY KEY, account_id uuid NOT NULL, market_id uuid NOT NULL, side text NOT NULL, price numeric NOT NULL, quantity numeric NOT NULL, created_at timestamptz NOT NULL DEFAULT now())',
    );
    const account = randomUUID();
    const market = randomUUID();
    const insertBatch = async (): Promise<number> => {
      const values: unknown[] = [];
      const rows: string[] = [];
      for (let i = 0; i < BATCH_SIZE; i++) {
        const at = values.length;
        values.push(randomUUID(), account, market, i % 2 === 0 ? 'buy' : 'sell', '0.42', '1');
        rows.push(`($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6})`);
      }
      await pool.query(
        `INSERT INTO bench_raw_orders (id, account_id, market_id, side, price, quantity) VALUES ${rows.join(', ')}`,
        values,
      );
      return 200;
    };
    await runPool(20, BATCH_CONCURRENCY, insertBatch);
    const run = await runPool(BATCHES, BATCH_CONCURRENCY, insertBatch);
    return round((BATCHES * BATCH_SIZE) / (run.elapsedMs / 1000), 0);
  } finally {
    await pool.end();
  }
}

/** Projection lag samples: every PROJECTION_LAG_SAMPLE_EVERY-th order answered 200, read back by a separate reader. */
const PROJECTION_LAG_SAMPLE_EVERY = Number(process.env.BENCH_PROJECTION_LAG_SAMPLE_EVERY ?? 40);
/** Reads in flight at most; a sample that would exceed it is skipped (the reader must not become the load). */
const PROJECTION_LAG_READERS_MAX = 4;
const READ_YOUR_WRITE_SAMPLES = Number(process.env.BENCH_READ_YOUR_WRITE_SAMPLES ?? 2_000);

/**
 * One order placed, then read back through another connection as soon as its 200 arrives; the
 * read's time until it answers the order (a read that does not find it yet is repeated). Sorted.
 */
async function readYourWriteMs(baseUrl: URL, signer: Signer, marketId: string, first: number): Promise<number[]> {
  const reader = new LoadClient(baseUrl.hostname, Number(baseUrl.port), 1);
  const timesMs: number[] = [];
  try {
    for (let i = 0; i < READ_YOUR_WRITE_SAMPLES; i++) {
      const placed = await request(
        baseUrl,
        'POST',
        '/api/v1/orders',
        signer.headers('POST', '/api/v1/orders'),
        JSON.stringify(orderBody(marketId, first + i)),
      );
      if (placed.status !== 200)
        throw new Error(`read-your-writes: POST ${placed.status} ${placed.body.slice(0, 200)}`);
      const orderPath = `/api/v1/orders/${(JSON.parse(placed.body) as { order: { id: string } }).order.id}`;
      const t0 = performance.now();
      for (;;) {
        const answer = await reader.request('GET', orderPath, {
          'user-agent': 'api-bench/1',
          ...signer.headers('GET', orderPath),
        });
        if (answer.status === 200) break;
      }
      timesMs.push(performance.now() - t0);
    }
  } finally {
    reader.close();
  }
  return timesMs.sort((a, b) => a - b);
}

/**
 * BENCH_NODES: SINGLE_ORDERS single orders through `follower` at the same concurrency as the
 * writer's (after a warm-up through it, on a settled service), with the follower's CPU per order,
 * the writer's and PostgreSQL's.
 */
async function followerSingles(
  follower: ClusterNode,
  writerPid: number | undefined,
  nextOrder: () => Record<string, unknown>,
  signer: Signer,
): Promise<ServiceCpu<Awaited<ReturnType<typeof runPool>>> & { writerUs: number | null }> {
  let shown = 0;
  const placeThroughFollower = async (): Promise<number> => {
    const body = JSON.stringify(nextOrder());
    const answer = await request(
      follower.baseUrl,
      'POST',
      '/api/v1/orders',
      signer.headers('POST', '/api/v1/orders'),
      body,
    );
    if (answer.status !== 200 && shown++ < 5) console.error(`follower single: ${answer.status} ${answer.body}`);
    return answer.status;
  };
  await serviceSettled(writerPid);
  await runPool(WARMUP_ORDERS, CONCURRENCY, placeThroughFollower);
  let followerRun: ServiceCpu<Awaited<ReturnType<typeof runPool>>> | undefined;
  const writerRun = await measureServiceCpu(writerPid, SINGLE_ORDERS, async () => {
    followerRun = await measureServiceCpu(follower.pid, SINGLE_ORDERS, () =>
      runPool(SINGLE_ORDERS, CONCURRENCY, placeThroughFollower),
    );
  });
  return { ...followerRun!, writerUs: writerRun.serviceUs };
}

async function main(): Promise<void> {
  const service = await startService();
  try {
    const { baseUrl, adminUrl, adminToken } = service;
    // one account rests every order the bench places: lift the per-account live-order cap above that
    // the per-account request limits raised far above what the bench sends: it measures their check, not their refusals
    await admin(adminUrl, adminToken, 'PATCH', '/settings', {
      max_live_orders_per_account: LIVE_ORDERS_ALLOWED,
      rate_limits: { read_per_second: BENCH_RATE_LIMIT_PER_SECOND, write_per_second: BENCH_RATE_LIMIT_PER_SECOND },
    });
    const { account } = await admin(adminUrl, adminToken, 'POST', '/accounts', {
      first_name: 'Bench',
      last_name: 'Trader',
    });
    await admin(adminUrl, adminToken, 'POST', `/accounts/${account.account_id}/deposits`, { amount: '100000000' });
    const { event } = await admin(adminUrl, adminToken, 'POST', '/events', {
      title: 'Bench event',
      start: new Date(Date.now() + 86_400_000).toISOString(),
      sport: 'soccer',
    });
    const { market } = await admin(adminUrl, adminToken, 'POST', '/markets', {
      event_id: event.event_id,
      title: 'Bench market',
      status: 'open',
    });
    const { api_key: apiKey } = await admin(adminUrl, adminToken, 'POST', `/accounts/${account.account_id}/api_keys`, {
      scope: 'read_write',
    });
    const signer = new Signer(apiKey.key_id, apiKey.private_key);
    const marketId: string = market.market_id;

    // the separate reader of the projection-lag samples: its own key and its own connections
    const { api_key: readerKey } = await admin(
      adminUrl,
      adminToken,
      'POST',
      `/accounts/${account.account_id}/api_keys`,
      { scope: 'read_only' },
    );
    const readerSigner = new Signer(readerKey.key_id, readerKey.private_key);
    const reader = new LoadClient(baseUrl.hostname, Number(baseUrl.port), PROJECTION_LAG_READERS_MAX);
    const lagsMs: number[] = [];
    let readersBusy = 0;
    let sampling = false;
    const readBack = async (orderId: string, answeredAt: number): Promise<void> => {
      readersBusy++;
      try {
        const orderPath = historyPathOf(orderId);
        for (;;) {
          const answer = await reader.request('GET', orderPath, {
            'user-agent': 'api-bench-reader/1',
            ...readerSigner.headers('GET', orderPath),
          });
          if (listsOrder(answer, orderId)) break;
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
        lagsMs.push(performance.now() - answeredAt);
      } finally {
        readersBusy--;
      }
    };

    let sequence = 0;
    let answered = 0;
    const placeOne = async (): Promise<number> => {
      const body = JSON.stringify(orderBody(marketId, sequence++));
      const answer = await request(baseUrl, 'POST', '/api/v1/orders', signer.headers('POST', '/api/v1/orders'), body);
      if (answer.status !== 200 && sequence < 5) console.error(`single: ${answer.status} ${answer.body}`);
      if (
        answer.status === 200 &&
        sampling &&
        PROJECTION_LAG_SAMPLE_EVERY > 0 &&
        ++answered % PROJECTION_LAG_SAMPLE_EVERY === 0 &&
        readersBusy < PROJECTION_LAG_READERS_MAX
      ) {
        void readBack((JSON.parse(answer.body) as { order: { id: string } }).order.id, performance.now());
      }
      return answer.status;
    };
    const placeBatch = async (): Promise<number> => {
      const orders = Array.from({ length: BATCH_SIZE }, () => orderBody(marketId, sequence++));
      const answer = await request(
        baseUrl,
        'POST',
        '/api/v1/orders/batched',
        signer.headers('POST', '/api/v1/orders/batched'),
        JSON.stringify({ orders }),
      );
      if (answer.status !== 200) console.error(`batched: ${answer.status} ${answer.body.slice(0, 200)}`);
      else lastBatchedOrderId = lastOrderIdOf(answer.body) ?? lastBatchedOrderId;
      return answer.status;
    };
    let lastBatchedOrderId: string | undefined;

    await runPool(WARMUP_ORDERS, CONCURRENCY, placeOne);
    sampling = true;
    const singleRun = await measureCpu(service.pid, SINGLE_ORDERS, () => runPool(SINGLE_ORDERS, CONCURRENCY, placeOne));
    sampling = false;
    while (readersBusy > 0) await new Promise((resolve) => setTimeout(resolve, 10));
    reader.close();
    lagsMs.sort((a, b) => a - b);
    const single = singleRun.result;
    // BENCH_NODES: as many single orders again, through a follower (it forwards them to the writer)
    const followerRun = service.follower
      ? await followerSingles(service.follower, service.pid, () => orderBody(marketId, sequence++), signer)
      : undefined;
    await runPool(20, BATCH_CONCURRENCY, placeBatch);
    const batchedRun = await measureCpu(service.pid, BATCHES * BATCH_SIZE, () =>
      runPool(BATCHES, BATCH_CONCURRENCY, placeBatch),
    );
    const batched = batchedRun.result;
    // the references run on a quiet service: its read models first catch up with the batches,
    // then the service and its PostgreSQL (vacuum, checkpoint) settle
    if (lastBatchedOrderId) await readModelsCaughtUp(baseUrl, readerSigner, lastBatchedOrderId);
    await serviceSettled(service.pid);
    const rywMs = READ_YOUR_WRITE_SAMPLES > 0 ? await readYourWriteMs(baseUrl, signer, marketId, sequence) : [];
    sequence += READ_YOUR_WRITE_SAMPLES;
    await serviceSettled(service.pid);
    const rawRowsPerS = await rawInsertRowsPerS();

    // the reference: an express hello-world, same load generator, connections and count, on a
    // quiet machine again (the raw inserts leave PostgreSQL work behind: autovacuum, WAL); the
    // median of EXPRESS_ROUNDS rounds, so one disturbed round does not move the ratio
    await serviceSettled(service.pid);
    const hello = await startHello();
    let expressPerS: number;
    const expressRounds: number[] = [];
    try {
      const helloClient = new LoadClient(hello.baseUrl.hostname, Number(hello.baseUrl.port), CONCURRENCY + 8);
      const helloOne = async () => (await helloClient.request('GET', '/hello', { 'user-agent': 'api-bench/1' })).status;
      await runPool(WARMUP_ORDERS, CONCURRENCY, helloOne);
      for (let i = 0; i < EXPRESS_ROUNDS; i++) {
        const helloRun = await runPool(SINGLE_ORDERS, CONCURRENCY, helloOne);
        expressRounds.push(round(SINGLE_ORDERS / (helloRun.elapsedMs / 1000), 0));
      }
      helloClient.close();
      expressPerS = percentile(
        [...expressRounds].sort((a, b) => a - b),
        50,
      );
    } finally {
      await hello.stop();
    }
    const singlePerS = round(SINGLE_ORDERS / (single.elapsedMs / 1000), 0);
    const batchedPerS = round((BATCHES * BATCH_SIZE) / (batched.elapsedMs / 1000), 0);

    const result = {
      single_orders: SINGLE_ORDERS,
      single_concurrency: CONCURRENCY,
      single_failures: single.failures,
      single_orders_per_s: singlePerS,
      single_p50_ms: round(percentile(single.latenciesMs, 50)),
      single_p99_ms: round(percentile(single.latenciesMs, 99)),
      batches: BATCHES,
      batch_size: BATCH_SIZE,
      batch_concurrency: BATCH_CONCURRENCY,
      batched_failures: batched.failures,
      batched_orders_per_s: batchedPerS,
      batched_p50_ms: round(percentile(batched.latenciesMs, 50)),
      batched_p99_ms: round(percentile(batched.latenciesMs, 99)),
      single_service_cpu_us_per_order: singleRun.serviceUs,
      single_service_system_cpu_us_per_order: singleRun.serviceSystemUs,
      single_postgres_cpu_us_per_order: singleRun.postgresUs,
      batched_service_cpu_us_per_order: batchedRun.serviceUs,
      batched_postgres_cpu_us_per_order: batchedRun.postgresUs,
      single_client_cpu_us_per_order: singleRun.clientUs,
      batched_client_cpu_us_per_order: batchedRun.clientUs,
      express_hello_per_s: expressPerS,
      express_hello_rounds_per_s: expressRounds,
      single_vs_express: round(singlePerS / expressPerS, 3),
      raw_insert_rows_per_s: rawRowsPerS,
      batched_vs_raw_insert: rawRowsPerS === null ? null : round(batchedPerS / rawRowsPerS, 3),
      projection_lag_samples: lagsMs.length,
      projection_lag_p50_ms: lagsMs.length > 0 ? round(percentile(lagsMs, 50)) : null,
      projection_lag_p99_ms: lagsMs.length > 0 ? round(percentile(lagsMs, 99)) : null,
      read_your_write_samples: rywMs.length,
      read_your_write_p50_ms: rywMs.length > 0 ? round(percentile(rywMs, 50), 3) : null,
      read_your_write_p99_ms: rywMs.length > 0 ? round(percentile(rywMs, 99), 3) : null,
      ...(followerRun
        ? {
            nodes: NODES,
            follower_single_orders_per_s: round(SINGLE_ORDERS / (followerRun.result.elapsedMs / 1000), 0),
            follower_single_p50_ms: round(percentile(followerRun.result.latenciesMs, 50)),
            follower_single_p99_ms: round(percentile(followerRun.result.latenciesMs, 99)),
            follower_single_failures: followerRun.result.failures,
            follower_vs_writer_single: round(
              followerRun.result.elapsedMs > 0 ? single.elapsedMs / followerRun.result.elapsedMs : 0,
              3,
            ),
            follower_single_follower_cpu_us_per_order: followerRun.serviceUs,
            follower_single_writer_cpu_us_per_order: followerRun.writerUs,
            follower_single_postgres_cpu_us_per_order: followerRun.postgresUs,
          }
        : {}),
    };
    console.log(
      `single POST /orders: ${result.single_orders_per_s} orders/s, p50 ${result.single_p50_ms} ms, p99 ${result.single_p99_ms} ms (${CONCURRENCY} connections, ${single.failures} non-200)`,
    );
    console.log(
      `POST /orders/batched x${BATCH_SIZE}: ${result.batched_orders_per_s} orders/s, p50 ${result.batched_p50_ms} ms, p99 ${result.batched_p99_ms} ms per batch (${BATCH_CONCURRENCY} connections, ${batched.failures} non-200)`,
    );
    if (singleRun.serviceUs !== null) {
      console.log(
        `CPU per order: single ${result.single_service_cpu_us_per_order} µs service + ${result.single_postgres_cpu_us_per_order} µs PostgreSQL; batched ${result.batched_service_cpu_us_per_order} + ${result.batched_postgres_cpu_us_per_order} µs (load generator: ${result.single_client_cpu_us_per_order} and ${result.batched_client_cpu_us_per_order} µs)`,
      );
    }
    console.log(
      `express hello-world: ${expressPerS} requests/s (single orders at ${result.single_vs_express}x); raw 100-row INSERTs: ${rawRowsPerS ?? 'n/a'} rows/s (batched orders at ${result.batched_vs_raw_insert ?? 'n/a'}x); projection lag p50 ${result.projection_lag_p50_ms} ms, p99 ${result.projection_lag_p99_ms} ms (${lagsMs.length} samples)`,
    );
    console.log(
      `read-your-writes (GET /orders/{id} right after its POST, another connection): p50 ${result.read_your_write_p50_ms} ms, p99 ${result.read_your_write_p99_ms} ms (${rywMs.length} pairs)`,
    );
    if (followerRun) {
      console.log(
        `single POST /orders through a follower (forwarded to the writer): ${result.follower_single_orders_per_s} orders/s, p50 ${result.follower_single_p50_ms} ms, p99 ${result.follower_single_p99_ms} ms (${followerRun.result.failures} non-200), ${result.follower_vs_writer_single}x the writer's ${result.single_orders_per_s}; CPU per order: follower ${result.follower_single_follower_cpu_us_per_order} µs + writer ${result.follower_single_writer_cpu_us_per_order} µs + PostgreSQL ${result.follower_single_postgres_cpu_us_per_order} µs`,
      );
    }
    console.log(JSON.stringify(result));
  } finally {
    for (const client of clients.values()) client.close();
    await service.stop();
  }
}

await main();
