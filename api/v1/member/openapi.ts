// OpenAPI 3.1 fragments of the member routes, merged by the trading API into the document at
// /api/v1/openapi.json: `paths` are relative to the `/api/v1` server; `publicPaths` are at the
// host root (avatars, sport icons); `schemas` go under #/components/schemas.

import { LEADERBOARD_METRICS } from '../../../domain/leaderboard/board.ts';
import { LEADERBOARD_PERIODS } from '../../../domain/leaderboard/period.ts';
import { RATE_LIMIT_HEADERS } from '../../openapi/rateLimitHeaders.ts';
import { MEMBER_COMPONENT_SCHEMAS } from './schemas.ts';

type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Schema) => ({ 'application/json': { schema } });
const error = (description: string) => ({
  description,
  content: json({ type: 'object', properties: { error: { type: 'string' } }, required: ['error'] }),
});
const ok = (name: string, description = 'OK') => ({ description, content: json(ref(name)) });
const STANDARD_ERRORS = {
  401: error('Missing or invalid credentials'),
  403: error('Account not active, or outside the token scope'),
  429: {
    ...error(
      "Too many requests (the account's request rate, or failed authentications from the address); retry after Retry-After seconds",
    ),
    headers: RATE_LIMIT_HEADERS,
  },
  503: error(
    'Temporarily unavailable (the database cannot be reached, or the exchange is busy); retry after Retry-After seconds',
  ),
};

const query = (name: string, description: string, schema: Schema = { type: 'string' }) => ({
  name,
  in: 'query',
  required: false,
  description,
  schema,
});
const LIMIT = query('limit', 'Rows per page; default 100, silently clamped to 200', { type: 'integer' });
const CURSOR = query('cursor', 'Opaque cursor from the previous page');

function ledgerPath(operationId: string, summary: string, list: string) {
  return {
    get: {
      operationId,
      tags: ['member'],
      summary,
      parameters: [LIMIT, CURSOR],
      responses: { 200: ok(list), 400: error('Invalid parameter'), ...STANDARD_ERRORS },
    },
  };
}

const MEMBER_OPENAPI_PATHS: Record<string, Schema> = {
  '/me': {
    get: {
      operationId: 'getMe',
      tags: ['member'],
      summary: 'The account identity object',
      responses: { 200: ok('MeResponse'), ...STANDARD_ERRORS },
    },
  },
  '/me/profile': {
    patch: {
      operationId: 'updateProfile',
      tags: ['member'],
      summary: 'Change handle, avatar or leaderboard consent',
      description:
        'At least one key. Bearer sessions may always call it; an API key needs read_write. 422 names the handle rule broken (taken, reserved, blocked, blank, malformed, or inside the 30-day window).',
      requestBody: { required: true, content: json(ref('ProfilePatchBody')) },
      responses: {
        200: ok('MeResponse'),
        400: error('Invalid parameter'),
        ...STANDARD_ERRORS,
        422: error('Handle refused; the error names the rule'),
      },
    },
  },
  '/leaderboard': {
    get: {
      operationId: 'getLeaderboard',
      tags: ['member'],
      summary: 'Top members for one period, category and metric',
      parameters: [
        query('period', 'America/New_York calendar periods; default weekly', {
          type: 'string',
          enum: [...LEADERBOARD_PERIODS],
        }),
        query('category', '`all` (default) or a sport key; an unknown key gives an empty board'),
        query('metric', 'Metric ranked; default is the board the service opens on', {
          type: 'string',
          enum: [...LEADERBOARD_METRICS],
        }),
        query('limit', 'Default 100, clamped to the members shown per board (at most 100)', { type: 'integer' }),
      ],
      responses: {
        200: ok('Leaderboard'),
        400: error('Invalid parameter'),
        ...STANDARD_ERRORS,
        404: error('Leaderboard is not enabled'),
      },
    },
  },
  '/account/market_stats': {
    get: {
      operationId: 'listMarketStats',
      tags: ['member'],
      summary: 'Exposure and realized result per market',
      parameters: [
        query('market_ids', 'Comma-separated market UUIDs'),
        query('event_ids', 'Comma-separated event UUIDs'),
        query('exclude_zero_settlements', 'true omits markets with no settlement; an unrecognized value is ignored'),
        query('from_time', 'Inclusive lower bound on last_settled_at, UNIX microseconds', { type: 'integer' }),
        query('to_time', 'Inclusive upper bound on last_settled_at, UNIX microseconds', { type: 'integer' }),
        query('sports', 'Comma-separated, case-insensitive'),
        query('competitions', 'Comma-separated, case-insensitive'),
        LIMIT,
        CURSOR,
      ],
      responses: { 200: ok('MarketStatsList'), 400: error('Invalid parameter'), ...STANDARD_ERRORS },
    },
  },
  '/portfolio/loyalty': ledgerPath(
    'listLoyalty',
    'Loyalty rollup and referral entries, most recent first',
    'LoyaltyList',
  ),
  '/portfolio/withdrawals': ledgerPath(
    'listWithdrawals',
    'Withdrawals with payment method and reason, most recent first',
    'WithdrawalList',
  ),
  '/portfolio/fees': ledgerPath('listFees', 'Fee and fee refund entries, most recent first', 'FeeList'),
  '/portfolio/adjustments': ledgerPath('listAdjustments', 'Manual adjustments, most recent first', 'AdjustmentList'),
};

/** A public SVG image named by one path parameter: 200 with the image (ETag, Cache-Control), 304, or 404. */
const svgPath = (operationId: string, summary: string, param: string, image: string, unknown: string): Schema => ({
  get: {
    operationId,
    tags: ['public'],
    summary,
    security: [],
    parameters: [{ name: param, in: 'path', required: true, schema: { type: 'string' } }],
    responses: {
      200: {
        description: image,
        content: { 'image/svg+xml': { schema: { type: 'string' } } },
        headers: { ETag: { schema: { type: 'string' } }, 'Cache-Control': { schema: { type: 'string' } } },
      },
      304: { description: 'Not modified' },
      404: error(unknown),
    },
  },
});

/** Host-root paths (no credentials). */
const MEMBER_PUBLIC_OPENAPI_PATHS: Record<string, Schema> = {
  '/avatars/{handle}.svg': svgPath(
    'getAvatar',
    'A member avatar',
    'handle',
    'Deterministic SVG of the avatar',
    'Unknown handle',
  ),
  '/icons/sports/{sport}.svg': svgPath(
    'getSportIcon',
    'A sport icon',
    'sport',
    'SVG icon of the sport key',
    'Not a sport key',
  ),
};

const MEMBER_OPENAPI_SCHEMAS: Record<string, Schema> = MEMBER_COMPONENT_SCHEMAS;

export const memberOpenApi = {
  paths: MEMBER_OPENAPI_PATHS,
  publicPaths: MEMBER_PUBLIC_OPENAPI_PATHS,
  schemas: MEMBER_OPENAPI_SCHEMAS,
};
