// The `limit` query parameter of list endpoints (cursors themselves are projections/pagination.ts).

import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../projections/pagination.ts';
import { badRequest } from './errors.ts';

export { pageOf } from '../projections/pagination.ts';

/** `limit` query value → rows per page: default 100, silently clamped to 1..200; junk is 400. */
export function parseLimit(raw: unknown, max = PAGE_LIMIT_MAX, fallback = PAGE_LIMIT_DEFAULT): number {
  if (raw === undefined || raw === '') return Math.min(fallback, max);
  if (typeof raw !== 'string' || !/^-?\d+$/.test(raw)) throw badRequest('limit must be an integer');
  const value = Number(raw);
  if (value < 1) return 1;
  return Math.min(value, max);
}
