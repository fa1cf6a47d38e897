// DEMO=1 seeding shows its progress on a terminal (steps done of the total, rate, time left) and
// prints nothing of it in a pipe; the seeder reports every step through its progress port and
// ends it before the banner. The banner (a private key, a client secret, a password) goes to the
// terminal, or to an owner-only file under DATA_DIR when standard output is not one: never to the
// log.

import { expect } from 'chai';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pino } from 'pino';
import { demoSeedSteps, seedDemoOnce } from '../../commands/demo/seed.ts';
import { startTestService, type TestService } from '../support/service.ts';
import { capturedStream } from '../support/streams.ts';

/** Starts the service with DEMO=1, its banner going to a terminal (kept here). */
async function startSeeding(progressStream: NodeJS.WriteStream): Promise<{ service: TestService; banner: string }> {
  const terminal = capturedStream(true);
  const service = await startTestService({ env: { DEMO: '1' }, progressStream, bannerStream: terminal.stream });
  return { service, banner: terminal.written.join('') };
}

describe('e2e: demo seeding progress', function () {
  this.timeout(120_000);
  const services: TestService[] = [];
  after(async () => {
    for (const service of services) await service.stop();
  });

  it('the seeder reports each step through its port, done counting up to the total, and finishes before the banner', async () => {
    const service = await startTestService();
    services.push(service);
    const calls: string[] = [];
    let announcedTotal = -1;
    const seeded = await seedDemoOnce(service.ctx, {
      baseUrl: service.baseUrl,
      out: (text) => {
        if (text.includes('Demo exchange seeded')) calls.push('banner');
      },
      progress: (total) => {
        announcedTotal = total;
        return { update: (done) => calls.push(`update ${done}`), finish: () => calls.push('finish') };
      },
    });
    expect(seeded.seeded).to.equal(true);
    expect(announcedTotal).to.equal(demoSeedSteps());
    expect(announcedTotal).to.be.greaterThan(20);
    const expected = Array.from({ length: announcedTotal }, (_, i) => `update ${i + 1}`);
    expect(calls).to.deep.equal([...expected, 'finish', 'banner']);
  });

  it('DEMO=1 on a terminal: a progress line with steps done, rate and time left, cleared before the banner', async () => {
    const tty = capturedStream(true);
    const { service, banner } = await startSeeding(tty.stream);
    services.push(service);
    const total = demoSeedSteps().toLocaleString('en-US');
    expect(tty.written.length).to.be.at.least(2);
    expect(
      tty.written.some((line) =>
        new RegExp(`seeding demo data: ${total}/${total} steps \\(100%\\), [\\d,]+ steps/s, .* left`).test(line),
      ),
      tty.written.join('\n'),
    ).to.equal(true);
    expect(tty.written.at(-1)).to.equal('\r\x1b[2K');
    expect(banner).to.include('=== Demo exchange seeded ===');
  });

  it('DEMO=1 in a pipe: no progress at all, the banner as before', async () => {
    const pipe = capturedStream(false);
    const { service, banner } = await startSeeding(pipe.stream);
    services.push(service);
    expect(pipe.written).to.deep.equal([]);
    expect(banner).to.include('=== Demo exchange seeded ===');
    expect(banner).to.not.include('\x1b[');
  });

  it('DEMO=1 with standard output not a terminal: the banner goes to DATA_DIR/demo-banner.txt (mode 0600), not to the output nor the log', async () => {
    const pipe = capturedStream(false);
    const log: string[] = [];
    const logger = pino(
      { level: 'trace' },
      {
        write: (line: string) => {
          log.push(line);
        },
      },
    );
    const service = await startTestService({
      env: { DEMO: '1' },
      progressStream: capturedStream(false).stream,
      bannerStream: pipe.stream,
      logger,
    });
    services.push(service);
    expect(pipe.written).to.deep.equal([]);
    const file = path.join(service.ctx.config.dataDir, 'demo-banner.txt');
    expect(statSync(file).mode & 0o777).to.equal(0o600);
    const banner = readFileSync(file, 'utf8');
    expect(banner).to.include('=== Demo exchange seeded ===');
    const privateKey = /Private key \(base64 Ed25519 seed\)[^:]*: (\S+)/.exec(banner)?.[1];
    const secret = /client_secret \(shown ONCE\) (\S+)/.exec(banner)?.[1];
    const password = /log in as \S+ \/ (\S+?):/.exec(banner)?.[1];
    for (const value of [privateKey, secret, password]) {
      expect(value).to.be.a('string').with.length.greaterThan(8);
      expect(
        log.some((line) => line.includes(value!)),
        `a log line holds ${value}`,
      ).to.equal(false);
    }
    expect(log.some((line) => line.includes('demo-banner.txt'))).to.equal(true);
  });
});
