// OAuth metadata (docs/OAUTH.md; RFC 8414, RFC 9728, RFC 9207): every field
// the service publishes, built on the host the document is fetched from; forwarded headers only from a
// trusted proxy; registration_endpoint only while dynamic registration is on.

import { expect } from 'chai';
import http from 'node:http';
import { useTestService } from '../support/service.ts';

/** A GET with any Host header (fetch would not let us set it). */
function get(base: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${path}`, { headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null }));
      })
      .on('error', reject);
  });
}

const AS = '/.well-known/oauth-authorization-server';
const PR = '/.well-known/oauth-protected-resource';
const SCOPES = [
  'profile.read',
  'balance.read',
  'portfolio.read',
  'orders.read',
  'transfers.read',
  'orders.write',
  'terms.write',
  'market_data',
  'events',
];

describe('OAuth metadata', () => {
  describe('without trusted proxies', () => {
    const suite = useTestService();

    it('authorization server metadata has every field it publishes, on the Host it was fetched from', async () => {
      const { status, body } = await get(suite.service.baseUrl, AS, { host: 'exchange.example:8443' });
      expect(status).to.equal(200);
      const base = 'http://exchange.example:8443';
      expect(body).to.deep.include({
        issuer: base,
        authorization_endpoint: `${base}/oauth/authorize`,
        token_endpoint: `${base}/oauth/token`,
        revocation_endpoint: `${base}/oauth/revoke`,
        introspection_endpoint: `${base}/oauth/introspect`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
        authorization_response_iss_parameter_supported: true,
      });
      expect(body.scopes_supported).to.have.members(SCOPES);
      expect(body).to.not.have.property('registration_endpoint');
    });

    it('protected resource metadata: resource is the base URL, one authorization server on the same host', async () => {
      const { status, body } = await get(suite.service.baseUrl, PR, { host: 'api.exchange.example' });
      expect(status).to.equal(200);
      expect(body).to.deep.equal({
        resource: 'http://api.exchange.example',
        authorization_servers: ['http://api.exchange.example'],
        scopes_supported: SCOPES,
        bearer_methods_supported: ['header'],
        resource_name: body.resource_name,
      });
      expect(body.resource_name).to.be.a('string').and.not.equal('');
    });

    it('ignores forwarded headers from an untrusted peer, and a malformed Host', async () => {
      const forwarded = await get(suite.service.baseUrl, AS, {
        host: 'real.example',
        'x-forwarded-host': 'evil.example',
        'x-forwarded-proto': 'https',
      });
      expect(forwarded.body.issuer).to.equal('http://real.example');
      const injected = await get(suite.service.baseUrl, AS, { host: 'evil.example/path?x=' });
      expect(injected.body.issuer).to.equal('http://localhost');
    });

    it('lists registration_endpoint only while dynamic registration is on', async () => {
      const admin = (body: unknown) =>
        fetch(`${suite.service.adminUrl}/admin/v1/settings`, {
          method: 'PATCH',
          headers: { authorization: `Bearer ${suite.service.adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await admin({ dynamic_registration: true })).status).to.equal(200);
      expect((await get(suite.service.baseUrl, AS, { host: 'h.example' })).body.registration_endpoint).to.equal(
        'http://h.example/oauth/register',
      );
      expect((await admin({ dynamic_registration: false })).status).to.equal(200);
      expect((await get(suite.service.baseUrl, AS, { host: 'h.example' })).body).to.not.have.property(
        'registration_endpoint',
      );
    });
  });

  describe('behind a trusted proxy', () => {
    const suite = useTestService({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } });

    it('builds on X-Forwarded-Proto and X-Forwarded-Host from the proxy', async () => {
      const { body } = await get(suite.service.baseUrl, PR, {
        host: 'internal:8080',
        'x-forwarded-host': 'exchange.example',
        'x-forwarded-proto': 'https',
      });
      expect(body.resource).to.equal('https://exchange.example');
      expect(body.authorization_servers).to.deep.equal(['https://exchange.example']);
    });
  });
});
