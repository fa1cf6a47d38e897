// Query strings of the list routes, read from the raw request target (independent of the
// app's query parser, so `sort_by[name]` is a plain key). Comma-separated list parameters may
// also be repeated; a scalar parameter given twice is 400. The normalized object is then checked
// by ajv against the route's published parameter schemas.

import type { Request } from 'express';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { badRequest } from '../errors.ts';
import { parseLimit } from '../pagination.ts';
import { compile, describeError } from './validation.ts';

type ParamKind = 'csv' | 'string';

export interface QueryParam {
  name: string;
  kind: ParamKind;
  /** JSON Schema of the value: the item schema for csv params, the value schema otherwise. */
  schema: Record<string, unknown>;
  description: string;
  /** Schema shown in the OpenAPI document when it differs from the checked one. */
  published?: Record<string, unknown>;
  /** csv items kept exactly as sent (free-form references): no trimming of spaces. */
  verbatim?: boolean;
}

export interface QuerySpec {
  params: QueryParam[];
  validate: ValidateFunction;
}

export const LIMIT_PARAM: QueryParam = {
  name: 'limit',
  kind: 'string',
  schema: { type: 'string' },
  published: { type: 'integer' },
  description: 'Rows per page; default 100, silently clamped to 200',
};
/** A comma-separated list of UUIDs (read with uuidsOf). */
export const uuidListParam = (name: string, description: string): QueryParam => ({
  name,
  kind: 'csv',
  schema: { type: 'string', format: 'uuid' },
  description,
});

export const CURSOR_PARAM: QueryParam = {
  name: 'cursor',
  kind: 'string',
  schema: { type: 'string', maxLength: 512 },
  description: 'Opaque cursor from the previous page',
};

export function querySpec(params: QueryParam[]): QuerySpec {
  const properties: Record<string, unknown> = {};
  for (const param of params) {
    properties[param.name] =
      param.kind === 'csv' ? { type: 'array', items: param.schema, maxItems: 500 } : param.schema;
  }
  return { params, validate: compile({ type: 'object', properties }) };
}

/** A paged list's query: its filters, then `limit` and `cursor`. */
export const pagedQuerySpec = (filters: QueryParam[]): QuerySpec => querySpec([...filters, LIMIT_PARAM, CURSOR_PARAM]);

/** The raw query string of a request, parsed (`+` as space, percent-decoding). */
function searchParamsOf(req: Request): URLSearchParams {
  const at = req.originalUrl.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
}

/** Reads and checks the route's parameters; unknown parameters are ignored. */
export function readQuery(req: Request, spec: QuerySpec): Record<string, string | string[] | undefined> {
  const search = searchParamsOf(req);
  const out: Record<string, string | string[] | undefined> = {};
  for (const param of spec.params) {
    const values = [...search.getAll(param.name), ...search.getAll(`${param.name}[]`)];
    if (values.length === 0) continue;
    if (param.kind === 'csv') {
      const items = values
        .flatMap((v) => v.split(','))
        .map((v) => (param.verbatim ? v : v.trim()))
        .filter((v) => v !== '');
      if (items.length > 0) out[param.name] = items;
    } else {
      if (values.length > 1) throw badRequest(`${param.name} must be given once`);
      out[param.name] = values[0];
    }
  }
  if (!spec.validate(out)) {
    const first = spec.validate.errors?.[0];
    throw badRequest(
      first
        ? describeError({ ...first, instancePath: first.instancePath.replace(/\/\d+$/, '') })
        : 'Invalid query parameter',
    );
  }
  return out;
}

export function pageParamsOf(query: Record<string, string | string[] | undefined>): {
  limit: number;
  cursor: string | undefined;
} {
  const cursor = query.cursor;
  return { limit: parseLimit(query.limit), cursor: typeof cursor === 'string' && cursor !== '' ? cursor : undefined };
}

export const csvOf = (value: string | string[] | undefined): string[] | undefined =>
  Array.isArray(value) ? value : undefined;
/** A UUID list's ids, lowercased (undefined when not given). */
export const uuidsOf = (value: string | string[] | undefined): string[] | undefined =>
  csvOf(value)?.map((id) => id.toLowerCase());
export const stringOf = (value: string | string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;
