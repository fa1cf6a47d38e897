// Every 401 from /api/v1 carries a WWW-Authenticate challenge (RFC 6750 §3, RFC 9728 §5.1) whose
// values are RFC 7235 quoted strings, so a strict client parses it: oauth4webapi's own parser
// (through protectedResourceRequest, which throws WWWAuthenticateChallengeError on a parsed
// challenge and answers the response as is when it cannot parse one). Concurrent requests, real HTTP.

import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { signedHeaders, USER_AGENT, useWholeService } from '../v1/harness.ts';

const BALANCE = '/api/v1/account/balance';

interface Challenge {
  scheme: string;
  parameters: Record<string, string>;
}

/** The challenges oauth4webapi parses from the answer to `headers` (null: none it could parse). */
async function challengesOf(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; challenges: Challenge[] | null }> {
  let status = 0;
  const customFetch = async (target: string) => {
    const answer = await fetch(target, { headers: { 'user-agent': USER_AGENT, ...headers } });
    status = answer.status;
    return answer;
  };
  try {
    // the token is only what oauth4webapi would send; customFetch sends `headers` instead
    await oauth.protectedResourceRequest('unused', 'GET', new URL(url), undefined, null, {
      [oauth.customFetch]: customFetch,
      [oauth.allowInsecureRequests]: true,
    });
    return { status, challenges: null };
  } catch (error) {
    if (error instanceof oauth.WWWAuthenticateChallengeError) return { status, challenges: error.cause as Challenge[] };
    throw error;
  }
}

describe('401 challenges on /api/v1', () => {
  const suite = useWholeService();

  it('no credentials, Bearer garbage, an unknown session, an unknown or forged API key, an admin token: each 401 has a parseable Bearer challenge', async () => {
    const metadata = `${suite.svc.base}/.well-known/oauth-protected-resource`;
    const nowMs = suite.svc.ctx.clock.nowUs() / 1000;
    const unknownKey = { key_id: randomUUID(), private_key: randomBytes(32).toString('base64') };
    const cases: Array<{ name: string; headers: Record<string, string>; invalidToken: boolean }> = [
      { name: 'no credentials', headers: {}, invalidToken: false },
      { name: 'Bearer garbage', headers: { authorization: 'Bearer garbage' }, invalidToken: true },
      {
        name: 'an unknown session token',
        headers: { authorization: `Bearer svc_st_${randomBytes(32).toString('base64url')}` },
        invalidToken: true,
      },
      { name: 'the admin token', headers: { authorization: `Bearer ${suite.svc.adminToken}` }, invalidToken: true },
      { name: 'an unknown API key id', headers: signedHeaders(unknownKey, 'GET', BALANCE, nowMs), invalidToken: false },
      {
        name: 'a signature by another key',
        headers: signedHeaders({ ...unknownKey, key_id: suite.alice.key.key_id }, 'GET', BALANCE, nowMs),
        invalidToken: false,
      },
    ];
    const answers = await Promise.all(cases.map((c) => challengesOf(`${suite.svc.base}${BALANCE}`, c.headers)));
    cases.forEach((c, i) => {
      const { status, challenges } = answers[i]!;
      expect(status, c.name).to.equal(401);
      expect(challenges, `${c.name}: a challenge oauth4webapi can parse`).to.not.equal(null);
      const bearer = challenges!.find((challenge) => challenge.scheme === 'bearer');
      expect(bearer, c.name).to.not.equal(undefined);
      expect(bearer!.parameters.resource_metadata, c.name).to.equal(metadata);
      if (c.invalidToken) expect(bearer!.parameters.error, c.name).to.equal('invalid_token');
      else expect(bearer!.parameters, c.name).to.not.have.property('error');
    });
  });

  it('the challenge is a strict RFC 7235 challenge: auth-params of tokens and quoted strings only', async () => {
    const answer = await fetch(`${suite.svc.base}${BALANCE}`, {
      headers: { 'user-agent': USER_AGENT, authorization: 'Bearer garbage' },
    });
    const header = answer.headers.get('www-authenticate') ?? '';
    const token = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
    const quotedString = '"(?:[^"\\\\]|\\\\.)*"';
    const param = `${token}\\s*=\\s*(?:${token}|${quotedString})`;
    expect(header).to.match(new RegExp(`^Bearer (${param})(\\s*,\\s*${param})*$`));
    expect(header).to.include(`resource_metadata="${suite.svc.base}/.well-known/oauth-protected-resource"`);
  });
});
