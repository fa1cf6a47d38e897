// The projection runner in its worker thread, seen from the main thread: waits resolve as the
// worker moves, a lagging wait names the projectors, status and rebuild are answered by the
// worker, a worker that dies is replaced and the read models catch up, stop ends the thread.

import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { Worker } from 'node:worker_threads';
import { Registry } from 'prom-client';
import { ProjectionWorkerHost } from '../../cli/projectionHost.ts';
import { PostgresEventStore } from '../../eventstore/postgres.ts';
import { allProjectors } from '../../projections/registry.ts';
import { ProjectionLagTimeout } from '../../projections/runtime/waiters.ts';
import { testDatabase, type TestDatabase } from '../support/pg.ts';

interface Line {
  level: string;
  fields: unknown;
  message: string;
}

function capturingLogger(lines: Line[]) {
  const at =
    (level: string) =>
    (fields: unknown, message = '') =>
      lines.push({ level, fields, message });
  return { info: at('info'), warn: at('warn'), error: at('error') };
}

/** Nice values of this process's threads, by thread id (Linux /proc; field 19 of stat). */
function threadNices(): Map<number, number> {
  const nices = new Map<number, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      nices.set(Number(tid), Number(fields[16]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return nices;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await sleep(25);
  }
  return condition();
}

describe('projection worker host', function () {
  this.timeout(60_000);
  let db: TestDatabase;
  let store: PostgresEventStore;
  let host: ProjectionWorkerHost;
  const lines: Line[] = [];
  const registry = new Registry();

  before(async () => {
    db = await testDatabase();
    store = new PostgresEventStore({ pool: db.pool, connectionString: db.connectionString });
    host = new ProjectionWorkerHost({
      connectionString: db.connectionString,
      eventstoreUrl: undefined,
      store,
      logger: capturingLogger(lines),
      registry,
    });
    await host.start();
  });
  after(async () => {
    await host.stop();
    await store.close();
    await db.drop();
  });

  const append = async () =>
    (await store.append(`unrelated-${randomUUID()}`, [{ id: randomUUID(), type: 'Noted', data: {} }], 'any')).position;

  it('starts every projector in the worker and resolves a wait once all of them pass the position', async () => {
    expect(Object.keys(host.positions()).sort()).to.deep.equal(
      allProjectors()
        .map((p) => p.name)
        .sort(),
    );
    const position = await append();
    await host.waitFor(position, 10_000);
    for (const reached of Object.values(host.positions())) expect(reached >= position).to.equal(true);
    const status = await host.status();
    expect(status.map((row) => row.name).sort()).to.deep.equal(
      allProjectors()
        .map((p) => p.name)
        .sort(),
    );
    for (const row of status) expect(row.position >= position).to.equal(true);
  });

  it('a wait beyond the head fails after its timeout naming every projector behind', async () => {
    const beyond = (await store.headPosition()) + 1000n;
    const failure = await host.waitFor(beyond, 200).then(
      () => null,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(ProjectionLagTimeout);
    expect((failure as ProjectionLagTimeout).lagging.map((p) => p.name).sort()).to.deep.equal(
      allProjectors()
        .map((p) => p.name)
        .sort(),
    );
  });

  it('rebuilds a projector in the worker and reports the position it reached', async () => {
    const position = await append();
    const rebuilt = await host.rebuild('core');
    expect(rebuilt.position >= position).to.equal(true);
    expect(
      host.positions().core! >= rebuilt.position,
      'the host knows the rebuilt position when the answer arrives',
    ).to.equal(true);
    const refused = await host.rebuild('no-such-projector').then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(refused?.message).to.match(/unknown projector no-such-projector/);
  });

  it('publishes the lag gauge on the main thread registry', async () => {
    await host.waitFor(await append(), 10_000);
    const metrics = await registry.getSingleMetricAsString('projection_lag_events');
    expect(metrics).to.include('projector="core"');
  });

  (process.platform === 'linux' ? it : it.skip)(
    'runs the worker below normal priority unless a read waits for the read models',
    async () => {
      const lowered = () => new Set([...threadNices()].filter(([, nice]) => nice === 10).map(([tid]) => tid));
      // this host's worker is among this process's threads at nice 10 once no read has waited for a while
      expect(await until(() => lowered().size >= 1, 5_000), 'a thread of this process at nice 10').to.equal(true);
      await sleep(1_200);
      const idle = lowered();
      // a read waiting for a position not yet reached raises it while it waits and for a second after
      const waiting = host.waitFor((await store.headPosition()) + 1000n, 500).catch(() => undefined);
      let worker: number | undefined;
      const raised = await until(() => {
        worker = [...idle].find((tid) => threadNices().get(tid) === 0);
        return worker !== undefined;
      }, 2_000);
      expect(raised, 'the worker at normal priority while a read waits').to.equal(true);
      await waiting;
      expect(
        await until(() => threadNices().get(worker!) === 10, 4_000),
        'the worker back at nice 10 once no read has waited for a while',
      ).to.equal(true);
    },
  );

  it('replaces a worker that dies: the error is logged and waits resolve again', async () => {
    const worker = (host as unknown as { worker: Worker }).worker;
    await worker.terminate();
    const position = await append();
    await host.waitFor(position, 20_000);
    expect(
      lines.some((line) => line.level === 'error' && /projection worker stopped unexpectedly/.test(line.message)),
    ).to.equal(true);
    expect(Object.values(host.positions()).every((reached) => reached >= position)).to.equal(true);
  });
});
