// Where the operator reaches the service: the operator API and /metrics are never served on the
// public port; they have a listener of their own, on 127.0.0.1:8082 unless ADMIN_PORT and
// ADMIN_HOST say otherwise. The CLI finds that listener from the same environment (ADMIN_PORT,
// ADMIN_HOST) when EXCHANGE_URL is unset, and with no settings at all.

import { expect } from 'chai';
import { execFile } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ConfigError, defaultServiceUrl, loadConfig } from '../../cli/config.ts';
import { startTestService, type TestService } from '../support/service.ts';

const run = promisify(execFile);
const BIN = path.resolve('cli/bin.js');

async function cliSettings(env: Record<string, string>): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [BIN, 'admin', '--json', 'settings', 'get'], {
    env: { ...process.env, EXCHANGE_URL: '', ADMIN_PORT: '', ADMIN_HOST: '', PORT: '', ...env },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

/** Whether something accepts TCP connections at host:port. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** An address of this machine other than loopback, if it has one. */
function externalAddress(): string | undefined {
  for (const entries of Object.values(os.networkInterfaces())) {
    for (const entry of entries ?? []) if (entry.family === 'IPv4' && !entry.internal) return entry.address;
  }
  return undefined;
}

describe('e2e: operator listener and CLI defaults', function () {
  this.timeout(120_000);

  it('by default the operator listener is 127.0.0.1:8082, and the CLI goes there', () => {
    const config = loadConfig({});
    expect(config.adminPort).to.equal(8082);
    expect(config.adminHost).to.equal('127.0.0.1');
    expect(defaultServiceUrl({}, true)).to.equal('http://127.0.0.1:8082');
    expect(defaultServiceUrl({}, false)).to.equal('http://localhost:8080');
    expect(defaultServiceUrl({ ADMIN_PORT: '9000', ADMIN_HOST: '0.0.0.0' }, true)).to.equal('http://127.0.0.1:9000');
    expect(defaultServiceUrl({ ADMIN_HOST: '10.1.2.3' }, true)).to.equal('http://10.1.2.3:8082');
    expect(() => loadConfig({ ADMIN_HOST: 'everywhere' })).to.throw(ConfigError, /ADMIN_HOST/);
    expect(() => loadConfig({ PORT: '9000', ADMIN_PORT: '9000' })).to.throw(ConfigError, /ADMIN_PORT must differ/);
  });

  describe('the service on its default admin port (8082)', () => {
    let service: TestService;
    before(async function () {
      // the real default: the CLI must find it with no settings at all
      if (await accepts('127.0.0.1', 8082))
        throw new Error('port 8082 is in use on this machine; this test needs the default admin port free');
      service = await startTestService({ env: { ADMIN_PORT: '' } });
    });
    after(async () => service?.stop());

    it('serves /admin/v1 and /metrics on 127.0.0.1:8082 only, never on the public port', async () => {
      expect(service.service.adminPort).to.equal(8082);
      const auth = { authorization: `Bearer ${service.adminToken}` };
      expect((await fetch('http://127.0.0.1:8082/admin/v1/settings', { headers: auth })).status).to.equal(200);
      expect((await fetch('http://127.0.0.1:8082/metrics')).status).to.equal(200);
      const onPublic = await fetch(`${service.baseUrl}/admin/v1/settings`, { headers: auth });
      expect(onPublic.status).to.equal(404);
      expect(await onPublic.json()).to.deep.equal({ error: 'Not found' });
      expect((await fetch(`${service.baseUrl}/metrics`)).status).to.equal(404);
      expect((await fetch(`${service.baseUrl}/healthz`)).status).to.equal(200);
      const external = externalAddress();
      if (external !== undefined)
        expect(await accepts(external, 8082), `8082 must not answer on ${external}`).to.equal(false);
    });

    it('the CLI with no settings at all finds it', async () => {
      const settings = await cliSettings({ ADMIN_TOKEN: service.adminToken });
      expect(settings.settings).to.have.property('batch_limit');
    });
  });

  describe('ADMIN_PORT set', () => {
    let service: TestService;
    before(async () => {
      service = await startTestService({ env: { ADMIN_PORT: '0' } });
    });
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
      const settings = await cliSettings({
        PORT: String(service.service.port),
        ADMIN_PORT: String(service.service.adminPort),
        ADMIN_TOKEN: service.adminToken,
      });
      expect(settings.settings).to.have.property('batch_limit');
    });
  });
});
