// The transport-free credential resolver: signed keys, bearer tokens through the resolvers in
// order, account status, and typed refusals, with no HTTP and no database (ports are fakes).

import { expect } from 'chai';
import { ed25519 } from '@noble/curves/ed25519.js';
import {
  createCredentialResolver,
  type CredentialRequest,
  type TokenResolver,
} from '../../../commands/auth/credentials.ts';
import { publicKeyObject } from '../../../commands/credentials/ed25519.ts';
import type { ApiKeyEntry } from '../../../commands/credentials/index.ts';

const NOW_MS = 1_800_000_000_000;
const seed = new Uint8Array(32).fill(7);
const key: ApiKeyEntry = {
  key_id: 'key-1',
  account_id: 'acct-1',
  scope: 'read_write',
  public_key: '',
  keyObject: publicKeyObject(ed25519.getPublicKey(seed)),
  revoked_at_us: null,
};

function request(
  headers: Record<string, string>,
  method = 'GET',
  pathWithQuery = '/api/v1/orders?status=open',
): CredentialRequest {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { method, pathWithQuery, header: (name) => lower[name], remoteAddress: '10.0.0.1' };
}
function signed(method: string, pathWithQuery: string, timestampMs = NOW_MS): Record<string, string> {
  const signature = ed25519.sign(new TextEncoder().encode(`${timestampMs}${method}${pathWithQuery}`), seed);
  return {
    'User-Agent': 'test',
    'X-SVC-ACCESS-KEY': 'key-1',
    'X-SVC-ACCESS-TIMESTAMP': String(timestampMs),
    'X-SVC-ACCESS-SIGNATURE': Buffer.from(signature).toString('base64'),
  };
}

function resolverWith(options: { status?: string; tokenResolvers?: TokenResolver[]; failingAccounts?: boolean } = {}) {
  return createCredentialResolver({
    clock: { nowUs: () => NOW_MS * 1000 },
    keys: { keyCached: (id) => (id === 'key-1' ? key : undefined), key: async () => undefined },
    accounts: {
      statusOf: async (id) => {
        if (options.failingAccounts) throw new Error('connection refused');
        return id === 'acct-1' || id === 'acct-2'
          ? { user_id: `user-of-${id}`, status: options.status ?? 'active' }
          : undefined;
      },
    },
    tokenResolvers: options.tokenResolvers ?? [],
  });
}

describe('credential resolver (commands/auth)', () => {
  it('resolves a signed request to the member behind the key', async () => {
    const result = await resolverWith().resolve(request(signed('GET', '/api/v1/orders?status=open')));
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.principal).to.deep.include({
      kind: 'member',
      account_id: 'acct-1',
      user_id: 'user-of-acct-1',
      method: 'api_key',
      key_id: 'key-1',
      key_scope: 'read_write',
    });
  });

  it('refuses a signature over another path, an old timestamp and no User-Agent', async () => {
    const resolver = resolverWith();
    expect(await resolver.resolve(request(signed('GET', '/api/v1/orders')))).to.deep.equal({
      ok: false,
      refusal: { code: 'api_key_invalid' },
    });
    expect(await resolver.resolve(request(signed('GET', '/api/v1/orders?status=open', NOW_MS - 31_000)))).to.deep.equal(
      { ok: false, refusal: { code: 'api_key_invalid' } },
    );
    const { 'User-Agent': _ua, ...noAgent } = signed('GET', '/api/v1/orders?status=open');
    expect(await resolver.resolve(request(noAgent))).to.deep.equal({
      ok: false,
      refusal: { code: 'user_agent_required' },
    });
  });

  it('names the account status of an inactive account, and answers unavailable when its store fails', async () => {
    expect(
      await resolverWith({ status: 'suspended' }).resolve(request(signed('GET', '/api/v1/orders?status=open'))),
    ).to.deep.equal({ ok: false, refusal: { code: 'account_inactive', status: 'suspended' } });
    expect(
      await resolverWith({ failingAccounts: true }).resolve(request(signed('GET', '/api/v1/orders?status=open'))),
    ).to.deep.equal({ ok: false, refusal: { code: 'unavailable' } });
  });

  it('tries the token resolvers in order; an app token has no member; nobody recognising it is unauthorized', async () => {
    const sessions: TokenResolver = async (token) =>
      token.startsWith('st_')
        ? { account_id: 'acct-2', source: 'session', scopes: new Set(['orders.read']), client_id: null, token_id: 's1' }
        : null;
    const oauth: TokenResolver = async (token) => {
      if (!token.startsWith('at_')) return null;
      if (token === 'at_blocked') return { code: 'ip_not_allowed' };
      return {
        account_id: null,
        source: 'oauth',
        scopes: new Set(['market_data']),
        client_id: 'client-1',
        token_id: 't1',
      };
    };
    const resolver = resolverWith({ tokenResolvers: [sessions, oauth] });
    const bearer = (token: string) => request({ 'User-Agent': 'test', Authorization: `Bearer ${token}` });
    const session = await resolver.resolve(bearer('st_abc'));
    expect(session.ok && session.principal).to.deep.include({
      kind: 'member',
      account_id: 'acct-2',
      method: 'bearer',
      source: 'session',
    });
    const app = await resolver.resolve(bearer('at_abc'));
    expect(app.ok && app.principal).to.deep.include({ kind: 'app', account_id: null, client_id: 'client-1' });
    expect(await resolver.resolve(bearer('at_blocked'))).to.deep.equal({
      ok: false,
      refusal: { code: 'ip_not_allowed' },
    });
    expect(await resolver.resolve(bearer('zz_unknown'))).to.deep.equal({
      ok: false,
      refusal: { code: 'unauthorized' },
    });
    expect(await resolver.resolve(request({ 'User-Agent': 'test' }))).to.deep.equal({
      ok: false,
      refusal: { code: 'unauthorized' },
    });
    // the WebSocket header carries the raw token
    const raw = await resolver.resolveToken('at_abc', request({ 'User-Agent': 'test' }));
    expect(raw.ok && raw.principal.kind).to.equal('app');
  });

  it('applies the API-key rules whenever any signing header is present, even beside a bearer token', async () => {
    const result = await resolverWith({
      tokenResolvers: [
        async () => ({ account_id: 'acct-2', source: 'session', scopes: new Set(), client_id: null, token_id: null }),
      ],
    }).resolve(request({ 'User-Agent': 'test', Authorization: 'Bearer st_abc', 'X-SVC-ACCESS-KEY': 'key-1' }));
    expect(result).to.deep.equal({ ok: false, refusal: { code: 'api_key_invalid' } });
  });
});
