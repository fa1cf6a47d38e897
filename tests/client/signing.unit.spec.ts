// One implementation of API-key signing in the repository, in the client: the service's own
// verifier (commands/auth/signedKey.ts, node:crypto) is held to it here. Both of the client's
// signers (node:crypto in Node, @noble/curves in a browser) give the same bytes, and the verifier
// accepts them for every method and path shape, and refuses them when anything signed changes.

import { expect } from 'chai';
import { createPrivateKey } from 'node:crypto';
import { createSigner, generateKeyPair, parsePrivateKey, publicKeyOf, signingString } from '@event-exchange/client';
import { SignedKeyVerifier } from '../../commands/auth/signedKey.ts';
import { parsePublicKey, publicKeyObject } from '../../commands/credentials/ed25519.ts';
import type { ApiKeyEntry } from '../../commands/credentials/index.ts';

const NOW_MS = 1_767_225_600_000;

function verifierFor(keyId: string, publicKeyBase64: string) {
  const entry: ApiKeyEntry = {
    key_id: keyId,
    account_id: 'a1',
    scope: 'read_write',
    public_key: publicKeyBase64,
    keyObject: publicKeyObject(parsePublicKey(publicKeyBase64)),
    revoked_at_us: null,
  };
  const lookup = { keyCached: (id: string) => (id === keyId ? entry : undefined), key: async () => undefined };
  return new SignedKeyVerifier({ nowUs: () => NOW_MS * 1000 }, lookup);
}

const request = (method: string, pathWithQuery: string, headers: Record<string, string>) => ({
  method,
  pathWithQuery,
  header: (name: string) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1],
});

describe('client: signing, held against the service verifier', () => {
  const { privateKey, publicKey } = generateKeyPair();
  const keyId = '6f0d6c1e-1d2b-4c55-9a51-0c2f1c3a9b10';
  const verifier = verifierFor(keyId, publicKey);
  const cases: [string, string][] = [
    ['GET', '/api/v1/orders?status=open&limit=50'],
    ['GET', '/api/v1/markets?market_ids=5f0c,9a1e&sort_by%5Bname%5D=event_start'],
    ['POST', '/api/v1/orders'],
    ['DELETE', '/api/v1/orders/batched'],
    ['PATCH', '/api/v1/me/profile'],
    ['GET', '/socket/websocket?vsn=2.0.0'],
  ];

  it('the signed string is timestamp + METHOD + path with query, as docs/TRADING.md says', () => {
    expect(signingString('1767225600000', 'get', '/api/v1/orders?status=open&limit=50')).to.equal(
      '1767225600000GET/api/v1/orders?status=open&limit=50',
    );
  });

  it('node:crypto and @noble/curves sign identically, and the service verifier accepts both', async () => {
    const fast = createSigner(keyId, privateKey);
    const pure = createSigner(keyId, privateKey, { implementation: 'noble' });
    for (const [method, path] of cases) {
      const headers = fast.headers(method, path, NOW_MS);
      expect(pure.headers(method, path, NOW_MS)).to.deep.equal(headers);
      expect(headers['X-SVC-ACCESS-TIMESTAMP']).to.equal(String(NOW_MS));
      const verified = await verifier.verify(request(method, path, { ...headers }));
      expect(verified?.key_id, `${method} ${path}`).to.equal(keyId);
    }
  });

  it('the verifier refuses a signature when the method, path, query or timestamp changes, or the clock is 30 s away', async () => {
    const headers = { ...createSigner(keyId, privateKey).headers('GET', '/api/v1/orders?limit=5', NOW_MS) };
    expect(await verifier.verify(request('POST', '/api/v1/orders?limit=5', headers))).to.equal(null);
    expect(await verifier.verify(request('GET', '/api/v1/orders?limit=6', headers))).to.equal(null);
    expect(await verifier.verify(request('GET', '/api/v1/orders', headers))).to.equal(null);
    expect(
      await verifier.verify(
        request('GET', '/api/v1/orders?limit=5', { ...headers, 'X-SVC-ACCESS-TIMESTAMP': String(NOW_MS + 1) }),
      ),
    ).to.equal(null);
    const stale = { ...createSigner(keyId, privateKey).headers('GET', '/api/v1/orders?limit=5', NOW_MS - 30_001) };
    expect(await verifier.verify(request('GET', '/api/v1/orders?limit=5', stale))).to.equal(null);
    const other = generateKeyPair();
    const forged = { ...createSigner(keyId, other.privateKey).headers('GET', '/api/v1/orders?limit=5', NOW_MS) };
    expect(await verifier.verify(request('GET', '/api/v1/orders?limit=5', forged))).to.equal(null);
  });

  it('a PKCS#8 PEM and the base64 seed are the same key; anything else is refused with what to give', () => {
    const der = Buffer.concat([
      Buffer.from('302e020100300506032b657004220420', 'hex'),
      Buffer.from(privateKey, 'base64'),
    ]);
    const pem = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })
      .export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(Buffer.from(parsePrivateKey(pem)).toString('base64')).to.equal(privateKey);
    expect(publicKeyOf(pem)).to.equal(publicKey);
    expect(() => parsePrivateKey('c2hvcnQ=')).to.throw(
      TypeError,
      'private key must be the base64 of a 32-byte Ed25519 seed, or a PKCS#8 PEM',
    );
  });
});
