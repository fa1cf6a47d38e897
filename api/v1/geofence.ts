// Geofencing of order placement and cancellation (SPEC `geo_location`), configured by the
// operator settings `geofencing` {enforced, allowed_codes, accept_network_location, blocked_networks}:
// - not enforced: `geo_location` is ignored;
// - enforced and a code sent: it must be one of allowed_codes, else 422 (a bad code is refused
//   even where omission would pass);
// - enforced and no code (omitted or null): 422 `Placing Order(s) from this IP address ...`,
//   unless accept_network_location, in which case the request's address is accepted unless it
//   falls in blocked_networks (VPN, proxy and hosting ranges), which is 422 as well;
// - a batch is checked once with its top-level `geo_location`; codes inside legs are ignored.

import { BlockList, isIP } from 'node:net';
import type { GeofencingSettings } from '../../commands/settings/settings.ts';
import { unprocessable } from '../errors.ts';

export const GEO_REFUSAL_PREFIX = 'Placing Order(s) from this IP address';
export const GEO_MISSING = `${GEO_REFUSAL_PREFIX} requires a location check (geo_location)`;
export const GEO_BAD_CODE = `${GEO_REFUSAL_PREFIX} is not allowed: the location check failed`;
export const GEO_BLOCKED_NETWORK = `${GEO_REFUSAL_PREFIX} is not allowed: VPN, proxy or hosting networks are refused`;

/** `::ffff:1.2.3.4` → `1.2.3.4`; anything else unchanged. */
export function normalizeIp(ip: string | undefined | null): string | null {
  if (!ip) return null;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped ? (mapped[1] as string) : ip;
}

const blockLists = new WeakMap<readonly string[], BlockList>();

function blockListOf(networks: readonly string[]): BlockList {
  let list = blockLists.get(networks);
  if (list) return list;
  list = new BlockList();
  for (const cidr of networks) {
    const [address = '', prefixText] = cidr.split('/');
    const family = isIP(address);
    if (family === 0) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefixText === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefixText), type);
  }
  blockLists.set(networks, list);
  return list;
}

export function inBlockedNetwork(ip: string, networks: readonly string[]): boolean {
  const family = isIP(ip);
  if (family === 0) return false;
  return blockListOf(networks).check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

/** Throws 422 when the settings refuse this request's location. */
export function checkLocation(settings: GeofencingSettings, geoLocation: string | null | undefined, ip: string | null): void {
  if (!settings.enforced) return;
  if (geoLocation !== undefined && geoLocation !== null) {
    if (!settings.allowed_codes.includes(geoLocation)) throw unprocessable(GEO_BAD_CODE);
    return;
  }
  if (!settings.accept_network_location) throw unprocessable(GEO_MISSING);
  if (ip !== null && inBlockedNetwork(ip, settings.blocked_networks)) throw unprocessable(GEO_BLOCKED_NETWORK);
}
