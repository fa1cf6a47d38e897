// API-key signing, exactly as docs/TRADING.md says: Ed25519 over
// `timestamp (UNIX ms) + METHOD + path with its query string`, sent as the three X-SVC-ACCESS-*
// headers. The private key is the base64 of the 32-byte seed the service printed, or a PKCS#8 PEM.
// In Node the signature comes from node:crypto (much faster than pure JS); elsewhere (a
// browser) from @noble/curves. Ed25519 is deterministic: both give the same bytes.

import { ed25519 } from '@noble/curves/ed25519.js';

const SEED_BYTES = 32;
/** DER prefix of a PKCS#8 Ed25519 private key (RFC 8410); the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

export const HEADER_KEY = 'X-SVC-ACCESS-KEY';
export const HEADER_TIMESTAMP = 'X-SVC-ACCESS-TIMESTAMP';
export const HEADER_SIGNATURE = 'X-SVC-ACCESS-SIGNATURE';

export interface SignatureHeaders {
  'X-SVC-ACCESS-KEY': string;
  'X-SVC-ACCESS-TIMESTAMP': string;
  'X-SVC-ACCESS-SIGNATURE': string;
}

/** The string a request signs: timestamp (UNIX ms) + METHOD + path including the query string. */
export function signingString(timestampMs: string, method: string, pathWithQuery: string): string {
  return `${timestampMs}${method.toUpperCase()}${pathWithQuery}`;
}

function base64ToBytes(base64: string): Uint8Array {
  const binary = atob(base64.replace(/\s+/g, ''));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The 32-byte seed of a private key given as base64 of the seed or as a PKCS#8 PEM. */
export function parsePrivateKey(privateKey: string | Uint8Array): Uint8Array {
  if (privateKey instanceof Uint8Array) {
    if (privateKey.length !== SEED_BYTES) throw new TypeError('private key must be the 32-byte Ed25519 seed');
    return privateKey;
  }
  const text = privateKey.trim();
  if (text.startsWith('-----BEGIN')) {
    const match = /-----BEGIN PRIVATE KEY-----([\s\S]+?)-----END PRIVATE KEY-----/.exec(text);
    if (!match) throw new TypeError('private key PEM must be a PKCS#8 "PRIVATE KEY" block');
    const der = base64ToBytes(match[1]!);
    const prefixMatches =
      der.length === PKCS8_ED25519_PREFIX.length + SEED_BYTES &&
      PKCS8_ED25519_PREFIX.every((byte, i) => der[i] === byte);
    if (!prefixMatches) throw new TypeError('private key PEM is not a PKCS#8 Ed25519 key');
    return der.slice(PKCS8_ED25519_PREFIX.length);
  }
  let seed: Uint8Array;
  try {
    seed = base64ToBytes(text);
  } catch {
    throw new TypeError('private key must be the base64 of a 32-byte Ed25519 seed, or a PKCS#8 PEM');
  }
  if (seed.length !== SEED_BYTES)
    throw new TypeError('private key must be the base64 of a 32-byte Ed25519 seed, or a PKCS#8 PEM');
  return seed;
}

/** The public key (base64 of the 32 raw bytes) of a private key, as the service registers it. */
export function publicKeyOf(privateKey: string | Uint8Array): string {
  return bytesToBase64(ed25519.getPublicKey(parsePrivateKey(privateKey)));
}

/** A fresh key pair: register `publicKey` with the service, keep `privateKey` (base64 seed). */
export function generateKeyPair(): { privateKey: string; publicKey: string } {
  const { secretKey, publicKey } = ed25519.keygen();
  return { privateKey: bytesToBase64(secretKey), publicKey: bytesToBase64(publicKey) };
}

type SignBytes = (message: Uint8Array) => Uint8Array;

interface NodeCrypto {
  createPrivateKey(options: { key: Uint8Array; format: 'der'; type: 'pkcs8' }): unknown;
  sign(algorithm: null, data: Uint8Array, key: unknown): Uint8Array;
}

/** node:crypto when running in Node (process.getBuiltinModule, Node >= 20.16), else undefined. */
function nodeCrypto(): NodeCrypto | undefined {
  const processObject = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }).process;
  return processObject?.getBuiltinModule?.('node:crypto') as NodeCrypto | undefined;
}

function byteSigner(seed: Uint8Array, implementation: 'auto' | 'noble'): SignBytes {
  const crypto = implementation === 'auto' ? nodeCrypto() : undefined;
  if (crypto) {
    const der = new Uint8Array(PKCS8_ED25519_PREFIX.length + SEED_BYTES);
    der.set(PKCS8_ED25519_PREFIX);
    der.set(seed, PKCS8_ED25519_PREFIX.length);
    const key = crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
    return (message) => crypto.sign(null, message, key);
  }
  return (message) => ed25519.sign(message, seed);
}

export interface RequestSigner {
  readonly keyId: string;
  /** The three X-SVC-ACCESS-* headers for a request signed at `timestampMs`. */
  headers(method: string, pathWithQuery: string, timestampMs: number): SignatureHeaders;
}

/**
 * A signer for one API key. `implementation: 'noble'` forces the pure-JS signer (what a browser
 * uses); the default picks node:crypto where it exists.
 */
export function createSigner(
  keyId: string,
  privateKey: string | Uint8Array,
  options: { implementation?: 'auto' | 'noble' } = {},
): RequestSigner {
  const sign = byteSigner(parsePrivateKey(privateKey), options.implementation ?? 'auto');
  const encoder = new TextEncoder();
  return {
    keyId,
    headers(method, pathWithQuery, timestampMs) {
      const timestamp = String(Math.floor(timestampMs));
      const signature = bytesToBase64(sign(encoder.encode(signingString(timestamp, method, pathWithQuery))));
      return { [HEADER_KEY]: keyId, [HEADER_TIMESTAMP]: timestamp, [HEADER_SIGNATURE]: signature };
    },
  };
}
