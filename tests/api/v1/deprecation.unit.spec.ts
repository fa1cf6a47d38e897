// The deprecation mechanism: a route flagged `deprecated` in the route table answers with
// `Deprecation` and `Sunset` headers and is `deprecated: true` in the OpenAPI document.
// No trading route is deprecated today, so a test-only route exercises it.

import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { expect } from 'chai';
import express, { Router } from 'express';
import type { AppContext } from '../../../commands/context.ts';
import { buildOpenApiDocument } from '../../../api/openapi/document.ts';
import { mountRoutes } from '../../../api/v1/router.ts';
import type { RouteSpec } from '../../../api/v1/routes.ts';

const legacy: RouteSpec = {
  method: 'get',
  path: '/legacy/things',
  operationId: 'listLegacyThings',
  summary: 'Test-only deprecated route',
  deprecated: { since: '2026-01-01T00:00:00Z', sunset: '2026-07-01T00:00:00Z', link: 'https://example.com/migrate' },
  response: 'Error',
  errors: [401],
  handler: async () => ({ status: 200, body: { error: 'still here' } }),
};
const current: RouteSpec = {
  ...legacy,
  path: '/current/things',
  operationId: 'listCurrentThings',
  deprecated: undefined,
};

describe('route deprecation', () => {
  let server: Server;
  let base: string;
  before(async () => {
    const app = express();
    app.use(mountRoutes(Router(), {} as AppContext, [legacy, current]));
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a deprecated route answers with Deprecation, Sunset and Link headers', async () => {
    const res = await fetch(`${base}/legacy/things`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('deprecation')).to.equal(`@${Date.parse('2026-01-01T00:00:00Z') / 1000}`);
    expect(res.headers.get('sunset')).to.equal('Wed, 01 Jul 2026 00:00:00 GMT');
    expect(res.headers.get('link')).to.equal('<https://example.com/migrate>; rel="deprecation"');
  });

  it('a route that is not deprecated carries neither header', async () => {
    const res = await fetch(`${base}/current/things`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('deprecation')).to.equal(null);
    expect(res.headers.get('sunset')).to.equal(null);
  });

  it('the OpenAPI document flags exactly the deprecated operation', () => {
    const doc = buildOpenApiDocument([legacy, current]) as {
      paths: Record<string, Record<string, { deprecated?: boolean }>>;
    };
    expect(doc.paths['/api/v1/legacy/things']?.get?.deprecated).to.equal(true);
    expect(doc.paths['/api/v1/current/things']?.get?.deprecated).to.equal(undefined);
  });
});
