// The embedded PostgreSQL's superuser password: random per install, kept owner-only beside the
// cluster, never the old fixed one; a cluster made with the fixed one gets a random one at start.
// Local clients reach it over its own Unix-domain socket when the path allows one.

import { expect } from 'chai';
import { chmodSync, mkdtempSync, rmSync, statSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  connectionString,
  embeddedConnectionString,
  EmbeddedPostgresServer,
  passwordFileOf,
  socketDirectoryOf,
  storedPasswordOf,
} from '../../../eventstore/postgres/embedded.ts';
import { freePort } from '../../support/pg.ts';

async function connects(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The server's address as the session sees it: null over a Unix-domain socket. */
async function serverAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ address: string | null }>('SELECT inet_server_addr()::text AS address')).rows[0]!
      .address;
  } finally {
    await client.end();
  }
}

describe('embedded PostgreSQL: password and socket', function () {
  this.timeout(60_000);
  let dir: string;
  let server: EmbeddedPostgresServer | undefined;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'exchange-embedded-pw-'));
    chmodSync(dir, 0o755); // the server runs as the postgres user when we are root
  });
  afterEach(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a new cluster gets a random password in a 0600 file; the old fixed one does not connect', async () => {
    const dataDir = path.join(dir, 'postgres');
    server = new EmbeddedPostgresServer({ dataDir, port: await freePort() });
    await server.start();
    const file = passwordFileOf(dataDir);
    expect(file).to.equal(path.join(dir, 'postgres-password'));
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const password = storedPasswordOf(dataDir)!;
    expect(password).to.have.length.greaterThan(20);
    expect(await connects(server.connectionString('postgres'))).to.equal(true);
    expect(await connects(connectionString(server.options.port, 'postgres', 'password'))).to.equal(false);
  });

  it('a cluster made with the old fixed password is given a random one at its next start', async () => {
    const dataDir = path.join(dir, 'postgres');
    const port = await freePort();
    server = new EmbeddedPostgresServer({ dataDir, port });
    await server.start();
    // turn it into a cluster as an earlier release left it: the fixed password, no password file
    const admin = new pg.Client({ connectionString: server.connectionString('postgres') });
    await admin.connect();
    await admin.query(`ALTER USER postgres PASSWORD 'password'`);
    await admin.end();
    await server.stop();
    unlinkSync(passwordFileOf(dataDir));

    server = new EmbeddedPostgresServer({ dataDir, port });
    await server.start();
    const password = storedPasswordOf(dataDir)!;
    expect(password).to.not.equal('password');
    expect(statSync(passwordFileOf(dataDir)).mode & 0o777).to.equal(0o600);
    expect(await connects(server.connectionString('postgres'))).to.equal(true);
    expect(await connects(connectionString(port, 'postgres', 'password'))).to.equal(false);
  });

  it('local clients reach the cluster over its own Unix-domain socket; TCP on 127.0.0.1 still answers', async () => {
    const dataDir = path.join(dir, 'postgres');
    const port = await freePort();
    server = new EmbeddedPostgresServer({ dataDir, port });
    await server.start();
    expect(socketDirectoryOf(dataDir, port)).to.equal(path.resolve(dataDir));
    expect(await serverAddress(server.connectionString('postgres'))).to.equal(null);
    // a command attaching to the running cluster (e.g. `exchange audit`) takes the socket too
    expect(await serverAddress(embeddedConnectionString(dataDir, port, 'postgres'))).to.equal(null);
    expect(await serverAddress(server.connectionString('postgres', 'tcp'))).to.equal('127.0.0.1/32');
  });

  it('a cluster too deep for a socket address is reached over TCP alone', async () => {
    const deep = path.join(dir, 'd'.repeat(90), 'postgres');
    expect(socketDirectoryOf(deep, 5432)).to.equal(undefined);
    // nor one whose path the server's comma-separated setting would split
    expect(socketDirectoryOf(path.join(dir, 'a,b', 'postgres'), 5432)).to.equal(undefined);
    const port = await freePort();
    server = new EmbeddedPostgresServer({ dataDir: deep, port });
    await server.start();
    expect(await serverAddress(server.connectionString('postgres'))).to.equal('127.0.0.1/32');
    expect(await serverAddress(embeddedConnectionString(deep, port, 'postgres'))).to.equal('127.0.0.1/32');
  });
});
