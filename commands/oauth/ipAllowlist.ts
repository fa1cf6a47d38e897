// A client's IP allowlist: requests from other addresses are refused (token endpoint, API calls
// with its tokens). Only the peer address counts; X-Forwarded-For is never believed here.

import { normalizeIp } from '../../domain/address.ts';
import { listed } from '../net/addressList.ts';
import type { KnownClient } from '../oauthClients/directory.ts';

export function allowedFrom(known: KnownClient, remoteAddress: string | null): boolean {
  if (known.allowlist === null) return true;
  const ip = normalizeIp(remoteAddress);
  return ip !== null && listed(known.allowlist, ip);
}

export const IP_NOT_ALLOWED_DESCRIPTION = 'This application may not be used from this address';
