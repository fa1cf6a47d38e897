// A DATA_DIR the PostgreSQL server user cannot enter (a root `mktemp -d` is mode 0700) ends the
// start with one clear line naming the directory and the fix, not an initdb stack.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const BIN = path.resolve('cli/bin.js');

describe('e2e: a DATA_DIR the database cannot enter', function () {
  this.timeout(60_000);

  it('stops at start with one line naming the directory and the fix', async function () {
    if (os.userInfo().uid !== 0) this.skip(); // only as root does the server run as another user
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'exchange-0700-')); // mode 0700, owner root
    try {
      let failure: { code: number; stdout: string; stderr: string } | undefined;
      await run(process.execPath, [BIN, 'serve'], {
        env: {
          ...process.env,
          PORT: '0',
          WS_PORT: '0',
          DATA_DIR: dataDir,
          ADMIN_TOKEN: '',
          LOG_LEVEL: 'silent',
          DATABASE_URL: '',
        },
      }).catch((error: { code: number; stdout: string; stderr: string }) => {
        failure = error;
      });
      expect(failure, 'the service should not have started').to.not.equal(undefined);
      expect(failure!.code).to.equal(1);
      const lines = failure!.stderr.trim().split('\n');
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include(dataDir);
      expect(lines[0]).to.include(`chmod o+x ${dataDir}`);
      expect(failure!.stderr).to.not.match(/initdb|\n\s+at /);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
