// The operator CLI (`exchange admin …`) against the whole service, run as a user would: a child
// process per command, --url and --token, table output and --json.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { useTestService } from '../support/service.ts';

const run = promisify(execFile);
const BIN = path.resolve('cli/bin.js');

describe('e2e: the admin CLI', function () {
  this.timeout(180_000);
  const suite = useTestService();

  async function cli(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
    try {
      const { stdout, stderr } = await run(
        process.execPath,
        [BIN, 'admin', '--url', suite.service.adminUrl, '--token', suite.service.adminToken, ...args],
        {
          env: { ...process.env, ADMIN_TOKEN: '', EXCHANGE_URL: '' },
        },
      );
      return { stdout, stderr, code: 0 };
    } catch (err) {
      const failed = err as { stdout: string; stderr: string; code: number };
      return { stdout: failed.stdout, stderr: failed.stderr, code: failed.code };
    }
  }
  const json = async (...args: string[]) => {
    const result = await cli('--json', ...args);
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout) as Record<string, any>;
  };

  it('drives an account, an event and a market through their lifecycle', async () => {
    const { account } = await json(
      'accounts',
      'create',
      '--first-name',
      'Cli',
      '--fee-schedule',
      'fixed_percent',
      '--base-fee-percent',
      '0',
    );
    expect(account).to.include({ first_name: 'Cli', status: 'active', fee_schedule: 'fixed_percent' });
    const deposited = await json('deposit', account.account_id, '12.34');
    expect(deposited.balance).to.include({ account_balance: '12.34', available_balance: '12.34' });
    const key = await json('keys', 'create', account.account_id, '--scope', 'read_only');
    expect(key.api_key).to.include({ scope: 'read_only' });

    const { event } = await json(
      'events',
      'create',
      '--title',
      'Cli v Tests',
      '--start',
      '2031-01-01T18:00:00Z',
      '--sport',
      'cricket',
      '--participant',
      'Cli',
      'Tests',
    );
    expect(event.participants).to.deep.equal(['Cli', 'Tests']);
    const { market } = await json('markets', 'create', '--event', event.event_id, '--title', 'Cli to win');
    expect(market).to.include({ status: 'scheduled', max_price: '1.00', trading: false, halted: false });
    expect((await json('markets', 'open', market.market_id)).market.status).to.equal('open');
    expect((await json('markets', 'halt', market.market_id)).market).to.include({
      status: 'suspended',
      trading: false,
      halted: true,
    });
    expect((await json('markets', 'resume', market.market_id)).market.trading).to.equal(true);
    expect((await json('markets', 'result', market.market_id, 'void')).market).to.include({
      status: 'voided',
      trading: false,
    });
  });

  it('prints a table by default, and errors with the service message and exit code 1', async () => {
    const table = await cli('settings', 'get');
    expect(table.code).to.equal(0);
    expect(table.stdout).to.match(/^batch_limit\s+\d+$/m);
    const set = await json('settings', 'set', 'batch_limit=42', 'leaderboard_enabled=true');
    expect(set.settings.batch_limit).to.equal(42);
    const failed = await cli('deposit', '0b5f2a8e-1111-4222-8333-444455556666', '5.00');
    expect(failed.code).to.equal(1);
    expect(failed.stderr).to.match(/404/);
    const refused = await cli('--token', 'wrong', 'settings', 'get');
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include('401 Unauthorized');
  });

  it('has --help on each command', async () => {
    const help = await cli('markets', 'create', '--help');
    expect(help.code).to.equal(0);
    expect(help.stdout).to.include('--event <event_id>');
  });
});
