// The service's base URL as a client reached it: the metadata documents (RFC 8414, RFC 9728) and
// the `resource_metadata` of a 401 are built on it. The Host header says which host; forwarded
// headers (X-Forwarded-Proto, X-Forwarded-Host) count only from a configured trusted proxy, so a
// client cannot point the documents at another host by sending them itself.

import type { BlockList } from 'node:net';
import { addressListOf, listed } from '../net/addressList.ts';
import { normalizeIp } from '../../domain/address.ts';

/** Host header values accepted: a DNS name or address with an optional port (nothing else can reach a URL). */
const HOST_FORMAT =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
const FALLBACK_HOST = 'localhost';

export interface OriginRequest {
  header(name: string): string | undefined;
  remoteAddress: string | null;
  /** Whether the connection itself is TLS. */
  encrypted: boolean;
}

/** Trusted proxies from TRUSTED_PROXIES (addresses or CIDRs). */
export const trustedProxies = addressListOf;

function fromTrustedProxy(request: OriginRequest, proxies: BlockList): boolean {
  const ip = normalizeIp(request.remoteAddress);
  return ip !== null && listed(proxies, ip);
}

const first = (value: string | undefined): string | undefined => value?.split(',')[0]?.trim() || undefined;

/** `https://exchange.example` or `http://127.0.0.1:8080`: scheme and host as the client used them. */
export function baseUrlOf(request: OriginRequest, proxies: BlockList): string {
  const trusted = fromTrustedProxy(request, proxies);
  const forwardedProto = trusted ? first(request.header('x-forwarded-proto'))?.toLowerCase() : undefined;
  const proto =
    forwardedProto === 'https' || forwardedProto === 'http' ? forwardedProto : request.encrypted ? 'https' : 'http';
  const forwardedHost = trusted ? first(request.header('x-forwarded-host')) : undefined;
  const candidate = forwardedHost ?? request.header('host');
  const host = candidate !== undefined && HOST_FORMAT.test(candidate) ? candidate : FALLBACK_HOST;
  return `${proto}://${host}`;
}
