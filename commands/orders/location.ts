// Geofencing of order placement and cancellation (docs/TRADING.md "Geofencing"), configured by the
// operator settings `geofencing` {enforced, allowed_codes, accept_network_location, blocked_networks}:
// - not enforced: `geo_location` is ignored;
// - enforced and a code sent: it must be one of allowed_codes (a bad code is refused even where
//   omission would pass);
// - enforced and no code (omitted or null): refused, unless accept_network_location, in which
//   case the request's address is accepted unless it falls in blocked_networks (VPN, proxy and
//   hosting ranges);
// - a batch is checked once with its top-level `geo_location`; codes inside legs are ignored.

import type { BlockList } from 'node:net';
import type { Refusal } from '../../domain/errors.ts';
import { addressListOf, listed } from '../net/addressList.ts';
import type { GeofencingSettings } from '../settings/settings.ts';

type LocationRefusal = Extract<
  Refusal,
  { code: 'location_missing' | 'location_bad_code' | 'location_blocked_network' }
>;

/** One list per blocked-networks array of the settings (a settings change brings a new array). */
const blockLists = new WeakMap<readonly string[], BlockList>();

export function inBlockedNetwork(ip: string, networks: readonly string[]): boolean {
  let list = blockLists.get(networks);
  if (!list) {
    list = addressListOf(networks);
    blockLists.set(networks, list);
  }
  return listed(list, ip);
}

/** The refusal the settings give this request's location, or null when it may proceed. */
export function checkLocation(
  settings: GeofencingSettings,
  geoLocation: string | null | undefined,
  ip: string | null,
): LocationRefusal | null {
  if (!settings.enforced) return null;
  if (geoLocation !== undefined && geoLocation !== null) {
    return settings.allowed_codes.includes(geoLocation) ? null : { code: 'location_bad_code' };
  }
  if (!settings.accept_network_location) return { code: 'location_missing' };
  if (ip !== null && inBlockedNetwork(ip, settings.blocked_networks)) return { code: 'location_blocked_network' };
  return null;
}
