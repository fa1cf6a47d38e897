// The address a per-address limit counts: the peer's, or, when the peer is a trusted proxy
// (TRUSTED_PROXIES), the last address it names in X-Forwarded-For (the one it saw; earlier
// entries are the client's own word). An IPv6 client counts by its /64, the block one subscriber
// usually holds, so rotating addresses inside it gains nothing.

import { type BlockList, isIP } from 'node:net';
import { normalizeIp } from '../../domain/address.ts';
import { listed } from './addressList.ts';

const IPV6_GROUPS = 8;
const IPV6_PREFIX_GROUPS = 4;

/** The /64 of an IPv6 address, as `a:b:c:d::/64`; null when it does not parse. */
function ipv6Prefix(ip: string): string | null {
  const zoneless = ip.split('%')[0] as string;
  const halves = zoneless.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] === '' ? [] : (halves[0] as string).split(':');
  const tail = halves.length === 2 && halves[1] !== '' ? (halves[1] as string).split(':') : [];
  // an embedded IPv4 tail counts as two groups
  const groupsOf = (parts: string[]) => parts.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
  const missing = IPV6_GROUPS - groupsOf(head) - groupsOf(tail);
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null;
  const groups = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  return `${groups
    .slice(0, IPV6_PREFIX_GROUPS)
    .map((g) => (g.includes('.') ? g : (g.replace(/^0+(?=.)/, '') || '0').toLowerCase()))
    .join(':')}::/64`;
}

/** The key a per-address limit counts `ip` under: an IPv4 address itself, an IPv6 address's /64. */
export function addressKeyOf(ip: string): string {
  return isIP(ip) === 6 ? (ipv6Prefix(ip) ?? ip) : ip;
}

/** This machine itself (127.0.0.0/8, ::1): its own programs, or a local proxy not listed in TRUSTED_PROXIES. */
export function isLoopback(ip: string): boolean {
  return ip.startsWith('127.') || ip === '::1';
}

/** The client's address as a per-address limit sees it (null: none known). */
export function clientAddressOf(
  remoteAddress: string | null | undefined,
  forwardedFor: string | undefined,
  proxies: BlockList,
): string | null {
  const peer = normalizeIp(remoteAddress);
  if (peer === null) return null;
  if (forwardedFor === undefined || !listed(proxies, peer)) return peer;
  const entries = forwardedFor.split(',');
  for (let i = entries.length - 1; i >= 0; i -= 1) {
    const entry = normalizeIp((entries[i] as string).trim());
    if (entry !== null && isIP(entry) !== 0 && !listed(proxies, entry)) return entry;
  }
  return peer;
}
