// `res.status(s).json(body)` for the write routes without express' generic send path: the same
// status, headers (Content-Type `application/json; charset=utf-8`, Content-Length, the weak
// ETag express derives from the body) in the same order, and the same body bytes, written as one
// string. Whenever the request or the app is anything but the plain case (HEAD or GET, a
// Content-Type, ETag or Transfer-Encoding already set, a status that drops the body, JSON or ETag
// settings other than the defaults) it is `res.status(s).json(body)` itself.

import { createHash } from 'node:crypto';
import type { Response } from 'express';

const CONTENT_TYPE = 'application/json; charset=utf-8';

/** Whether the app keeps express' defaults for JSON and ETags (checked once per app). */
const plainApps = new WeakMap<object, boolean>();

function plainApp(res: Response): boolean {
  const app = res.app;
  let plain = plainApps.get(app);
  if (plain === undefined) {
    plain = app.get('etag') === 'weak' && !app.get('json escape') && !app.get('json replacer') && !app.get('json spaces');
    plainApps.set(app, plain);
  }
  return plain;
}

/** The weak ETag express' default generator gives a UTF-8 body (etag package, weak). */
export function weakEtagOf(text: string, byteLength: number): string {
  if (byteLength === 0) return 'W/"0-2jmj7l5rSw0yVb/vlWAYkK/YBwk"';
  const hash = createHash('sha1').update(text, 'utf8').digest('base64').substring(0, 27);
  return `W/"${byteLength.toString(16)}-${hash}"`;
}

export function sendJson(res: Response, status: number, body: unknown): void {
  const method = res.req.method;
  if (
    method === 'HEAD' || method === 'GET' || status === 204 || status === 205 || status === 304
    || !Number.isInteger(status) || status < 100 || status > 999
    || res.hasHeader('content-type') || res.hasHeader('etag') || res.hasHeader('transfer-encoding')
    || !plainApp(res)
  ) {
    res.status(status).json(body);
    return;
  }
  const text = JSON.stringify(body);
  if (typeof text !== 'string') {
    res.status(status).json(body);
    return;
  }
  const length = Buffer.byteLength(text, 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Type', CONTENT_TYPE);
  res.setHeader('Content-Length', String(length));
  res.setHeader('ETag', weakEtagOf(text, length));
  res.end(text, 'utf8');
}
