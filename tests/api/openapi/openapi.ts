// Validates answers against the service's own OpenAPI document (GET /api/v1/openapi.json):
// the response schema of the matching path, method and status.

import type { ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../../../api/v1/validation.ts';

type Json = Record<string, any>;

export class OpenApiChecker {
  private readonly ajv = createAjv();
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly templates: Array<{ template: string; pattern: RegExp }>;

  constructor(readonly document: Json) {
    this.ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(
        `^${template
          .replace(/[.*+?^$()|[\]\\]/g, '\\$&')
          .replace(/\\?\{[^}]+\\?\}/g, '[^/]+')
          .replace(/\{[^}]+\}/g, '[^/]+')}$`,
      ),
    }));
  }

  /**
   * Like check, for every answer a test receives: paths that are not routes (404) are skipped;
   * on a documented path the status must be documented too, and the body must match.
   */
  checkIfDocumented(method: string, pathWithQuery: string, status: number, body: unknown): void {
    const path = pathWithQuery.split('?')[0] as string;
    const found = this.templates.find((t) => t.template === path) ?? this.templates.find((t) => t.pattern.test(path));
    if (!found || !this.document.paths[found.template][method.toLowerCase()]) return;
    this.check(method, pathWithQuery, status, body);
  }

  /** Throws with ajv's errors when the body does not match the documented schema. */
  check(method: string, pathWithQuery: string, status: number, body: unknown): void {
    const path = pathWithQuery.split('?')[0] as string;
    const found = this.templates.find((t) => t.template === path) ?? this.templates.find((t) => t.pattern.test(path));
    if (!found) throw new Error(`no documented path for ${path}`);
    const operation = this.document.paths[found.template][method.toLowerCase()];
    if (!operation) throw new Error(`no documented ${method} ${found.template}`);
    const response = operation.responses[String(status)] ?? operation.responses.default;
    if (!response) throw new Error(`${method} ${found.template}: status ${status} is not documented`);
    const schema = response.content?.['application/json']?.schema;
    if (!schema) throw new Error(`${method} ${found.template} ${status}: no JSON schema`);
    const key = `${method} ${found.template} ${status}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      const rebased = JSON.parse(JSON.stringify(schema).replace(/"#\/components\//g, '"openapi.json#/components/'));
      validate = this.ajv.compile(rebased);
      this.compiled.set(key, validate);
    }
    if (!validate(body)) {
      throw new Error(
        `${key}: body does not match the OpenAPI schema: ${this.ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 800)}`,
      );
    }
  }
}
