// The client's types are generated from the service's OpenAPI document: this fails when the
// committed client/src/generated/openapi.ts differs from what `npm run generate` (in client/)
// writes for the document the service builds now. Fix: run `npm run generate -w client`.

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { v1OpenApiDocument } from '../../api/v1/router.ts';
import { generate } from '../../client/scripts/generate.mjs';

describe('client: generated OpenAPI types', function () {
  this.timeout(60_000);

  it('client/src/generated/openapi.ts is what the generator writes for the current document (else: npm run generate -w client)', async () => {
    const committed = readFileSync(new URL('../../client/src/generated/openapi.ts', import.meta.url), 'utf8');
    const fresh = await generate(JSON.parse(JSON.stringify(v1OpenApiDocument())));
    expect(
      committed === fresh,
      'client/src/generated/openapi.ts is stale: run `npm run generate -w client` and commit it',
    ).to.equal(true);
  });
});
