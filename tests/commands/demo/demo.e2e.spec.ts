// DEMO=1 seeding against the whole service: markets in several statuses with quotes on both
// sides and trades, a demo member whose printed signed request works as printed, and a
// second start that seeds nothing.

import { expect } from 'chai';
import { seedDemoOnce } from '../../../commands/demo/seed.ts';
import { useTestService } from '../../support/service.ts';
import { ServiceClient } from '../../api/admin/http.ts';
import { FormBrowser, logInThrough } from '../../oauth/support.ts';

describe('e2e: demo seeding', function () {
  this.timeout(120_000);
  const suite = useTestService();

  it('seeds a live-looking exchange once, and prints a signed request that works', async () => {
    let printed = '';
    // everything the service logs meanwhile (the JSON log), to check the private key is not in it
    const logged: string[] = [];
    const logger = suite.service.ctx.logger;
    const levels = ['info', 'warn', 'error', 'debug'] as const;
    const originals = levels.map((level) => logger[level]);
    for (const level of levels)
      (logger as unknown as Record<string, unknown>)[level] = (...args: unknown[]) => {
        logged.push(JSON.stringify(args));
      };
    let seeded;
    try {
      seeded = await seedDemoOnce(suite.service.ctx, {
        baseUrl: suite.service.baseUrl,
        out: (text) => {
          printed += text;
        },
      });
    } finally {
      levels.forEach((level, i) => {
        (logger as unknown as Record<string, unknown>)[level] = originals[i];
      });
    }
    expect(seeded.seeded).to.equal(true);

    const privateKey = /shown ONCE, keep it: (\S+)/.exec(printed)?.[1];
    expect(privateKey, printed).to.be.a('string');
    expect(logged.length).to.be.greaterThan(0);
    expect(logged.join('\n')).to.not.include(privateKey); // printed on the terminal once, never logged
    expect(Buffer.from(privateKey as string, 'base64')).to.have.length(32);
    expect(printed).to.include(seeded.key_id);

    // the printed curl, run as printed (its timestamp is fresh)
    const curl = printed.split('\n').find((line) => line.trim().startsWith('curl ')) as string;
    const url = /'(http[^']+)'/.exec(curl)?.[1] as string;
    const headers: Record<string, string> = {};
    for (const match of curl.matchAll(/-H '([^:]+): ([^']+)'/g)) headers[match[1] as string] = match[2] as string;
    const balance = await fetch(url, { headers });
    expect(balance.status).to.equal(200);
    expect(((await balance.json()) as { balance: { account_balance: string } }).balance.account_balance).to.equal(
      '1000.00',
    );

    // the market list looks alive
    const client = new ServiceClient(suite.service.baseUrl, suite.service.adminToken, suite.service.adminUrl);
    const key = { key_id: seeded.key_id as string, private_key: privateKey as string };
    const answer = await client.signed(key, 'GET', '/markets');
    expect(answer.status).to.equal(200);
    const markets = answer.body.markets as Array<Record<string, any>>;
    const statuses = new Set(markets.map((market) => market.status));
    for (const status of ['open', 'pre_open', 'scheduled', 'suspended', 'resulted'])
      expect(statuses, status).to.include(status);
    const quoted = markets.filter(
      (market) => market.status === 'open' && market.bids.length > 0 && market.offers.length > 0,
    );
    expect(quoted.length).to.be.at.least(1);
    expect(markets.some((market) => Number(market.total_volume) > 0)).to.equal(true);
    expect(markets.some((market) => market.event_status === 'in_progress')).to.equal(true);

    // the demo key can trade: a small bid on an open market
    const target = quoted[0] as Record<string, any>;
    const order = await client.signed(key, 'POST', '/orders', {
      market_id: target.market_id,
      action: 'buy',
      order_type: 'limit',
      price: '0.30',
      quantity: '1',
    });
    expect(order.status, JSON.stringify(order.body)).to.equal(200);

    // the printed client_credentials curl works as printed
    const cc = /curl -s -u '([^:]+):([^']+)' -d grant_type=client_credentials (\S+)/.exec(printed);
    expect(cc, printed).to.not.equal(null);
    const [, clientId, secret, tokenUrl] = cc as unknown as [string, string, string, string];
    const basicAuth = `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`;
    const appToken = await fetch(tokenUrl, {
      method: 'POST',
      body: 'grant_type=client_credentials',
      headers: { authorization: basicAuth, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(appToken.status).to.equal(200);
    // the printed authorize URL, logged in as the printed demo member, ends in a code the printed exchange accepts
    const login = /log in as (\S+) \/ (\S+):/.exec(printed) as unknown as [string, string, string];
    const authorizeUrl = printed
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line.includes('/oauth/authorize?')) as string;
    const browser = new FormBrowser(suite.service.baseUrl);
    await browser.visit(authorizeUrl);
    await logInThrough(browser, { email: login[1], password: login[2] });
    const callback = new URL((await browser.consent('allow')).location as string);
    const verifier = /code_verifier=(\S+)/.exec(printed)?.[1] as string;
    const redirectUri = /-d redirect_uri=(\S+)/.exec(printed)?.[1] as string;
    const exchanged = await fetch(tokenUrl, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        redirect_uri: redirectUri,
        code_verifier: verifier,
        code: callback.searchParams.get('code') as string,
      }),
      headers: { authorization: basicAuth, 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(exchanged.status).to.equal(200);

    // first start only
    const again = await seedDemoOnce(suite.service.ctx, { baseUrl: suite.service.baseUrl, out: () => undefined });
    expect(again.seeded).to.equal(false);
  });
});
