// `exchange watch` run as a user would (a child process) against the whole service started with
// DEMO=1: the snapshot line, then the demo market makers' activity arriving as delta lines; a
// private topic completed with the key's own user id.

import { expect } from 'chai';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { startWholeService, type WholeService } from '../api/v1/harness.ts';
import { DEMO_STREAM } from '../../commands/demo/seed.ts';

const BIN = path.resolve('cli/bin.js');

/** Starts `exchange watch …` and hands out its stdout lines, parsed. */
function watch(
  args: string[],
  env: Record<string, string>,
): { child: ChildProcessWithoutNullStreams; next(): Promise<any>; stderr(): string } {
  const child = spawn(process.execPath, [BIN, 'watch', ...args], { env: { ...process.env, ...env } });
  const lines: string[] = [];
  const waiting: Array<(line: string) => void> = [];
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString('utf8');
  });
  readline.createInterface({ input: child.stdout }).on('line', (line) => {
    const waiter = waiting.shift();
    if (waiter) waiter(line);
    else lines.push(line);
  });
  return {
    child,
    stderr: () => errors,
    next: async () =>
      JSON.parse(lines.length > 0 ? lines.shift()! : await new Promise<string>((resolve) => waiting.push(resolve))),
  };
}

describe('e2e: exchange watch, with the demo market makers trading', function () {
  this.timeout(60_000);
  let svc: WholeService;
  const children: ChildProcessWithoutNullStreams[] = [];

  before(async () => {
    svc = await startWholeService({ DEMO: '1' });
  });
  after(async () => {
    for (const child of children) child.kill('SIGTERM');
    await svc?.stop();
  });

  it('prints the orderbook snapshot, then deltas as the demo makers keep quoting', async () => {
    const seeded = (await svc.store.readStream(DEMO_STREAM)).find((mark) => mark.type === 'DemoSeeded')!.data as {
      quoted_markets: string[];
    };
    expect(seeded.quoted_markets.length).to.be.greaterThan(0);
    const marketId = seeded.quoted_markets[0]!;
    const viewer = await svc.member();
    const run = watch(
      ['orderbook', '--market-id', marketId, '--key-id', viewer.key.key_id, '--private-key', viewer.key.private_key],
      {
        EXCHANGE_WS_URL: svc.socketUrl,
        EXCHANGE_URL: svc.base,
      },
    );
    children.push(run.child);
    const snapshot = await run.next();
    expect(snapshot).to.include({ topic: 'orderbook', event: 'snapshot' });
    expect(snapshot.payload.orderbooks[0]).to.include({ market_id: marketId });
    expect(snapshot.payload.orderbooks[0].bids.length).to.be.greaterThan(0);
    // the demo activity moves this market's book within a few ticks
    const delta = await run.next();
    expect(delta).to.include({ topic: 'orderbook', event: 'delta' });
    expect(delta.payload.market_id).to.equal(marketId);
    expect(delta.payload.seq).to.equal(snapshot.payload.orderbooks[0].seq + 1);
  });

  it("completes a private topic with the key's own user id; events needs no key", async () => {
    const viewer = await svc.member();
    const run = watch(['balances', '--key-id', viewer.key.key_id, '--private-key', viewer.key.private_key], {
      EXCHANGE_WS_URL: svc.socketUrl,
      EXCHANGE_URL: svc.base,
    });
    children.push(run.child);
    const snapshot = await run.next();
    expect(snapshot).to.deep.include({ topic: `balances:${viewer.user_id}`, event: 'snapshot' });
    expect(snapshot.payload.balance).to.include({ account_id: viewer.account_id });

    const events = watch(['events', '--url', svc.socketUrl], {});
    children.push(events.child);
    expect((await events.next()).payload.events).to.be.an('array').that.is.not.empty;
  });
});
