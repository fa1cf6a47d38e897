// The composition root: builds the AppContext from the configuration, starts PostgreSQL (embedded
// under DATA_DIR unless DATABASE_URL is set), migrations, the event store, projections, the
// engine and the HTTP server, and owns the shutdown order: stop accepting, drain requests, stop
// background jobs, flush the engine, stop projections, close the store and pool, stop postgres.

import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import express from 'express';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { resolveAdminToken } from '../api/admin/token.ts';
import { createApi, createMetricsRegistry } from '../api/app.ts';
import { laneServerOptions } from '../api/directLane.ts';
import { createTestClock, systemClock } from '../commands/clock/clock.ts';
import type { AppContext, Config } from '../commands/context.ts';
import { startDemoActivity } from '../commands/demo/activity.ts';
import { DEMO_HINT, seedDemo } from '../commands/demo/seed.ts';
import type { EngineGateway } from '../engine/gateway.ts';
import type { EngineDeps } from '../engine/process.ts';
import type { SnapshotSource } from '../engine/snapshotter.ts';
import { DEFAULT_SETTINGS } from '../commands/settings/settings.ts';
import { loadSettingsStore } from '../commands/settings/store.ts';
import { trustedProxies } from '../commands/auth/origin.ts';
import { createWriteTracker } from '../commands/writeTracker.ts';
import { postgresStores } from './stores/index.ts';
import { createEventStore } from '../eventstore/index.ts';
import type { EventStore } from '../eventstore/port.ts';
import {
  EmbeddedPostgresServer,
  EmbeddedStartRefused,
  embeddedConnectionString,
  livePortOf,
} from '../eventstore/postgres/embedded.ts';
import { migrate } from '../eventstore/postgres/migrate.ts';
import { createPool } from '../eventstore/postgres/pool.ts';
import { startLeaderboardScheduler } from '../projections/member/leaderboard/scheduler.ts';
import { startRealtime, type Realtime } from '../realtime/index.ts';
import { ADMIN_HOST_DEFAULT, ADMIN_PORT_DEFAULT, reachableHost } from './config.ts';
import { demoBannerOut } from './demoBanner.ts';
import { limitConnectionsPerAddress } from './httpLimits.ts';
import { freePortOn } from './ports.ts';
import { cancelOnDisconnectOf, credentialNoticesOf, identityResolverOf } from './realtimeWiring.ts';
import { metadataRouter } from '../oauth/metadata.ts';
import { followSharedState } from './sharedState.ts';
import { readYourWrites, withCredentials } from './credentials.ts';
import { liveViewFor } from '../commands/readYourWrites.ts';
import { ProjectionWorkerHost, type Projections } from './projectionHost.ts';
import { oauthHttpOf, oauthParts } from './oauthWiring.ts';
import { terminalProgress } from './progress.ts';
import { createLogger } from './logger.ts';
import { buildService } from './buildService.ts';
import { startNode, type RunningNode } from './nodes/node.ts';

const EMBEDDED_DATABASE = 'exchange';
/** A client has this long to send a request's headers, and its whole request (slow-loris bounds). */
const HTTP_HEADERS_TIMEOUT_MS = 10_000;
const HTTP_REQUEST_TIMEOUT_MS = 30_000;
/** An idle keep-alive connection is closed after this long. */
const HTTP_KEEP_ALIVE_TIMEOUT_MS = 65_000;
/** Open connections at most; past it new ones are refused at once (file descriptors and memory stay bounded). */
const HTTP_CONNECTIONS_MAX = 10_000;
const HTTP_SERVER_LIMITS: http.ServerOptions = {
  headersTimeout: HTTP_HEADERS_TIMEOUT_MS,
  requestTimeout: HTTP_REQUEST_TIMEOUT_MS,
  maxHeaderSize: 16 * 1024,
};
const DRAIN_TIMEOUT_MS = 10_000;

interface Database {
  pool: pg.Pool;
  connectionString: string;
  /** Closes the pool and, when embedded, stops postgres. */
  close(): Promise<void>;
}

/** DATABASE_URL, or an embedded PostgreSQL under DATA_DIR/postgres (started now, reused across restarts). */
export async function openDatabase(
  config: Config,
  logger: Logger,
  options: { attach?: boolean } = {},
): Promise<Database> {
  if (config.databaseUrl) {
    const pool = createPool({
      connectionString: config.databaseUrl,
      onError: (err) => logger.warn({ err }, 'idle database connection failed'),
    });
    return { pool, connectionString: config.databaseUrl, close: () => pool.end() };
  }
  const dataDir = path.join(config.dataDir, 'postgres');
  // CLI commands attach to the service's running server instead of starting a second one.
  const livePort = options.attach ? livePortOf(dataDir) : undefined;
  let server: EmbeddedPostgresServer | undefined;
  let port = livePort;
  if (port === undefined) {
    port = await freePortOn('127.0.0.1');
    server = new EmbeddedPostgresServer({
      dataDir,
      port,
      onLog: (line) => logger.debug({ postgres: line }, 'postgres'),
    });
    logger.info({ dataDir, port }, 'starting embedded PostgreSQL');
    await server.start();
  }
  const admin = new pg.Client({ connectionString: embeddedConnectionString(dataDir, port, 'postgres') });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [EMBEDDED_DATABASE]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${EMBEDDED_DATABASE}`);
  } finally {
    await admin.end();
  }
  const connectionString = embeddedConnectionString(dataDir, port, EMBEDDED_DATABASE);
  // pool.end() resolves once it has asked its connections to close, not once they have: the
  // server's shutdown then ends the last of them, which is expected, not worth a warning
  let closing = false;
  const pool = createPool({
    connectionString,
    onError: (err) => {
      if (!closing) logger.warn({ err }, 'idle database connection failed');
    },
  });
  return {
    pool,
    connectionString,
    async close() {
      closing = true;
      await pool.end();
      await server?.stop();
    },
  };
}

export async function openEventStore(config: Config, database: Database): Promise<EventStore> {
  if (config.eventstoreUrl) return createEventStore({ kind: 'esdb', url: config.eventstoreUrl });
  return createEventStore({ kind: 'postgres', pool: database.pool, connectionString: database.connectionString });
}

export interface RunningService {
  ctx: AppContext;
  /** The read models' projection runner (in its worker thread). */
  runner: Projections;
  registry: Registry;
  server: http.Server;
  baseUrl: string;
  port: number;
  /** The WebSocket feed (Phoenix Channels at ws://…:wsPort/socket/websocket). */
  realtime: Realtime;
  wsPort: number;
  /** The operator listener's port (/admin/v1, /metrics; on ADMIN_HOST, 127.0.0.1 by default). */
  adminPort: number;
  /** http://host:adminPort as this machine reaches it. */
  adminUrl: string;
  /** This node: its role (writer or follower), journal position, id and writer lease. */
  node: RunningNode;
  stop(): Promise<void>;
}

export interface StartOptions {
  logger?: Logger;
  /** Use this database instead of opening one from the configuration (tests). */
  database?: Database;
  /** Awaited once the port is bound, before anything else starts (tests probe the not-ready state). */
  onListening?: (port: number) => Promise<void> | void;
  /** Where DEMO=1 seeding draws its progress (default standard error; nothing unless it is a terminal). */
  progressStream?: NodeJS.WriteStream;
  /**
   * Where the DEMO=1 banner goes when it is a terminal (default standard output); otherwise to an
   * owner-only file under DATA_DIR (DEMO_BANNER_FILE). Never to the log.
   */
  bannerStream?: NodeJS.WriteStream;
  /** The engine's bounds, where a caller sets them (a test fills the input queue). */
  engine?: Pick<EngineDeps, 'queueInputsMax'>;
  /** Rebuild the leaderboard snapshots on their schedule (default true; off where a test rebuilds them at times it sets). */
  leaderboardScheduler?: boolean;
}

/**
 * The engine as the routes see it: its live view is offered only while the database holding the
 * journal is reachable. A lost connection (an idle one failing) marks it unreachable until a new
 * connection is made: meanwhile the node cannot know its view is current (another writer may
 * hold the journal), so reads go to the read models, which answer 503 while it is down.
 */
function liveWhileConnected(engine: EngineGateway, pool: pg.Pool): EngineGateway {
  let connected = true;
  pool.on('error', () => {
    connected = false;
  });
  pool.on('connect', () => {
    connected = true;
  });
  return {
    submit: (input) => engine.submit(input),
    get live() {
      return connected ? engine.live : undefined;
    },
    ...(engine.sync ? { sync: engine.sync.bind(engine) } : {}),
  };
}

/** Starts the whole service; resolves once it is ready (probes answer 503 until then). */
export async function startService(config: Config, options: StartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const registry = createMetricsRegistry();
  let ready = false;
  let handler: http.RequestListener = bootApp(() => ready);
  const server = http.createServer({ ...laneServerOptions, ...HTTP_SERVER_LIMITS }, (req, res) => handler(req, res));
  server.keepAliveTimeout = HTTP_KEEP_ALIVE_TIMEOUT_MS;
  server.maxConnections = HTTP_CONNECTIONS_MAX;
  // per address too (settings http_limits; the default until the settings are loaded)
  let connectionsPerAddress = () => DEFAULT_SETTINGS.http_limits.connections_per_address;
  limitConnectionsPerAddress(server, () => connectionsPerAddress(), trustedProxies(config.trustedProxies));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  logger.info({ port }, 'listening; starting up');
  await options.onListening?.(port);

  const cleanups: Array<() => Promise<void>> = [];
  const runCleanups = async () => {
    await closeServer(server); // stop accepting and drain first
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch((err: unknown) => logger.error({ err }, 'shutdown step failed'));
    }
  };
  try {
    const database = options.database ?? (await openDatabase(config, logger));
    if (!options.database) cleanups.push(() => database.close());
    const applied = await migrate(database.pool);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    const store = await openEventStore(config, database);
    cleanups.push(() => store.close());
    logger.info({ kind: store.kind }, 'event store open');

    const testClock = config.testClock ? createTestClock() : null;
    const clock = testClock ?? systemClock;
    const writes = createWriteTracker();
    const settings = await loadSettingsStore({ store, logger });
    connectionsPerAddress = () => settings.get().http_limits.connections_per_address;

    const runner = new ProjectionWorkerHost({
      connectionString: database.connectionString,
      eventstoreUrl: config.eventstoreUrl,
      store,
      logger,
      registry,
    });
    await runner.start();
    cleanups.push(() => runner.stop());

    const snapshotSource: SnapshotSource = config.eventstoreUrl
      ? { kind: 'esdb', url: config.eventstoreUrl }
      : { kind: 'postgres', connectionString: database.connectionString };
    config.adminToken = await resolveAdminToken(config, logger);
    // the engine: this node's replica of it, and the writer's pipeline while this node holds the lease
    const engine = await startNode({
      nodeUrl: config.nodeUrl,
      adminToken: config.adminToken,
      pool: database.pool,
      connectionString: database.connectionString,
      store,
      clock,
      logger,
      writes,
      dataDir: config.dataDir,
      snapshotSource,
      registry,
      ...options.engine,
    });
    cleanups.push(() => engine.stop());

    const base: Omit<AppContext, 'credentials'> = {
      config,
      logger,
      clock,
      testClock,
      pool: database.pool,
      store,
      engine: liveWhileConnected(engine, database.pool),
      writes,
      projections: runner,
      settings,
      ...postgresStores(database.pool, clock),
    };
    const oauth = await oauthParts(base);
    const ctx: AppContext = withCredentials(base, [oauth.tokenResolver]);
    const shared = followSharedState(ctx, oauth, database.connectionString);
    cleanups.push(() => shared.stop());
    const oauthHttp = oauthHttpOf(ctx, oauth);
    const api = createApi(ctx, {
      registry,
      isReady: () => ready,
      node: () => ({ role: engine.role(), position: String(engine.position()) }),
      separateAdmin: true,
      routers: [metadataRouter(ctx), oauthHttp.router],
      laneRoutes: oauthHttp.laneRoutes,
    });
    // the operator API and metrics never share the public listener: their own, on loopback by default
    const adminHost = config.adminHost ?? ADMIN_HOST_DEFAULT;
    if (!api.adminApp) throw new Error('the operator app was not built');
    const adminServer = http.createServer(HTTP_SERVER_LIMITS, api.adminApp);
    await new Promise<void>((resolve, reject) => {
      adminServer.once('error', reject);
      adminServer.listen(config.adminPort ?? ADMIN_PORT_DEFAULT, adminHost, () => {
        adminServer.off('error', reject);
        resolve();
      });
    });
    const adminPort = (adminServer.address() as AddressInfo).port;
    cleanups.push(() => closeServer(adminServer));
    logger.info({ adminPort, host: adminHost }, 'operator API and metrics on their own listener');
    handler = (req, res) => {
      if (!api.lane(req, res)) api.app(req, res);
    };

    if (options.leaderboardScheduler ?? true) {
      const leaderboards = startLeaderboardScheduler(ctx);
      cleanups.push(() => leaderboards.stop());
    }
    const realtime = await startRealtime({
      port: config.wsPort,
      logger,
      clock,
      registry,
      db: database.pool,
      changes: runner,
      books: engine.publisher,
      resolver: identityResolverOf(ctx, oauth.deps),
      credentialNotices: credentialNoticesOf(ctx, oauth.deps),
      heartbeatTimeoutMs: () => settings.get().ws_heartbeat_timeout_ms,
      limits: () => settings.get().websocket_limits,
      readYourWrites: async (accountId: string) => {
        await ctx.engine.sync?.();
        await readYourWrites(ctx, accountId);
      },
      liveView: (accountId: string) => liveViewFor(ctx, accountId),
      cancelOnDisconnect: cancelOnDisconnectOf(ctx),
    });
    cleanups.push(() => realtime.stop());

    if (config.demo) {
      const progressStream = options.progressStream ?? process.stderr;
      await seedDemo(ctx, {
        progress: (total) => terminalProgress('seeding demo data', total, 'steps', progressStream),
        out: demoBannerOut(config, logger, options.bannerStream ?? process.stdout),
      });
      const activity = await startDemoActivity(ctx, { baseUrl: `http://127.0.0.1:${port}` });
      cleanups.push(() => activity.stop());
    } else {
      logger.info(DEMO_HINT);
    }

    ready = true;
    logger.info({ port, wsPort: realtime.port, eventStore: store.kind, testClock: config.testClock }, 'ready');
    let stopping: Promise<void> | undefined;
    return {
      ctx,
      runner,
      registry,
      server,
      port,
      baseUrl: `http://127.0.0.1:${port}`,
      realtime,
      wsPort: realtime.port,
      adminPort,
      adminUrl: `http://${reachableHost(adminHost)}:${adminPort}`,
      node: engine,
      stop() {
        stopping ??= (async () => {
          ready = false;
          logger.info('shutting down');
          await runCleanups();
          logger.info('stopped');
        })();
        return stopping;
      },
    };
  } catch (error) {
    await runCleanups();
    throw error;
  }
}

/** What a request to a node still starting is told to wait before it retries, in seconds. */
const STARTING_RETRY_AFTER_S = '1';

/** Until the app is built: probes say "starting", everything else 503. */
function bootApp(isReady: () => boolean): http.RequestListener {
  const app = express();
  app.get('/livez', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use((_req, res) => {
    // a node starting (or started again after a crash) is a gap like a failover's: retry shortly
    res
      .status(503)
      .set('Retry-After', STARTING_RETRY_AFTER_S)
      .json(isReady() ? { status: 'ok' } : { error: 'Service starting' });
  });
  return app;
}

/** Stop accepting, let requests in flight finish (bounded), then close what remains. */
async function closeServer(server: http.Server): Promise<void> {
  if (!server.listening) return;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
  await closed;
  clearTimeout(timer);
}

/** `exchange serve`: start from the environment, stop cleanly on SIGINT/SIGTERM. */
export async function serve(config: Config): Promise<void> {
  const logger = createLogger(config.logLevel);
  let service: RunningService;
  try {
    service = await buildService({ config, logger });
  } catch (error) {
    if (error instanceof EmbeddedStartRefused) {
      // the operator's fix is in the message: one line, no stack
      process.stderr.write(`${error.message}\n`);
    } else {
      logger.fatal({ err: error }, 'start failed');
    }
    process.exitCode = 1;
    return;
  }
  let signalled = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    signalled = true;
    logger.info({ signal }, 'signal received');
    service.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
