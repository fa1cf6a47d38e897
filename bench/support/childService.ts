// Starts the service as a child process for a benchmark (`npm start`'s node flags, embedded
// PostgreSQL under a temporary DATA_DIR, free ports), waits until /healthz answers, and stops it
// with SIGTERM (the service then stops its PostgreSQL; SIGKILL would orphan it).

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

export async function startChildService(env: Record<string, string> = {}): Promise<ChildService> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'exchange-bench-'));
  chmodSync(dataDir, 0o755); // embedded PostgreSQL runs as the postgres user when we are root
  const port = await freePort();
  const wsPort = await freePort();
  const adminPort = await freePort();
  const adminToken = randomBytes(24).toString('hex');
  // BENCH_SERVICE_FLAGS: extra node flags for the service alone (e.g. --cpu-prof --cpu-prof-dir=prof)
  const extraFlags = (process.env.BENCH_SERVICE_FLAGS ?? '').split(/\s+/).filter((flag) => flag.startsWith('--'));
  const child: ChildProcess = spawn(process.execPath, [...startNodeFlags(), ...extraFlags, 'cli/bin.js', 'serve'], {
    env: {
      ...process.env,
      PORT: String(port),
      WS_PORT: String(wsPort),
      ADMIN_PORT: String(adminPort),
      DATA_DIR: dataDir,
      ADMIN_TOKEN: adminToken,
      LOG_LEVEL: 'warn',
      DEMO: '0',
      TEST_CLOCK: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let logTail = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    logTail = (logTail + chunk.toString('utf8')).slice(-4_000);
  });
  const baseUrl = new URL(`http://127.0.0.1:${port}`);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_TIMEOUT_MS))]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${logTail}`);
      const healthy = await fetch(new URL('/healthz', baseUrl)).then(
        (answer) => answer.status === 200,
        () => false,
      );
      if (healthy) break;
      if (Date.now() > deadline) throw new Error('service did not become healthy');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, adminUrl: new URL(`http://127.0.0.1:${adminPort}`), wsPort, adminToken, pid: child.pid, stop };
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
