// Address lists (IP addresses and CIDRs) as node's BlockList, for rules that ask "is this peer in
// the list": geofencing's blocked networks, trusted proxies. Entries that are not addresses are
// skipped (configuration is validated where it is read).

import { BlockList, isIP } from 'node:net';

export function addressListOf(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const family = isIP(address);
    if (family === 0) continue;
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

/** Whether `ip` (already normalised) is in `list`; false for anything that is not an address. */
export function listed(list: BlockList, ip: string): boolean {
  const family = isIP(ip);
  return family !== 0 && list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}
