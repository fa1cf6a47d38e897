// Deprecated routes announce it on every answer: `Deprecation` (RFC 9745, `@<unix seconds>`),
// `Sunset` (RFC 8594, an HTTP-date) and optionally `Link: <...>; rel="deprecation"`. The
// OpenAPI document flags the same routes `deprecated: true`.

import type { RequestHandler } from 'express';
import type { Deprecation } from './routes.ts';

function deprecationHeaders(deprecation: Deprecation): Record<string, string> {
  const headers: Record<string, string> = {
    Deprecation: `@${Math.floor(Date.parse(deprecation.since) / 1000)}`,
    Sunset: new Date(Date.parse(deprecation.sunset)).toUTCString(),
  };
  if (deprecation.link) headers.Link = `<${deprecation.link}>; rel="deprecation"`;
  return headers;
}

export function announceDeprecation(deprecation: Deprecation): RequestHandler {
  const headers = deprecationHeaders(deprecation);
  return (_req, res, next) => {
    res.set(headers);
    next();
  };
}
