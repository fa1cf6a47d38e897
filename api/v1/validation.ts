// ajv on the request path: one shared instance, validators compiled once, and ajv's first error
// turned into a short `{error}` text naming the field (`orders[2].price must be a string or null`).

import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { badRequest } from '../errors.ts';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv2020,
) => Ajv2020;

/** A JSON Schema 2020-12 validator factory shared by the API and the tests. */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: true });
  addFormats(ajv);
  return ajv;
}

const ajv = createAjv();

export function compile<T>(schema: Record<string, unknown>): ValidateFunction<T> {
  return ajv.compile<T>(schema);
}

function fieldPath(instancePath: string): string {
  const parts = instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let out = '';
  for (const part of parts) out += /^\d+$/.test(part) ? `[${part}]` : out === '' ? part : `.${part}`;
  return out;
}

const article = (type: string) => (/^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`);

/** One human sentence for ajv's first error. */
export function describeError(error: ErrorObject, subject = 'Request body'): string {
  const at = fieldPath(error.instancePath);
  const name = at === '' ? subject : at;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required': {
      const missing = String(params.missingProperty);
      return `${at === '' ? missing : `${at}.${missing}`} is required`;
    }
    case 'type': {
      const types = String(params.type).split(',');
      return `${name} must be ${types.map((t) => (t === 'null' ? 'null' : article(t))).join(' or ')}`;
    }
    case 'enum':
      return `${name} must be one of: ${(params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}`;
    case 'format':
      return params.format === 'uuid' ? `${name} must be a UUID` : `${name} must be a valid ${String(params.format)}`;
    case 'pattern':
      return `${name} must be a decimal string`;
    case 'minItems':
      return `${name} must not be empty`;
    case 'maxItems':
      return `${name} must hold at most ${String(params.limit)} items`;
    case 'maxLength':
      return `${name} must be at most ${String(params.limit)} characters`;
    case 'minimum':
      return `${name} must be at least ${String(params.limit)}`;
    default:
      return `${name} is invalid`;
  }
}

/** Validates or throws 400 with the first error. */
export function check<T>(validate: ValidateFunction<T>, value: unknown, subject?: string): T {
  if (validate(value)) return value;
  const first = validate.errors?.[0];
  throw badRequest(first ? describeError(first, subject) : `${subject ?? 'Request body'} is invalid`);
}
