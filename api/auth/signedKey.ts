// Signed API key credentials (SPEC Authentication 1):
// - headers X-SVC-ACCESS-KEY (key id), X-SVC-ACCESS-TIMESTAMP (UNIX ms), X-SVC-ACCESS-SIGNATURE
//   (base64 Ed25519 over timestamp + METHOD + path including the query string);
// - all three present, the timestamp within 30 s of the service clock, the key known and not
//   revoked, the signature valid; anything else is 401 `Missing or invalid API key credentials`;
// - unprefixed SVC-ACCESS-* headers are not signing headers at all.
// Verification uses node:crypto with one cached KeyObject per key; a positive verdict for the
// exact (key, signed string, signature) triple is remembered briefly, since the same headers may
// legitimately be replayed within the window and verifying costs far more than a map lookup.

import type { IncomingHttpHeaders } from 'node:http';
import type { AppContext } from '../../commands/context.ts';
import { credentialIndexOf, type ApiKeyEntry } from '../../commands/credentials/index.ts';
import { verifyWithNode } from '../../commands/credentials/ed25519.ts';
import { MICROS_PER_MS } from '../../domain/clock.ts';
import { HttpError } from '../errors.ts';

export const HEADER_KEY = 'x-svc-access-key';
export const HEADER_TIMESTAMP = 'x-svc-access-timestamp';
export const HEADER_SIGNATURE = 'x-svc-access-signature';
export const SIGNATURE_WINDOW_MS = 30_000;
export const API_KEY_ERROR = 'Missing or invalid API key credentials';

const TIMESTAMP_FORMAT = /^\d{1,16}$/;
const SIGNATURE_FORMAT = /^[A-Za-z0-9+/]{86}(==)?$/; // 64 bytes, standard base64
const KEY_ID_MAX_LENGTH = 128;
const VERIFIED_CACHE_MAX = 20_000;

export const apiKeyError = () => new HttpError(401, API_KEY_ERROR);

/** True when the request carries any of the X-SVC-ACCESS-* signing headers. */
export function hasSigningHeader(headers: IncomingHttpHeaders): boolean {
  return headers[HEADER_KEY] !== undefined || headers[HEADER_TIMESTAMP] !== undefined || headers[HEADER_SIGNATURE] !== undefined;
}

const single = (value: string | string[] | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

export class SignedKeyVerifier {
  private readonly verified = new Map<string, true>();

  constructor(private readonly ctx: AppContext) {}

  /** The live key that signed the request, or a 401. `pathWithQuery` is the raw request target. */
  async verify(headers: IncomingHttpHeaders, method: string, pathWithQuery: string): Promise<ApiKeyEntry> {
    const keyId = single(headers[HEADER_KEY]);
    const timestamp = single(headers[HEADER_TIMESTAMP]);
    const signature = single(headers[HEADER_SIGNATURE]);
    if (!keyId || !timestamp || !signature) throw apiKeyError();
    if (keyId.length > KEY_ID_MAX_LENGTH || !TIMESTAMP_FORMAT.test(timestamp) || !SIGNATURE_FORMAT.test(signature)) throw apiKeyError();
    const nowMs = this.ctx.clock.nowUs() / MICROS_PER_MS;
    if (Math.abs(nowMs - Number(timestamp)) > SIGNATURE_WINDOW_MS) throw apiKeyError();

    const index = credentialIndexOf(this.ctx);
    const key = index.keyCached(keyId) ?? (await index.key(keyId));
    if (!key || key.revoked_at_us !== null) throw apiKeyError();

    const signed = `${timestamp}${method}${pathWithQuery}`;
    const cacheKey = `${keyId}\n${signed}\n${signature}`;
    if (this.verified.has(cacheKey)) return key;
    if (!verifyWithNode(key.keyObject, Buffer.from(signed, 'utf8'), Buffer.from(signature, 'base64'))) throw apiKeyError();
    if (this.verified.size >= VERIFIED_CACHE_MAX) this.verified.clear();
    this.verified.set(cacheKey, true);
    return key;
  }
}
