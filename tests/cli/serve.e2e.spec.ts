// `exchange serve` as a real process on its embedded PostgreSQL: ready, then SIGTERM stops it
// cleanly (exit 0, postgres stopped with it), and a restart reuses the same data.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { livePortOf } from '../../eventstore/postgres/embedded.ts';

const BIN = path.resolve('cli/bin.js');

function startServe(dataDir: string): { child: ChildProcess; port: Promise<number>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      DATA_DIR: dataDir,
      ADMIN_TOKEN: 'shutdown-test-token-0123456789abcdef',
      LOG_LEVEL: 'info',
      DEMO: '0',
      TEST_CLOCK: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const port = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of output.split('\n')) {
        if (!line.includes('"msg":"ready"')) continue;
        resolve(Number(JSON.parse(line).port));
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited (${code}) before ready: ${output.slice(-2000)}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, exited };
}

describe('exchange serve (process)', function () {
  this.timeout(90_000);
  let dataDir: string;
  let running: ChildProcess | undefined;

  before(() => {
    const parent = mkdtempSync(path.join(os.tmpdir(), 'exchange-serve-'));
    chmodSync(parent, 0o755);
    dataDir = path.join(parent, 'data');
  });
  after(() => {
    running?.kill('SIGKILL');
    rmSync(path.dirname(dataDir), { recursive: true, force: true });
  });

  it('starts on embedded PostgreSQL, stops cleanly on SIGTERM, and restarts on the same data', async () => {
    for (let run = 0; run < 2; run += 1) {
      const serve = startServe(dataDir);
      running = serve.child;
      const port = await serve.port;
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).to.equal(200);
      expect(livePortOf(path.join(dataDir, 'postgres'))).to.be.a('number');
      serve.child.kill('SIGTERM');
      expect(await serve.exited).to.equal(0);
      running = undefined;
      expect(livePortOf(path.join(dataDir, 'postgres'))).to.equal(undefined);
      expect(existsSync(path.join(dataDir, 'postgres', 'PG_VERSION'))).to.equal(true);
    }
  });
});
