// The OAuth client registry: secrets only for web and server apps, stored hashed; field rules;
// changes by patch; unknown clients.

import { expect } from 'chai';
import { MemoryEventStore } from '../../../eventstore/memory.ts';
import { changeClient, loadClient, registerClient } from '../../../commands/oauthClients/commands.ts';
import { clientSecretKeyOf, useClientSecretKey, verifyClientSecret } from '../../../commands/oauthClients/client.ts';
import { randomBytes } from 'node:crypto';
import { valueOrThrow } from '../../../commands/result.ts';

const keyed = (store: MemoryEventStore) => {
  useClientSecretKey(store, randomBytes(32));
  return store;
};

const NOW_US = 1_700_000_000_000_000;
/** Registered by the operator at NOW_US. */
const BY_ADMIN = { nowUs: NOW_US, registeredBy: 'admin' } as const;

/** Registers `body` in `store` as the operator; the registration (the test fails on a refusal). */
async function registered(store: MemoryEventStore, body: Record<string, unknown>) {
  return valueOrThrow(await registerClient(store, body, BY_ADMIN));
}

describe('OAuth client registry', () => {
  for (const [appType, confidential] of [
    ['web', true],
    ['server', true],
    ['browser', false],
    ['native', false],
  ] as const) {
    it(`${appType} app ${confidential ? 'gets a secret, stored only as a digest' : 'gets no secret'}`, async () => {
      const store = keyed(new MemoryEventStore());
      const created = await registered(store, {
        name: 'App',
        app_type: appType,
        scopes: ['market_data'],
        redirect_uris: ['https://app.example.com/cb'],
      });
      expect(created.client.confidential).to.equal(confidential);
      const stored = await loadClient(store, created.client.client_id);
      expect(stored).to.not.equal(null);
      if (confidential) {
        expect(created.client_secret).to.be.a('string');
        expect(JSON.stringify((await store.readAll()).map((e) => e.data))).to.not.include(created.client_secret);
        expect(verifyClientSecret(stored!, created.client_secret as string, clientSecretKeyOf(store))).to.equal(true);
        expect(verifyClientSecret(stored!, 'wrong', clientSecretKeyOf(store))).to.equal(false);
      } else {
        expect(created).to.not.have.property('client_secret');
        expect(stored!.secret_hash).to.equal(null);
      }
    });
  }

  const refused: Array<[string, Record<string, unknown>]> = [
    ['a missing name', { app_type: 'web', scopes: ['events'] }],
    ['an unknown app type', { name: 'A', app_type: 'desktop', scopes: ['events'] }],
    ['an unknown scope', { name: 'A', app_type: 'web', scopes: ['admin'] }],
    ['no scopes', { name: 'A', app_type: 'web', scopes: [] }],
    [
      'a plain http callback',
      { name: 'A', app_type: 'web', scopes: ['events'], redirect_uris: ['http://app.example.com/cb'] },
    ],
    [
      'a callback with a fragment',
      { name: 'A', app_type: 'web', scopes: ['events'], redirect_uris: ['https://app.example.com/cb#x'] },
    ],
    ['a bad CIDR', { name: 'A', app_type: 'server', scopes: ['events'], ip_allowlist: ['300.1.1.1/8'] }],
    ['an unknown status', { name: 'A', app_type: 'server', scopes: ['events'], status: 'paused' }],
  ];
  for (const [what, body] of refused) {
    it(`refuses ${what}`, async () => {
      const result = await registerClient(keyed(new MemoryEventStore()), body, BY_ADMIN);
      expect(result.ok ? null : result.refusal.code).to.equal('invalid_input');
    });
  }

  it('accepts loopback http and reverse-domain callbacks for installed apps', async () => {
    const created = await registered(keyed(new MemoryEventStore()), {
      name: 'Desktop',
      app_type: 'native',
      scopes: ['orders.read'],
      redirect_uris: [
        'http://127.0.0.1:53682/cb',
        'http://localhost/cb',
        'http://[::1]:8000/cb',
        'com.example.app:/oauth',
      ],
    });
    expect(created.client.redirect_uris).to.have.length(4);
  });

  it('patches fields, keeps the rest, and mints a secret when a client becomes confidential', async () => {
    const store = keyed(new MemoryEventStore());
    const created = await registered(store, { name: 'SPA', app_type: 'browser', scopes: ['events'] });
    const suspended = valueOrThrow(
      await changeClient(store, created.client.client_id, { status: 'suspended' }, { nowUs: NOW_US + 1 }),
    );
    expect(suspended.client.status).to.equal('suspended');
    expect(suspended.client.name).to.equal('SPA');
    expect(suspended).to.not.have.property('client_secret');
    const web = valueOrThrow(
      await changeClient(store, created.client.client_id, { app_type: 'web' }, { nowUs: NOW_US + 2 }),
    );
    expect(web.client_secret).to.be.a('string');
    expect(
      verifyClientSecret(
        (await loadClient(store, created.client.client_id))!,
        web.client_secret as string,
        clientSecretKeyOf(store),
      ),
    ).to.equal(true);
  });

  it('an unknown client is refused with oauth_client_not_found', async () => {
    const result = await changeClient(
      keyed(new MemoryEventStore()),
      '6f1c1d1e-0000-4000-8000-000000000000',
      { status: 'active' },
      { nowUs: NOW_US },
    );
    expect(result).to.deep.equal({ ok: false, refusal: { code: 'oauth_client_not_found' } });
  });
});

describe('OAuth client secrets as keyed digests', () => {
  it('new secrets are HMAC-SHA-256 under the install key; another key does not verify; old plain SHA-256 digests still do', async () => {
    const store = keyed(new MemoryEventStore());
    const created = await registered(store, { name: 'App', app_type: 'server', scopes: ['market_data'] });
    const stored = (await loadClient(store, created.client.client_id))!;
    expect(stored.secret_hash).to.match(/^hmac-sha256:[A-Za-z0-9_-]{43}$/);
    expect(verifyClientSecret(stored, created.client_secret as string, clientSecretKeyOf(store))).to.equal(true);
    expect(verifyClientSecret(stored, created.client_secret as string, randomBytes(32))).to.equal(false);
    const { createHash } = await import('node:crypto');
    const legacy = { secret_hash: createHash('sha256').update('old-secret').digest('hex') };
    expect(verifyClientSecret(legacy, 'old-secret', clientSecretKeyOf(store))).to.equal(true);
    expect(verifyClientSecret(legacy, 'other', clientSecretKeyOf(store))).to.equal(false);
  });
});
