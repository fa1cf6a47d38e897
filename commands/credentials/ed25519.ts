// Ed25519 key handling for API keys. Keys are generated with @noble/curves; requests are signed
// by the client package (@event-exchange/client, the one implementation of request signing); the
// request path verifies with node:crypto, which is an order of magnitude faster here. Only raw
// 32-byte public keys are ever stored.

import { createPublicKey, verify as nodeVerify, type KeyObject } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { InvalidInput } from '../../domain/errors.ts';

const SIGNATURE_BYTES = 64;

// DER prefix that wraps a raw Ed25519 public key into SPKI (RFC 8410).
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

const BASE64_32_BYTES = /^[A-Za-z0-9+/]{43}=?$/;

/**
 * Decodes and checks a client-supplied public key (base64 of 32 raw bytes).
 * Refuses anything that is not a valid curve point, and small-order points: with those, both
 * verifiers accept a forged signature (R = identity, S = 0) for any message.
 */
export function parsePublicKey(base64: string): Uint8Array {
  if (!BASE64_32_BYTES.test(base64))
    throw new InvalidInput('public_key must be the base64 of a 32-byte Ed25519 public key');
  const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
  let point;
  try {
    point = ed25519.Point.fromBytes(bytes);
  } catch {
    throw new InvalidInput('public_key is not a valid Ed25519 public key');
  }
  if (point.isSmallOrder()) throw new InvalidInput('public_key is a small-order point and cannot be used');
  return bytes;
}

/** A fresh key pair: the 32-byte seed (the client's private key) and its public key. */
export function generateKeyPair(): { seed: Uint8Array; publicKey: Uint8Array } {
  const { secretKey, publicKey } = ed25519.keygen();
  return { seed: secretKey, publicKey };
}

/** node:crypto KeyObject for a raw public key (cache it: building one costs more than a verify). */
export function publicKeyObject(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, Buffer.from(raw)]), format: 'der', type: 'spki' });
}

/** Request-path verifier: node:crypto (OpenSSL). A signature of the wrong length is simply false. */
export function verifyWithNode(key: KeyObject, message: Uint8Array, signature: Uint8Array): boolean {
  if (signature.length !== SIGNATURE_BYTES) return false;
  try {
    return nodeVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

/** Reference verifier (@noble/curves, RFC 8032 strict mode); throws are a `false` verdict. */
export function verifyWithNoble(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
  zip215 = false,
): boolean {
  try {
    return ed25519.verify(signature, message, publicKey, { zip215 });
  } catch {
    return false;
  }
}
