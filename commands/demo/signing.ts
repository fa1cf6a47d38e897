// A ready-to-run signed request for an API key: the three X-SVC-ACCESS-* headers computed for a
// fresh timestamp, as a curl command line. Used by the demo banner and `exchange admin sign`.

import { signingString, signWithNoble } from '../credentials/ed25519.ts';

interface SignedRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
  curl: string;
}

const shellQuote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`;

export function signRequest(options: {
  baseUrl: string;
  keyId: string;
  privateKeyBase64: string;
  method: string;
  path: string; // including the query string
  body?: string;
  nowMs: number;
}): SignedRequest {
  const seed = new Uint8Array(Buffer.from(options.privateKeyBase64, 'base64'));
  if (seed.length !== 32) throw new Error('private key must be the base64 of a 32-byte Ed25519 seed');
  const method = options.method.toUpperCase();
  const path = options.path.startsWith('/') ? options.path : `/${options.path}`;
  const timestamp = String(Math.floor(options.nowMs));
  const signature = Buffer.from(signWithNoble(seed, new TextEncoder().encode(signingString(timestamp, method, path)))).toString('base64');
  const headers: Record<string, string> = {
    'X-SVC-ACCESS-KEY': options.keyId,
    'X-SVC-ACCESS-TIMESTAMP': timestamp,
    'X-SVC-ACCESS-SIGNATURE': signature,
    'User-Agent': 'exchange-demo',
  };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}`;
  const parts = ['curl', '-sS', '-X', method, shellQuote(url)];
  for (const [name, value] of Object.entries(headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (options.body !== undefined) parts.push('--data', shellQuote(options.body));
  return { method, url, headers, body: options.body, curl: parts.join(' ') };
}
