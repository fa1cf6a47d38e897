// The token endpoint without HTTP or a database: a client_credentials token whose row cannot be
// stored is a 503 temporarily_unavailable with Retry-After (nothing was issued or consumed, the
// client asks again), never a 500 or a token that was not written.

import { expect } from 'chai';
import { createTokenEndpoint } from '../../../commands/oauth/tokenEndpoint.ts';
import type { OAuthDeps } from '../../../commands/oauth/deps.ts';
import type { OAuthRequest } from '../../../commands/oauth/http.ts';
import type { KnownClient } from '../../../commands/oauthClients/directory.ts';

const client: KnownClient = {
  client: {
    client_id: 'app-1',
    name: 'App',
    app_type: 'server',
    redirect_uris: [],
    scopes: ['market_data'],
    ip_allowlist: [],
    status: 'active',
    secret_hash: 'unused here',
    registered_by: 'admin',
    created_at: 0,
    updated_at: 0,
  },
  allowlist: null,
};

function endpointWith(saveTokens: () => Promise<void>, errors: unknown[]) {
  const deps = {
    clients: {
      get: async (id: string) => (id === 'app-1' ? client : null),
      verifySecret: (_k: KnownClient, secret: string) => secret === 's3cret',
    },
    tokens: { saveTokens },
    clock: { nowUs: () => 1_700_000_000_000_000 },
    settings: { get: () => ({ oauth_unavailable: false }) },
    onError: (error: unknown) => errors.push(error),
  } as unknown as OAuthDeps;
  return createTokenEndpoint(deps);
}

const request: OAuthRequest = {
  method: 'POST',
  headers: {
    'content-type': 'application/x-www-form-urlencoded',
    authorization: `Basic ${Buffer.from('app-1:s3cret').toString('base64')}`,
  },
  body: { grant_type: 'client_credentials' },
  remoteAddress: '127.0.0.1',
  issuer: 'http://localhost',
};

describe('token endpoint: client_credentials when the token cannot be stored', () => {
  it('answers 503 temporarily_unavailable with Retry-After and reports the failure', async () => {
    const errors: unknown[] = [];
    const answer = await endpointWith(() => Promise.reject(new Error('connection terminated')), errors).handle(request);
    expect(answer.status).to.equal(503);
    expect(answer.body).to.include({ error: 'temporarily_unavailable' });
    expect(answer.headers['Retry-After']).to.match(/^\d+$/);
    expect(JSON.stringify(answer.body)).to.not.include('svc_at_');
    expect(errors).to.have.length(1);
  });

  it('answers the token once its row is stored', async () => {
    let stored = 0;
    const answer = await endpointWith(async () => {
      stored += 1;
    }, []).handle(request);
    expect(answer.status).to.equal(200);
    expect(stored).to.equal(1);
    expect(answer.body).to.include({ token_type: 'bearer', expires_in: 3600, scope: 'market_data' });
  });
});
