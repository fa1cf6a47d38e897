// The published package, as a newcomer gets it: `npm pack` in client/, the tarball installed into
// an empty folder, and client/README.md's quick start (the code block itself) run there against a
// service started with DEMO=1: the order is placed, its fills printed, the book followed. The
// README's tour runs the same file from the repository (client/examples/quickstart.mjs).

import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_STREAM } from '../../commands/demo/seed.ts';
import { useService } from './support.ts';
import { run, type Program } from './lines.ts';

const CLIENT_DIR = path.resolve('client');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** The README's quick start: its first ```js block. */
function quickStart(): string {
  const readme = readFileSync(path.join(CLIENT_DIR, 'README.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('client/README.md has no ```js block');
  return block[1]!;
}

describe('client: npm pack installs into an empty folder and runs the quick start', function () {
  this.timeout(300_000);
  let folder: string;
  let program: Program | undefined;
  // registered before the service's hooks, so the program is killed before the service stops
  after(() => {
    program?.child.kill('SIGKILL');
    rmSync(folder, { recursive: true, force: true });
  });
  const suite = useService({ DEMO: '1' });
  before(() => {
    folder = mkdtempSync(path.join(os.tmpdir(), 'exchange-client-pack-'));
  });

  it('the tarball installs with its dependencies alone, and the quick start buys, prints fills and follows the book', async () => {
    const tarball = execFileSync(NPM, ['pack', '--silent', '--pack-destination', folder], {
      cwd: CLIENT_DIR,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .at(-1)!;
    writeFileSync(
      path.join(folder, 'package.json'),
      JSON.stringify({ name: 'quick-start', private: true, type: 'module' }),
    );
    execFileSync(
      NPM,
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', path.join(folder, tarball)],
      { cwd: folder, stdio: 'ignore' },
    );
    expect(
      readFileSync(path.join(CLIENT_DIR, 'examples/quickstart.mjs'), 'utf8'),
      'client/examples/quickstart.mjs is the README quick start',
    ).to.equal(quickStart());
    writeFileSync(path.join(folder, 'quickstart.mjs'), quickStart());

    const seeded = (await suite.service.svc.ctx.store.readStream(DEMO_STREAM)).find(
      (mark) => mark.type === 'DemoSeeded',
    )!.data as { member_account_id: string };
    const admin = suite.service.admin;
    const { api_key: key } = await admin.ok('POST', `/accounts/${seeded.member_account_id}/api_keys`, {
      scope: 'read_write',
    });
    program = run(
      ['quickstart.mjs'],
      {
        EXCHANGE_URL: suite.service.baseUrl,
        EXCHANGE_WS_URL: suite.service.wsUrl,
        KEY_ID: key.key_id,
        PRIVATE_KEY: key.private_key,
      },
      folder,
    );
    const text = async (match: (line: string) => boolean) =>
      (await program!.next((line) => typeof line.text === 'string' && match(line.text))).text as string;
    const placed = await text(() => true);
    expect(placed).to.match(/^(filled|open|accepted|partially_cancelled|cancelled) \d+ /);
    if (placed.startsWith('filled'))
      expect(await text((line) => line.startsWith('fill '))).to.match(/^fill 0\.\d\d \d+ /);
    expect(await text((line) => line.startsWith('snapshot '))).to.match(/^snapshot \d+ best bid \[/);
  });
});
