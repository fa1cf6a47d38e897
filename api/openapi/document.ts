// The OpenAPI 3.1 document of /api/v1, served at GET /api/v1/openapi.json: built from the
// trading route table (the same entries the router registers) plus the member routes' fragment
// (api/v1/member/openapi.ts: `paths`, host-root `publicPaths` and component `schemas`).

import { routeScopeOf, SCOPE_DESCRIPTIONS } from '../../domain/auth/routeScopes.ts';
import { APP_SCOPES, MEMBER_SCOPES } from '../../domain/auth/scopes.ts';
import { memberOpenApi } from '../v1/member/openapi.ts';
import type { RouteSpec } from '../v1/routes.ts';
import { RATE_LIMIT_HEADERS } from './rateLimitHeaders.ts';
import { COMPONENT_SCHEMAS } from './schemas.ts';

type Json = Record<string, unknown>;

interface OpenApiFragment {
  /** Relative to /api/v1 (or already prefixed with it). */
  paths?: Json;
  /** At the host root, without credentials (avatars, icons). */
  publicPaths?: Json;
  schemas?: Json;
  components?: { schemas?: Json };
}

const API_PREFIX = '/api/v1';

const ERROR_TEXT: Record<number, string> = {
  400: 'Missing or invalid parameter or body field',
  401: 'Missing or invalid credentials (`Missing or invalid API key credentials` for signed requests, `Unauthorized` for bearer)',
  403: 'Missing User-Agent, API key without write access, or account not active',
  404: 'No such record on this account, or unknown path',
  409: 'A request with the same Idempotency-Key is still being processed',
  422: 'Refused by a rule; `error` says why',
  429: "Too many requests: over the account's request rate (reads and writes counted apart, a batch one write per leg), or too many failed authentications from the address; retry after the `Retry-After` seconds",
  503: 'Temporarily unavailable (the database cannot be reached, or the engine queue is full); retry after the `Retry-After` seconds',
};

const errorResponse = (status: number) => ({
  description: ERROR_TEXT[status] ?? 'Error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

function operationOf(route: RouteSpec): Json {
  const parameters: Json[] = [];
  for (const param of route.pathParams ?? []) {
    parameters.push({
      name: param.name,
      in: 'path',
      required: true,
      description: param.description,
      schema: param.schema,
    });
  }
  for (const param of route.query?.params ?? []) {
    const schema = param.published ?? (param.kind === 'csv' ? { type: 'array', items: param.schema } : param.schema);
    parameters.push({
      name: param.name,
      in: 'query',
      required: false,
      description: param.description,
      schema,
      ...(param.kind === 'csv' ? { style: 'form', explode: false } : {}),
    });
  }
  if (route.idempotent) {
    parameters.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description:
        'A retry with the same key from the same account within 24 hours gets the first answer and changes nothing',
      schema: { type: 'string', minLength: 1, maxLength: 255 },
    });
  }
  const okHeaders: Json = {};
  if (route.deprecated) {
    okHeaders.Deprecation = { description: 'RFC 9745 deprecation date', schema: { type: 'string' } };
    okHeaders.Sunset = { description: 'RFC 8594 sunset date', schema: { type: 'string' } };
  }
  const responses: Json = {
    200: {
      description: 'OK',
      ...(route.deprecated ? { headers: okHeaders } : {}),
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.response}` } } },
    },
  };
  for (const status of [...route.errors, ...(route.idempotent ? [409] : []), 503])
    responses[status] = errorResponse(status);
  // every authenticated route: the account's request rate, and the address's failed authentications
  responses[429] = { ...errorResponse(429), headers: RATE_LIMIT_HEADERS };
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.write ? { description: 'Needs a `read_write` API key (or a member session).' } : {}),
    ...(route.deprecated ? { deprecated: true } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: { $ref: `#/components/schemas/${route.body}` } } },
          },
        }
      : {}),
    responses,
  };
}

export function buildOpenApiDocument(routes: readonly RouteSpec[], fragments: readonly OpenApiFragment[] = []): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = `${API_PREFIX}${route.path}`;
    paths[path] = { ...(paths[path] ?? {}), [route.method]: operationOf(route) };
  }
  paths[`${API_PREFIX}/openapi.json`] = {
    get: {
      operationId: 'getOpenApiDocument',
      summary: 'This document (public: no credentials; rendered at /docs)',
      security: [],
      responses: {
        200: { description: 'OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } },
        404: errorResponse(404),
      },
    },
  };
  const schemas: Json = { ...COMPONENT_SCHEMAS };
  for (const fragment of fragments) {
    for (const [rawPath, item] of Object.entries(fragment.paths ?? {})) {
      const path = rawPath.startsWith(API_PREFIX) ? rawPath : `${API_PREFIX}${rawPath}`;
      paths[path] = { ...(paths[path] ?? {}), ...(item as Json) };
    }
    for (const [path, item] of Object.entries(fragment.publicPaths ?? {}))
      paths[path] = { ...(paths[path] ?? {}), ...(item as Json) };
    Object.assign(schemas, fragment.schemas ?? {}, fragment.components?.schemas ?? {});
  }
  applyScopes(paths);
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Exchange trading API',
      version: '1',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description:
        'Every /api/v1 route requires credentials: a signed API key (X-SVC-ACCESS-KEY, X-SVC-ACCESS-TIMESTAMP in UNIX ms, X-SVC-ACCESS-SIGNATURE = base64 Ed25519 over timestamp + METHOD + path with query string, 30-second window) or `Authorization: Bearer <token>`. Requests without a User-Agent header are refused with 403.',
    },
    servers: [{ url: '/' }],
    security: [{ AccessKey: [], AccessTimestamp: [], AccessSignature: [] }, { Bearer: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: {
        AccessKey: { type: 'apiKey', in: 'header', name: 'X-SVC-ACCESS-KEY', description: 'API key id' },
        AccessTimestamp: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SVC-ACCESS-TIMESTAMP',
          description: 'UNIX milliseconds; within 30 seconds of the service clock',
        },
        AccessSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'X-SVC-ACCESS-SIGNATURE',
          description: 'base64 Ed25519 signature of timestamp + METHOD + path (with query string)',
        },
        Bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'Member session token or OAuth access token, in the Authorization header only',
        },
        OAuth2: {
          type: 'oauth2',
          description:
            'OAuth access tokens (sent as Authorization: Bearer). Each operation lists the one scope that covers it; GET /markets and /leaderboard also take any member token. An operation without an OAuth2 entry is covered by no scope (403 for OAuth tokens).',
          flows: {
            authorizationCode: {
              authorizationUrl: '/oauth/authorize',
              tokenUrl: '/oauth/token',
              refreshUrl: '/oauth/token',
              scopes: scopeDescriptions(MEMBER_SCOPES),
            },
            clientCredentials: { tokenUrl: '/oauth/token', scopes: scopeDescriptions(APP_SCOPES) },
          },
        },
      },
    },
  };
}

/** The member routes' fragment (paths relative to /api/v1, host-root public paths, schemas). */
export function memberFragment(): OpenApiFragment {
  return { paths: memberOpenApi.paths, publicPaths: memberOpenApi.publicPaths, schemas: memberOpenApi.schemas };
}

const scopeDescriptions = (scopes: readonly string[]): Record<string, string> =>
  Object.fromEntries(scopes.map((scope) => [scope, SCOPE_DESCRIPTIONS[scope] ?? scope]));

/** Each /api/v1 operation's `security`: API keys and member sessions always; OAuth with the route's scope (domain/auth/routeScopes.ts). */
function applyScopes(paths: Record<string, Json>): void {
  const methods = ['get', 'post', 'put', 'patch', 'delete'];
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith(API_PREFIX)) continue;
    for (const method of methods) {
      const operation = (item as Record<string, Json | undefined>)[method];
      if (!operation || Array.isArray(operation.security)) continue;
      const rule = routeScopeOf(method.toUpperCase(), path.slice(API_PREFIX.length));
      if (!rule) continue;
      operation.security = [
        { AccessKey: [], AccessTimestamp: [], AccessSignature: [] },
        { Bearer: [] },
        ...(rule.scope === null ? [] : [{ OAuth2: [rule.scope] }]),
      ];
    }
  }
}
