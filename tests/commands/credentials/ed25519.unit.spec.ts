// The request path verifies Ed25519 with node:crypto (OpenSSL); keys and client signatures are
// made with @noble/curves. This holds both verifiers to the same verdict on a corpus of valid,
// tampered and non-canonical signatures.
//
// Documented differences:
// - @noble/curves' default mode is ZIP-215, which accepts a non-canonical encoding of R (e.g.
//   y = p + 1 for the identity); OpenSSL and noble's RFC 8032 mode (`zip215: false`, the
//   reference used here) refuse it.
// - Under a small-order public key (e.g. the identity), OpenSSL and noble's ZIP-215 mode accept
//   the forged signature (R = identity, S = 0) for any message; noble's RFC 8032 mode refuses
//   it. Such keys are refused at registration (tested below), so the request path never meets
//   one and the verdicts on registered keys are the same.

import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  generateKeyPair,
  parsePublicKey,
  publicKeyObject,
  verifyWithNode,
  verifyWithNoble,
} from '../../../commands/credentials/ed25519.ts';
import { DomainError } from '../../../domain/errors.ts';

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const P = 2n ** 255n - 19n;

const toLE = (value: bigint, length = 32): Uint8Array => {
  const out = new Uint8Array(length);
  let v = value;
  for (let i = 0; i < length; i++) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
};
const fromLE = (bytes: Uint8Array): bigint => bytes.reduceRight((acc, b) => (acc << 8n) | BigInt(b), 0n);
const concat = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts.map((p) => Buffer.from(p))));
const utf8 = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

interface Case {
  name: string;
  publicKey: Uint8Array;
  message: Uint8Array;
  signature: Uint8Array;
  expected: boolean;
}

/** A signature with a chosen R encoding and nonce r = 0 (R = identity), valid for the key. */
function identityNonceSignature(
  seed: Uint8Array,
  publicKey: Uint8Array,
  message: Uint8Array,
  rBytes: Uint8Array,
): Uint8Array {
  const { scalar } = ed25519.utils.getExtendedPublicKey(seed);
  const k =
    fromLE(
      new Uint8Array(
        createHash('sha512')
          .update(concat(rBytes, publicKey, message))
          .digest(),
      ),
    ) % L;
  return concat(rBytes, toLE((k * scalar) % L));
}

function corpus(): Case[] {
  const cases: Case[] = [];
  for (let i = 0; i < 16; i++) {
    const { seed, publicKey } = generateKeyPair();
    const message = utf8(`${1_700_000_000_000 + i}POST/api/v1/orders?i=${i}`);
    const signature = ed25519.sign(message, seed);
    cases.push({ name: `valid #${i}`, publicKey, message, signature, expected: true });

    const flippedMessage = message.slice();
    flippedMessage[i % message.length]! ^= 0x01;
    cases.push({ name: `tampered message #${i}`, publicKey, message: flippedMessage, signature, expected: false });
    const flippedR = signature.slice();
    flippedR[i]! ^= 0x80;
    cases.push({ name: `tampered R #${i}`, publicKey, message, signature: flippedR, expected: false });
    const flippedS = signature.slice();
    flippedS[32 + i]! ^= 0x01;
    cases.push({ name: `tampered S #${i}`, publicKey, message, signature: flippedS, expected: false });

    // S + L: the same scalar, non-canonically encoded (must be refused: S >= L).
    const s = fromLE(signature.slice(32));
    cases.push({
      name: `non-canonical S (S + L) #${i}`,
      publicKey,
      message,
      signature: concat(signature.slice(0, 32), toLE(s + L)),
      expected: false,
    });
    cases.push({
      name: `S with the top bit set #${i}`,
      publicKey,
      message,
      signature: concat(signature.slice(0, 32), toLE(s | (1n << 255n))),
      expected: false,
    });

    // R = identity, canonical encoding (y = 1): a valid signature.
    const canonicalIdentity = toLE(1n);
    cases.push({
      name: `R = identity, canonical #${i}`,
      publicKey,
      message,
      signature: identityNonceSignature(seed, publicKey, message, canonicalIdentity),
      expected: true,
    });
    // R = identity encoded as y = p + 1 (non-canonical): refused by OpenSSL and RFC 8032.
    const nonCanonicalIdentity = toLE(P + 1n);
    cases.push({
      name: `R = identity, non-canonical y = p + 1 #${i}`,
      publicKey,
      message,
      signature: identityNonceSignature(seed, publicKey, message, nonCanonicalIdentity),
      expected: false,
    });

    cases.push({
      name: `short signature #${i}`,
      publicKey,
      message,
      signature: signature.slice(0, 63),
      expected: false,
    });
    cases.push({
      name: `long signature #${i}`,
      publicKey,
      message,
      signature: concat(signature, new Uint8Array([0])),
      expected: false,
    });
    cases.push({
      name: `all-zero signature #${i}`,
      publicKey,
      message,
      signature: new Uint8Array(64),
      expected: false,
    });
    const other = generateKeyPair();
    cases.push({
      name: `another key's signature #${i}`,
      publicKey: other.publicKey,
      message,
      signature,
      expected: false,
    });
  }
  return cases;
}

describe('Ed25519: node:crypto and @noble/curves agree', () => {
  const cases = corpus();

  it(`gives the same verdict on ${cases.length} valid, tampered and non-canonical signatures`, () => {
    for (const c of cases) {
      const node = verifyWithNode(publicKeyObject(c.publicKey), c.message, c.signature);
      const noble = verifyWithNoble(c.publicKey, c.message, c.signature);
      expect(node, `node:crypto on ${c.name}`).to.equal(c.expected);
      expect(noble, `@noble/curves on ${c.name}`).to.equal(c.expected);
    }
  });

  it('differs only in ZIP-215 mode, which accepts a non-canonical R (documented, not used)', () => {
    const c = cases.find((x) => x.name.startsWith('R = identity, non-canonical'));
    expect(c).to.not.equal(undefined);
    if (!c) return;
    expect(verifyWithNoble(c.publicKey, c.message, c.signature, true)).to.equal(true);
    expect(verifyWithNode(publicKeyObject(c.publicKey), c.message, c.signature)).to.equal(false);
  });

  it('under a small-order key OpenSSL accepts a forged (R = identity, S = 0) signature, so such keys are refused at registration', () => {
    const identityKey = toLE(1n);
    const forged = concat(toLE(1n), new Uint8Array(32));
    const message = utf8('1700000000000GET/api/v1/account/balance');
    expect(verifyWithNode(publicKeyObject(identityKey), message, forged)).to.equal(true);
    expect(verifyWithNoble(identityKey, message, forged, true)).to.equal(true);
    expect(verifyWithNoble(identityKey, message, forged, false)).to.equal(false);
    expect(() => parsePublicKey(Buffer.from(identityKey).toString('base64'))).to.throw(DomainError, /small-order/);
  });

  it('refuses every small-order point and malformed keys, accepts a generated key', () => {
    const smallOrder = [
      toLE(1n), // identity
      toLE(P - 1n), // (0, -1), order 2
      toLE(0n), // (±sqrt(-1), 0), order 4
      toLE(0n).map((b, i) => (i === 31 ? 0x80 : b)), // x sign bit set on y = 0
    ];
    for (const key of smallOrder) {
      expect(() => parsePublicKey(Buffer.from(key).toString('base64')), Buffer.from(key).toString('hex')).to.throw(
        DomainError,
      );
    }
    expect(() => parsePublicKey('not base64')).to.throw(DomainError);
    expect(() => parsePublicKey(Buffer.alloc(31).toString('base64'))).to.throw(DomainError);
    const { publicKey } = generateKeyPair();
    expect(parsePublicKey(Buffer.from(publicKey).toString('base64'))).to.deep.equal(publicKey);
  });
});
