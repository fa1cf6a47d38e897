// Where the operator reaches the service: by default everything on PORT; with ADMIN_PORT the
// operator API and /metrics move to a listener of their own on 127.0.0.1, and the public port no
// longer serves them. The CLI finds the service from the same environment (PORT, ADMIN_PORT)
// when EXCHANGE_URL is unset.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startTestService, type TestService } from '../support/service.ts';

const run = promisify(execFile);
const BIN = path.resolve('cli/bin.js');

async function cliSettings(env: Record<string, string>): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [BIN, 'admin', '--json', 'settings', 'get'], {
    env: { ...process.env, EXCHANGE_URL: '', ADMIN_PORT: '', ...env },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe('e2e: operator listener and CLI defaults', function () {
  this.timeout(120_000);

  describe('one port (ADMIN_PORT unset)', () => {
    let service: TestService;
    before(async () => { service = await startTestService(); });
    after(async () => service?.stop());

    it('the CLI with only PORT set talks to http://localhost:$PORT', async () => {
      const settings = await cliSettings({ PORT: String(service.service.port), ADMIN_TOKEN: service.adminToken });
      expect(settings.settings).to.have.property('batch_limit');
    });
  });

  describe('ADMIN_PORT set', () => {
    let service: TestService;
    before(async () => { service = await startTestService({ env: { ADMIN_PORT: '0' } }); });
    after(async () => service?.stop());

    it('serves /admin/v1 and /metrics on 127.0.0.1:ADMIN_PORT only', async () => {
      const adminPort = service.service.adminPort;
      expect(adminPort).to.be.a('number');
      const auth = { authorization: `Bearer ${service.adminToken}` };
      const onAdmin = await fetch(`http://127.0.0.1:${adminPort}/admin/v1/settings`, { headers: auth });
      expect(onAdmin.status).to.equal(200);
      expect((await fetch(`http://127.0.0.1:${adminPort}/metrics`)).status).to.equal(200);
      const onPublic = await fetch(`${service.baseUrl}/admin/v1/settings`, { headers: auth });
      expect(onPublic.status).to.equal(404);
      expect((await fetch(`${service.baseUrl}/metrics`)).status).to.equal(404);
      expect((await fetch(`${service.baseUrl}/healthz`)).status).to.equal(200);
    });

    it('the CLI goes to the operator listener when ADMIN_PORT is set', async () => {
      const settings = await cliSettings({ PORT: String(service.service.port), ADMIN_PORT: String(service.service.adminPort), ADMIN_TOKEN: service.adminToken });
      expect(settings.settings).to.have.property('batch_limit');
    });
  });
});
