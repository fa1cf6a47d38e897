// The headers of a 429 from /api/v1, as the OpenAPI document lists them (trading and member routes).

export const RATE_LIMIT_HEADERS: Record<string, unknown> = {
  'Retry-After': { description: 'Seconds until the request would be taken', schema: { type: 'integer' } },
  'RateLimit-Limit': {
    description: 'Requests the bucket holds (two seconds of the rate)',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left in the bucket (0)', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the bucket is full again', schema: { type: 'integer' } },
};
