// bench:oauth: the authorization server's token endpoint and OAuth bearer requests, against
// references measured by the same load generator in the same run (figures move between runs on a
// shared 2-core machine; the ratios are what compare):
//   token_per_s, token_p99_ms      client_credentials at /oauth/token, 50 connections
//   bearer_get_per_s                GET /api/v1/me with a member's OAuth access token
//   oidc_provider_token_per_s       oidc-provider (one client_credentials client), same load
//   express_hello_per_s             an express 5 hello-world, same load
// The last line is a JSON object with those and token_vs_oidc_provider, bearer_get_vs_express:
// medians of BENCH_OAUTH_ROUNDS (3) rounds in which the four phases alternate.

import { randomBytes } from 'node:crypto';
import { startChildService, startReference } from './support/childService.ts';
import { LoadClient } from './support/loadClient.ts';
import { memberAccessToken } from '../tests/oauth/support.ts';
import { percentile, round, runPool } from './support/pool.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REQUESTS = Number(process.env.BENCH_OAUTH_REQUESTS ?? 10_000);
const ROUNDS = Number(process.env.BENCH_OAUTH_ROUNDS ?? 3);
/** Per-account request limits for the bench's accounts (settings `rate_limits`): far above any rate it reaches. */
const BENCH_RATE_LIMIT_PER_SECOND = 1_000_000;
const WARMUP = Math.min(2_000, Math.floor(REQUESTS / 5));
const REDIRECT = 'http://127.0.0.1:8976/callback';
/** BENCH_OAUTH_PHASES=token,bearer (for profiling one path); the ratios need all four. */
const PHASES = new Set((process.env.BENCH_OAUTH_PHASES ?? 'token,bearer,oidc,hello').split(','));

/** Drives `total` requests over CONNECTIONS connections; requests/s and latency percentiles (non-200s counted). */
async function drive(
  url: URL,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  total = REQUESTS,
) {
  const client = new LoadClient(url.hostname, Number(url.port), CONNECTIONS);
  const run = (count: number) =>
    runPool(count, CONNECTIONS, async () => (await client.request(method, path, headers, body)).status);
  await run(WARMUP);
  const measured = await run(total);
  client.close();
  if (measured.failures > 0)
    throw new Error(`${method} ${url.origin}${path}: ${measured.failures} answers were not 200`);
  return {
    perS: round((total / measured.elapsedMs) * 1000, 0),
    p50: round(percentile(measured.latenciesMs, 50)),
    p99: round(percentile(measured.latenciesMs, 99)),
  };
}

async function admin(base: URL, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(new URL(`/admin/v1${path}`, base), {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** A member's access token through the real code flow (login and consent pages, PKCE). */
async function memberToken(service: { baseUrl: URL; adminUrl: URL; adminToken: string }): Promise<string> {
  const password = 'bench password 123';
  const email = `bench-${Date.now()}@example.com`;
  await admin(service.adminUrl, service.adminToken, 'POST', '/accounts', {
    first_name: 'Bench',
    last_name: 'Member',
    email,
    password,
    status: 'active',
  });
  const address = {
    baseUrl: service.baseUrl.origin,
    adminUrl: service.adminUrl.origin,
    adminToken: service.adminToken,
  };
  return (await memberAccessToken(address, { email, password }, 'profile.read', REDIRECT)).token;
}

interface Phase {
  name: 'token' | 'bearer' | 'oidc' | 'hello';
  label: string;
  run: () => Promise<{ perS: number; p50: number; p99: number }>;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  process.stderr.write(
    `bench:oauth: ${ROUNDS} rounds of ${REQUESTS} requests per phase over ${CONNECTIONS} connections; medians\n`,
  );
  // Every server runs for the whole bench and the phases alternate round by round, so a change in
  // the machine's load falls on all of them alike; the medians are what the ratios compare.
  const service = await startChildService();
  const secret = randomBytes(24).toString('hex');
  const oidc = PHASES.has('oidc')
    ? await startReference('bench/support/oidcProvider.mjs', ['bench-client', secret])
    : null;
  const hello = PHASES.has('hello') ? await startReference('bench/support/hello.mjs') : null;
  const results: Record<string, number> = {};
  try {
    // the per-account request limits raised far above what the bench sends (it measures their check, not their refusals)
    await admin(service.adminUrl, service.adminToken, 'PATCH', '/settings', {
      rate_limits: { read_per_second: BENCH_RATE_LIMIT_PER_SECOND, write_per_second: BENCH_RATE_LIMIT_PER_SECOND },
    });
    const { client } = await admin(service.adminUrl, service.adminToken, 'POST', '/oauth/clients', {
      name: 'Bench server',
      app_type: 'server',
      scopes: ['market_data'],
    });
    const tokenHeaders = {
      authorization: basic(client.client_id, client.client_secret),
      'content-type': 'application/x-www-form-urlencoded',
    };
    const access = PHASES.has('bearer') ? await memberToken(service) : '';
    const phases: Phase[] = [
      {
        name: 'token',
        label: 'token (client_credentials)',
        run: () => drive(service.baseUrl, 'POST', '/oauth/token', tokenHeaders, 'grant_type=client_credentials'),
      },
      {
        name: 'oidc',
        label: 'oidc-provider token (client_credentials)',
        run: () =>
          drive(
            oidc!.url,
            'POST',
            '/token',
            { authorization: basic('bench-client', secret), 'content-type': 'application/x-www-form-urlencoded' },
            'grant_type=client_credentials&scope=market_data',
          ),
      },
      {
        name: 'bearer',
        label: 'GET /api/v1/me with an OAuth token',
        run: () =>
          drive(service.baseUrl, 'GET', '/api/v1/me', {
            authorization: `Bearer ${access}`,
            'user-agent': 'bench-oauth',
          }),
      },
      {
        name: 'hello',
        label: 'express hello-world',
        run: () => drive(hello!.url, 'GET', '/hello', { 'user-agent': 'bench-oauth' }),
      },
    ].filter((phase) => PHASES.has(phase.name)) as Phase[];
    const figures = new Map<string, { perS: number[]; p99: number[] }>();
    for (let round = 1; round <= ROUNDS; round += 1) {
      for (const phase of phases) {
        const figure = await phase.run();
        process.stderr.write(
          `round ${round} ${phase.label}: ${figure.perS}/s p50 ${figure.p50} ms p99 ${figure.p99} ms\n`,
        );
        const entry = figures.get(phase.name) ?? { perS: [], p99: [] };
        entry.perS.push(figure.perS);
        entry.p99.push(figure.p99);
        figures.set(phase.name, entry);
      }
    }
    const perS = (name: string) => median(figures.get(name)?.perS ?? [NaN]);
    const p99 = (name: string) => median(figures.get(name)?.p99 ?? [NaN]);
    if (PHASES.has('token')) Object.assign(results, { token_per_s: perS('token'), token_p99_ms: p99('token') });
    if (PHASES.has('bearer'))
      Object.assign(results, { bearer_get_per_s: perS('bearer'), bearer_get_p99_ms: p99('bearer') });
    if (oidc) results.oidc_provider_token_per_s = perS('oidc');
    if (hello) results.express_hello_per_s = perS('hello');
    if (PHASES.has('token') && oidc) results.token_vs_oidc_provider = round(perS('token') / perS('oidc'), 3);
    if (PHASES.has('bearer') && hello) results.bearer_get_vs_express = round(perS('bearer') / perS('hello'), 3);
  } finally {
    await service.stop();
    await oidc?.stop();
    await hello?.stop();
  }
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:oauth failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
