// A ready-to-run signed request for an API key: the three X-SVC-ACCESS-* headers computed for a
// fresh timestamp, as a curl command line. Used by the demo banner and `exchange admin sign`.
// The signature is the client package's (the one implementation of request signing).

import { createSigner } from '@event-exchange/client';

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
  const method = options.method.toUpperCase();
  const path = options.path.startsWith('/') ? options.path : `/${options.path}`;
  const headers: Record<string, string> = {
    ...createSigner(options.keyId, options.privateKeyBase64).headers(method, path, options.nowMs),
    'User-Agent': 'exchange-demo',
  };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  const url = `${options.baseUrl.replace(/\/+$/, '')}${path}`;
  const parts = ['curl', '-sS', '-X', method, shellQuote(url)];
  for (const [name, value] of Object.entries(headers)) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (options.body !== undefined) parts.push('--data', shellQuote(options.body));
  return { method, url, headers, body: options.body, curl: parts.join(' ') };
}
