// The admin token: ADMIN_TOKEN wins; otherwise generated once, stored owner-only, reused.

import { expect } from 'chai';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { adminTokenPath, resolveAdminToken, tokensEqual } from '../../../api/admin/token.ts';

describe('admin token', () => {
  const logged: string[] = [];
  const logger = { info: (_obj: unknown, message?: string) => void logged.push(String(message)) };
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'admin-token-'));
    logged.length = 0;
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('uses ADMIN_TOKEN when set and writes nothing', async () => {
    expect(await resolveAdminToken({ adminToken: 'from-env', dataDir }, logger)).to.equal('from-env');
    expect(() => statSync(adminTokenPath(dataDir))).to.throw();
  });

  it('generates a token at first start, stores it owner-only, says where, and reuses it', async () => {
    const first = await resolveAdminToken({ adminToken: undefined, dataDir }, logger);
    expect(first.length).to.be.greaterThan(30);
    expect(statSync(adminTokenPath(dataDir)).mode & 0o777).to.equal(0o600);
    expect(logged.join('\n')).to.include(adminTokenPath(dataDir));
    const second = await resolveAdminToken({ adminToken: undefined, dataDir }, logger);
    expect(second).to.equal(first);
  });

  it('compares tokens exactly', () => {
    expect(tokensEqual('abc', 'abc')).to.equal(true);
    expect(tokensEqual('abc', 'abd')).to.equal(false);
    expect(tokensEqual('abc', 'abcd')).to.equal(false);
  });
});
