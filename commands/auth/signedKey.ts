// Signed API key credentials (docs/TRADING.md "Signing a request"):
// - headers X-SVC-ACCESS-KEY (key id), X-SVC-ACCESS-TIMESTAMP (UNIX ms), X-SVC-ACCESS-SIGNATURE
//   (base64 Ed25519 over timestamp + METHOD + path including the query string);
// - all three present, the timestamp within 30 s of the service clock, the key known and not
//   revoked, the signature valid; anything else is no key at all (the caller's `api_key_invalid`);
// - unprefixed SVC-ACCESS-* headers are not signing headers.
// Verification uses node:crypto with one cached KeyObject per key; a positive verdict for the
// exact (key, signed string, signature) triple is remembered briefly, since the same headers may
// legitimately be replayed within the window and verifying costs far more than a map lookup.

import { MICROS_PER_MS, type Clock } from '../../domain/clock.ts';
import type { ApiKeyEntry } from '../credentials/index.ts';
import { verifyWithNode } from '../credentials/ed25519.ts';

const HEADER_KEY = 'x-svc-access-key';
const HEADER_TIMESTAMP = 'x-svc-access-timestamp';
const HEADER_SIGNATURE = 'x-svc-access-signature';
const SIGNATURE_WINDOW_MS = 30_000;

const TIMESTAMP_FORMAT = /^\d{1,16}$/;
const SIGNATURE_FORMAT = /^[A-Za-z0-9+/]{86}(==)?$/; // 64 bytes, standard base64
const KEY_ID_LENGTH_MAX = 128;
const VERIFIED_CACHE_ENTRIES_MAX = 20_000;

/** Where keys are found: the in-process credential index, falling back to its table. */
export interface ApiKeyLookup {
  keyCached(keyId: string): ApiKeyEntry | undefined;
  key(keyId: string): Promise<ApiKeyEntry | undefined>;
}

/** True when the request carries any of the X-SVC-ACCESS-* signing headers. */
export function hasSigningHeader(header: (name: string) => string | undefined): boolean {
  return (
    header(HEADER_KEY) !== undefined || header(HEADER_TIMESTAMP) !== undefined || header(HEADER_SIGNATURE) !== undefined
  );
}

interface SignedRequest {
  method: string;
  pathWithQuery: string;
  header(name: string): string | undefined;
}

export class SignedKeyVerifier {
  private readonly verified = new Map<string, true>();

  constructor(
    private readonly clock: Clock,
    private readonly keys: ApiKeyLookup,
  ) {}

  /** The live key that signed the request, or null. Throws only when the key lookup fails. */
  async verify(request: SignedRequest): Promise<ApiKeyEntry | null> {
    const keyId = request.header(HEADER_KEY);
    const timestamp = request.header(HEADER_TIMESTAMP);
    const signature = request.header(HEADER_SIGNATURE);
    if (!keyId || !timestamp || !signature) return null;
    if (keyId.length > KEY_ID_LENGTH_MAX || !TIMESTAMP_FORMAT.test(timestamp) || !SIGNATURE_FORMAT.test(signature))
      return null;
    const nowMs = this.clock.nowUs() / MICROS_PER_MS;
    if (Math.abs(nowMs - Number(timestamp)) > SIGNATURE_WINDOW_MS) return null;

    const key = this.keys.keyCached(keyId) ?? (await this.keys.key(keyId));
    if (!key || key.revoked_at_us !== null) return null;

    const signed = `${timestamp}${request.method}${request.pathWithQuery}`;
    const cacheKey = `${keyId}\n${signed}\n${signature}`;
    if (this.verified.has(cacheKey)) return key;
    if (!verifyWithNode(key.keyObject, Buffer.from(signed, 'utf8'), Buffer.from(signature, 'base64'))) return null;
    if (this.verified.size >= VERIFIED_CACHE_ENTRIES_MAX) this.verified.clear();
    this.verified.set(cacheKey, true);
    return key;
  }
}
