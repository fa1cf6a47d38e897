// Request validation for /admin/v1: JSON schemas compiled once with ajv, and one formatter that
// turns the first failure into a 400 `{"error": "<field> ..."}`. Rule checks that need a value
// (positive amounts, whole cents) sit beside the schemas as small helpers.

import { Ajv, type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import {
  decimalOf,
  decimalText,
  formatCents,
  isDecimalText,
  isNegative,
  money,
  parseMaxPriceCents,
  parseMoneyAmount,
  parsePriceCents,
  round9,
} from '../../domain/money/decimal.ts';
import { isServiceTimeMs } from '../../domain/clock.ts';
import type { Request } from 'express';
import type { UnknownSubject } from '../../domain/errors.ts';
import { isUuid } from '../../domain/uuid.ts';
import { badRequest, httpErrorOf } from '../errors.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const ajv = new Ajv({ allErrors: false, strict: false, coerceTypes: false, useDefaults: false });
addFormats(ajv);
ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);

function fieldName(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .filter((part) => part !== '')
    .map((part, index) => (/^\d+$/.test(part) ? `[${part}]` : index === 0 ? part : `.${part}`))
    .join('');
  if (error.keyword === 'required') {
    const missing = (error.params as { missingProperty: string }).missingProperty;
    return path === '' ? missing : `${path}.${missing}`;
  }
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty: string }).additionalProperty;
    return path === '' ? extra : `${path}.${extra}`;
  }
  return path === '' ? 'body' : path;
}

/** One readable sentence for the first schema failure. */
function describeError(error: ErrorObject): string {
  const field = fieldName(error);
  switch (error.keyword) {
    case 'required':
      return `${field} is required`;
    case 'additionalProperties':
      return `${field} is not a known field`;
    case 'type': {
      const type = (error.params as { type: string | string[] }).type;
      const types = Array.isArray(type) ? type.join(' or ') : type;
      return `${field} must be ${types === 'object' ? 'an object' : types === 'array' ? 'an array' : `a ${types}`}`.replace(
        /\ba (integer|array|object)\b/,
        'an $1',
      );
    }
    case 'enum':
      return `${field} must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map(String).join(', ')}`;
    case 'format': {
      const format = (error.params as { format: string }).format;
      return format === 'decimal' ? `${field} must be a decimal string` : `${field} must be a ${format} string`;
    }
    case 'minLength':
      return `${field} must not be empty`;
    case 'minProperties':
      return 'body must contain at least one field';
    default:
      return `${field} ${error.message ?? 'is invalid'}`;
  }
}

/** The path's id, lowercased; one that is not a UUID names nothing (404 with `unknown`'s code, as an unknown one). */
export function pathId(req: Request, name: string, unknown: UnknownSubject['code']): string {
  const id = String(req.params[name]);
  if (!isUuid(id)) throw httpErrorOf({ code: unknown });
  return id.toLowerCase();
}

export function compile<T>(schema: JSONSchemaType<T> | Record<string, unknown>): ValidateFunction<T> {
  return ajv.compile<T>(schema as JSONSchemaType<T>);
}

/** Validates `body` (a JSON object is required) or throws a 400 naming the first problem. */
export function parseBody<T>(validate: ValidateFunction<T>, body: unknown): T {
  const value = body === undefined ? {} : body;
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw badRequest('body must be a JSON object');
  if (!validate(value)) {
    const first = validate.errors?.[0];
    throw badRequest(first ? describeError(first) : 'body is invalid');
  }
  return value;
}

/** A money amount (`amount`): a decimal string of whole cents, > 0, or signed and non-zero. */
export function parseMoney(raw: string, sign: 'positive' | 'nonzero'): string {
  const parsed = parseMoneyAmount(raw, sign === 'nonzero');
  if (!parsed.ok) throw httpErrorOf(parsed.error);
  return money(parsed.value);
}

/** A market's max_price: whole cents, within the engine's bounds. */
export function parseMaxPrice(raw: string): string {
  const parsed = parseMaxPriceCents(raw);
  if (!parsed.ok) throw httpErrorOf(parsed.error);
  return formatCents(parsed.value);
}

/** A price in dollars: whole cents, > 0 (the engine checks the market's max_price: 422). */
export function parsePrice(raw: string): string {
  const parsed = parsePriceCents(raw);
  if (!parsed.ok) throw httpErrorOf(parsed.error);
  return formatCents(parsed.value);
}

/** A contract count (`filled`): at least 0, rounded to nine places. */
export function parseContracts(field: string, raw: string): string {
  if (!isDecimalText(raw)) throw badRequest(`${field} must be a decimal string`);
  const value = round9(decimalOf(raw));
  if (isNegative(value)) throw badRequest(`${field} must be at least 0`);
  return decimalText(value);
}

/** date-time → UNIX microseconds (the schema has already checked the format). */
export function dateTimeToUs(field: string, raw: string): number {
  const ms = Date.parse(raw);
  if (Number.isNaN(ms)) throw badRequest(`${field} must be a date-time string`);
  if (!isServiceTimeMs(ms)) throw badRequest(`${field} must be between 1970 and 2200`);
  return ms * 1000;
}

/** The listed fields the body holds (absent ones stay absent, so the command's defaults or the stored values apply). */
export function optional<T extends object, K extends keyof T>(body: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (body[key] !== undefined) out[key] = body[key];
  return out;
}
