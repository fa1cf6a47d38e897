// The route → scope table as the OpenAPI document states it (per operation `security`), and TOTP
// codes by RFC 6238's own test vectors.

import { expect } from 'chai';
import { v1OpenApiDocument } from '../../../api/v1/router.ts';
import { routeScopeOf } from '../../../domain/auth/routeScopes.ts';
import { base32Decode, base32Encode, hotp, matchTotp } from '../../../domain/auth/totp.ts';

describe('OAuth scopes in the OpenAPI document', () => {
  const doc = v1OpenApiDocument() as {
    paths: Record<string, Record<string, { security?: unknown[] }>>;
    components: { securitySchemes: Record<string, unknown> };
  };
  const oauthScopeOf = (path: string, method: string) =>
    (doc.paths[path]?.[method]?.security ?? [])
      .map((entry) => (entry as { OAuth2?: string[] }).OAuth2)
      .find((s) => s !== undefined);

  it('each operation names the scope that covers it; PATCH /me/profile none', () => {
    expect(oauthScopeOf('/api/v1/orders', 'post')).to.deep.equal(['orders.write']);
    expect(oauthScopeOf('/api/v1/orders', 'get')).to.deep.equal(['orders.read']);
    expect(oauthScopeOf('/api/v1/markets', 'get')).to.deep.equal(['market_data']);
    expect(oauthScopeOf('/api/v1/account/balance', 'get')).to.deep.equal(['balance.read']);
    expect(oauthScopeOf('/api/v1/me/profile', 'patch')).to.equal(undefined);
    expect(doc.components.securitySchemes).to.have.property('OAuth2');
  });

  it('route matching: one segment for {id}, trailing slash, unknown paths', () => {
    expect(routeScopeOf('GET', '/orders/abc')?.scope).to.equal('orders.read');
    expect(routeScopeOf('GET', '/orders/abc/def')).to.equal(undefined);
    expect(routeScopeOf('GET', '/fills/')?.scope).to.equal('portfolio.read');
    expect(routeScopeOf('GET', '/trades')).to.equal(undefined);
  });
});

describe('TOTP (RFC 6238)', () => {
  const secret = Buffer.from('12345678901234567890');

  it("RFC 6238's SHA-1 test vectors (last six digits)", () => {
    const vectors: [number, string][] = [
      [59, '287082'],
      [1111111109, '081804'],
      [1111111111, '050471'],
      [1234567890, '005924'],
      [2000000000, '279037'],
    ];
    for (const [seconds, code] of vectors) expect(hotp(secret, Math.floor(seconds / 30))).to.equal(code);
  });

  it('one step of drift either way; a used step and earlier ones are refused', () => {
    const now = 1111111111 * 1000;
    const step = Math.floor(now / 30_000);
    expect(matchTotp(secret, hotp(secret, step), now, null)).to.equal(step);
    expect(matchTotp(secret, hotp(secret, step - 1), now, null)).to.equal(step - 1);
    expect(matchTotp(secret, hotp(secret, step + 1), now, null)).to.equal(step + 1);
    expect(matchTotp(secret, hotp(secret, step - 2), now, null)).to.equal(null);
    expect(matchTotp(secret, hotp(secret, step), now, step)).to.equal(null);
    expect(matchTotp(secret, 'abcdef', now, null)).to.equal(null);
  });

  it('base32 round trip', () => {
    const text = base32Encode(secret);
    expect(text).to.equal('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode(text)?.equals(secret)).to.equal(true);
    expect(base32Decode('not base32!')).to.equal(null);
  });
});
