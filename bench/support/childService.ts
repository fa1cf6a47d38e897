// Starts the service as a child process for a benchmark (`npm start`'s node flags, embedded
// PostgreSQL under a temporary DATA_DIR, free ports), waits until /healthz answers, and stops it
// with SIGTERM (the service then stops its PostgreSQL; SIGKILL would orphan it). Its pieces
// (spawnService, untilAnswering, stopProcess) also start the nodes of tests/support/cluster.ts.

import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const STARTUP_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 15_000;

export interface ChildService {
  baseUrl: URL;
  /** The operator listener (/admin/v1, /metrics) on 127.0.0.1. */
  adminUrl: URL;
  wsPort: number;
  adminToken: string;
  pid: number | undefined;
  stop(): Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** The node flags `npm start` gives the service (package.json), so benches run what users run. */
export function startNodeFlags(): string[] {
  const start: string = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start;
  const words = start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('cli/bin.js')).filter((word) => word.startsWith('--'));
}

/** The three listeners of one service process. */
export interface ServicePorts {
  port: number;
  wsPort: number;
  adminPort: number;
}

export async function freePorts(): Promise<ServicePorts> {
  return { port: await freePort(), wsPort: await freePort(), adminPort: await freePort() };
}

/** A service process as spawned: the child, and the tail of what it printed (for error messages). */
export interface SpawnedService {
  child: ChildProcess;
  logTail(): string;
}

/** What one service process is started with; `env` goes over the defaults (e.g. DATABASE_URL). */
export interface ServiceSettings {
  ports: ServicePorts;
  dataDir: string;
  adminToken: string;
  env?: Record<string, string>;
  /** The service's standard error: passed through (the default) or kept with its output's tail. */
  stderr?: 'inherit' | 'pipe';
}

const LOG_TAIL_CHARS = 4_000;

/** Spawns `cli/bin.js serve` with `npm start`'s node flags, its own ports and DATA_DIR. */
export function spawnService(settings: ServiceSettings): SpawnedService {
  // BENCH_SERVICE_FLAGS: extra node flags for the service alone (e.g. --cpu-prof --cpu-prof-dir=prof)
  const extraFlags = (process.env.BENCH_SERVICE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.startsWith('--'));
  const child: ChildProcess = spawn(process.execPath, [...startNodeFlags(), ...extraFlags, 'cli/bin.js', 'serve'], {
    env: {
      ...process.env,
      PORT: String(settings.ports.port),
      WS_PORT: String(settings.ports.wsPort),
      ADMIN_PORT: String(settings.ports.adminPort),
      DATA_DIR: settings.dataDir,
      ADMIN_TOKEN: settings.adminToken,
      LOG_LEVEL: 'warn',
      DEMO: '0',
      TEST_CLOCK: '0',
      ...settings.env,
    },
    stdio: ['ignore', 'pipe', settings.stderr ?? 'inherit'],
  });
  let logTail = '';
  const keep = (chunk: Buffer) => {
    logTail = (logTail + chunk.toString('utf8')).slice(-LOG_TAIL_CHARS);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, logTail: () => logTail };
}

/** Polls `probe` on the service until it answers 200; fails with the output's tail if it exits first. */
export async function untilAnswering(
  baseUrl: URL,
  service: SpawnedService,
  probe = '/healthz',
  timeoutMs = STARTUP_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { child } = service;
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`service exited with ${child.exitCode ?? child.signalCode}:\n${service.logTail()}`);
    const answered = await fetch(new URL(probe, baseUrl)).then(
      (answer) => answer.status === 200,
      () => false,
    );
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`service did not answer ${probe}:\n${service.logTail()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** SIGTERM (the service stops cleanly, its embedded PostgreSQL with it), SIGKILL after STOP_TIMEOUT_MS. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS))]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export async function startChildService(env: Record<string, string> = {}): Promise<ChildService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'exchange-bench-'));
  chmodSync(dataDir, 0o755); // embedded PostgreSQL runs as the postgres user when we are root
  const ports = await freePorts();
  const adminToken = randomBytes(24).toString('hex');
  const service = spawnService({ ports, dataDir, adminToken, env });
  const baseUrl = new URL(`http://127.0.0.1:${ports.port}`);
  const stop = async () => {
    await stopProcess(service.child);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await untilAnswering(baseUrl, service);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    baseUrl,
    adminUrl: new URL(`http://127.0.0.1:${ports.adminPort}`),
    wsPort: ports.wsPort,
    adminToken,
    pid: service.child.pid,
    stop,
  };
}

/**
 * A reference server of a bench (bench/support/*.mjs) as a child process with the service's node
 * flags; it prints its port on its first line of output.
 */
export async function startReference(
  script: string,
  args: string[] = [],
): Promise<{ url: URL; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...startNodeFlags(), script, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString('utf8').trim())));
  });
  return {
    url: new URL(`http://127.0.0.1:${port}`),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS))]);
    },
  };
}
