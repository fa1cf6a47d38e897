// Random bodies on every admin route, against the whole service: the answer is always one of
// 200, 400, 404 or 422 with an `error` string, never a 500.

import { expect } from 'chai';
import fc from 'fast-check';
import { useServiceClient } from './http.ts';

const RUNS_PER_ROUTE = 25;

const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    '1.00',
    '0.50',
    '-3.25',
    '0.001',
    '1e3',
    '100',
    '0',
    ' 1',
    'win',
    'open',
    'web',
    'read_write',
    'weekly',
    'all',
    'volume',
  ),
  fc.constantFrom('2030-01-01T00:00:00Z', '1960-01-01T00:00:00Z', 'not a date'),
  fc.uuid(),
  fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 3 }),
);

function bodyOf(fields: string[]) {
  return fc.oneof(
    fc.dictionary(fc.constantFrom(...fields), value, { maxKeys: fields.length }),
    value,
    fc.constantFrom('{"broken":', '[]', '"text"'),
  );
}

describe('admin API: random input never gets a 500', function () {
  this.timeout(300_000);
  const suite = useServiceClient();
  const ids: Record<string, string> = {};

  before(async () => {
    const account = (await suite.client.ok('POST', '/accounts', {})).account;
    await suite.client.ok('POST', `/accounts/${account.account_id}/deposits`, { amount: '50.00' });
    const { event, market } = await suite.client.listEventAndMarket(
      { title: 'Fuzz v Tests', start: '2031-01-01T00:00:00Z' },
      { title: 'Fuzz to win', status: 'open' },
    );
    const client1 = (
      await suite.client.ok('POST', '/oauth/clients', { name: 'Fuzz', app_type: 'web', scopes: ['events'] })
    ).client;
    Object.assign(ids, {
      account: account.account_id,
      event: event.event_id,
      market: market.market_id,
      client: client1.client_id,
    });
  });

  const routes: Array<[string, (id: string) => string, string, string[]]> = [
    [
      'POST',
      () => '/accounts',
      'account',
      [
        'first_name',
        'last_name',
        'email',
        'password',
        'status',
        'jurisdiction',
        'fee_schedule',
        'base_fee_percent',
        'maker_factor',
        'taker_factor',
        'created_at',
      ],
    ],
    [
      'PATCH',
      (id) => `/accounts/${id}`,
      'account',
      ['first_name', 'status', 'fee_schedule', 'base_fee_percent', 'created_at'],
    ],
    ['POST', (id) => `/accounts/${id}/deposits`, 'account', ['amount']],
    ['POST', (id) => `/accounts/${id}/withdrawals`, 'account', ['amount', 'method', 'reason', 'sub_method']],
    ['POST', (id) => `/accounts/${id}/adjustments`, 'account', ['amount', 'reason']],
    ['POST', (id) => `/accounts/${id}/api_keys`, 'account', ['scope', 'public_key']],
    ['POST', (id) => `/accounts/${id}/sessions`, 'account', ['expires_in']],
    ['POST', () => '/events', 'event', ['title', 'start', 'short_title', 'sport', 'competition', 'participants']],
    ['POST', (id) => `/events/${id}/start`, 'event', []],
    [
      'POST',
      () => '/markets',
      'market',
      ['event_id', 'title', 'max_price', 'status', 'trading', 'in_play_delay_sec', 'points_cost', 'featured'],
    ],
    ['POST', (id) => `/markets/${id}/status`, 'market', ['status', 'trading']],
    ['POST', (id) => `/fills/${id}/amend`, 'market', ['price', 'filled']],
    ['PATCH', (id) => `/markets/${id}`, 'market', ['settlement_fee_percent']],
    ['PATCH', (id) => `/events/${id}`, 'event', ['event_fee_percent']],
    ['PUT', (id) => `/market_groups/${id}`, 'market', ['group_fee_percent']],
    ['POST', (id) => `/accounts/${id}/referrals`, 'account', ['referee_account_id']],
    [
      'POST',
      () => '/oauth/clients',
      'client',
      ['name', 'app_type', 'redirect_uris', 'scopes', 'ip_allowlist', 'status'],
    ],
    [
      'PATCH',
      (id) => `/oauth/clients/${id}`,
      'client',
      ['name', 'app_type', 'redirect_uris', 'scopes', 'ip_allowlist', 'status'],
    ],
    [
      'PATCH',
      () => '/settings',
      'account',
      [
        'batch_limit',
        'leaderboard_enabled',
        'leaderboard_boards',
        'geofencing',
        'reserved_handles',
        'registration_limit_per_hour',
        'referral_points',
      ],
    ],
    ['POST', () => '/clock', 'account', ['advance_ms', 'set']],
  ];

  for (const [method, pathOf, idKind, fields] of routes) {
    it(`${method} ${pathOf(`{${idKind}}`)}`, async () => {
      await fc.assert(
        fc.asyncProperty(
          bodyOf(fields.length > 0 ? fields : ['x']),
          fc.constantFrom('known', 'unknown', 'junk'),
          async (body, idChoice) => {
            const id =
              idChoice === 'known'
                ? (ids[idKind] as string)
                : idChoice === 'unknown'
                  ? '0b5f2a8e-1111-4222-8333-444455556666'
                  : 'x%20y';
            const answer = await suite.client.admin(method, pathOf(id), body);
            expect(
              [200, 400, 404, 422],
              `${method} ${pathOf(id)} ${JSON.stringify(body)} → ${answer.status} ${JSON.stringify(answer.body)}`,
            ).to.include(answer.status);
            if (answer.status !== 200) expect(answer.body.error).to.be.a('string');
          },
        ),
        { numRuns: RUNS_PER_ROUTE },
      );
    });
  }

  it('the settings stay valid after all that', async () => {
    const settings = (await suite.client.ok('GET', '/settings')).settings;
    expect(settings.batch_limit).to.be.a('number');
    await suite.client.ok('PATCH', '/settings', { batch_limit: 100, leaderboard_enabled: true });
  });
});
