// DEMO=1 activity when the operator halts a market the demo makers quote (as the README tour
// does with `exchange admin markets close|result`): one log line saying so, no warning every
// tick, the other market keeps trading, and quoting resumes once the market accepts orders.

import { expect } from 'chai';
import type { Logger } from 'pino';
import { startDemoActivity, type DemoActivity } from '../../commands/demo/activity.ts';
import { DEMO_STREAM, seedDemoOnce } from '../../commands/demo/seed.ts';
import { ServiceClient } from '../api/admin/http.ts';
import { startTestService, type TestService } from '../support/service.ts';

const TICK_MS = 40;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('e2e: demo activity on a market the operator halts', function () {
  this.timeout(120_000);
  let service: TestService;
  let activity: DemoActivity | undefined;

  before(async () => {
    service = await startTestService();
  });
  after(async () => {
    await activity?.stop();
    await service?.stop();
  });

  it('says once that the market refuses orders, keeps the other market moving, and resumes when it trades again', async () => {
    const seeded = await seedDemoOnce(service.ctx, { baseUrl: service.baseUrl, out: () => undefined });
    const marks = await service.ctx.store.readStream(DEMO_STREAM);
    const quoted = (marks.find((mark) => mark.type === 'DemoSeeded')?.data as { quoted_markets: string[] })
      .quoted_markets;
    expect(quoted.length).to.equal(2);
    const [other, halted] = quoted as [string, string]; // the second one is in play, its orders delayed

    const lines: Array<{ level: string; fields: Record<string, unknown>; msg: string }> = [];
    const record = (level: string) => (fields: Record<string, unknown> | string, msg?: string) => {
      lines.push(typeof fields === 'string' ? { level, fields: {}, msg: fields } : { level, fields, msg: msg ?? '' });
    };
    const logger = {
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
      debug: () => undefined,
    } as unknown as Logger;

    const client = new ServiceClient(service.baseUrl, service.adminToken, service.adminUrl);
    await client.ok('POST', `/markets/${halted}/status`, { trading: false });
    const key = (await client.ok('POST', `/accounts/${seeded.member_account_id}/api_keys`, { scope: 'read_only' }))
      .api_key;
    const otherVolume = async () => {
      const answer = await client.signed(key, 'GET', `/markets?market_ids=${other}`);
      return Number((answer.body.markets as Array<{ total_volume: string }>)[0]?.total_volume);
    };
    const volumeBefore = await otherVolume();

    activity = await startDemoActivity({ ...service.ctx, logger }, { baseUrl: service.baseUrl, tickMs: TICK_MS });
    await sleep(TICK_MS * 40);
    const refusals = lines.filter((line) => line.msg.includes('refuses'));
    expect(refusals, JSON.stringify(lines)).to.have.length(1);
    expect(refusals[0]?.fields.market_id).to.equal(halted);
    expect(refusals[0]?.level).to.equal('info');
    expect(
      lines.filter((line) => line.level !== 'info'),
      JSON.stringify(lines),
    ).to.deep.equal([]);
    expect(await otherVolume()).to.be.greaterThan(volumeBefore);

    await client.ok('POST', `/markets/${halted}/status`, { trading: true });
    await sleep(TICK_MS * 20);
    const resumed = lines.filter((line) => line.msg.includes('accepts orders again'));
    expect(resumed, JSON.stringify(lines)).to.have.length(1);
    expect(resumed[0]?.fields.market_id).to.equal(halted);
    expect(lines.filter((line) => line.msg.includes('refuses'))).to.have.length(1);
  });
});
