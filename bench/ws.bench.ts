// WebSocket feed benchmark: starts the service as a child process, opens BENCH_WS_SUBSCRIBERS
// (default 1,000) sockets spread over BENCH_WS_WORKERS worker threads (default 2: the receivers are
// the measuring instrument, and one thread reading 1,000 sockets would queue frames behind its own
// work and report that queue as feed latency), each joined to `orderbook` for one market, and
// places orders into that market over REST at BENCH_WS_ORDERS_PER_S (default 400) from two
// accounts (so some cross and trade). After a warm-up it measures for BENCH_WS_SECONDS (default
// 10): frames delivered per second across all subscribers, and the latency from the engine's
// acceptance of the newest step in a delta (its `time_us`) to the subscriber's receipt.
// The last line is one JSON object with ws_msgs_per_s, ws_p99_ms and ws_subscribers.

import { Worker } from 'node:worker_threads';
import { createSigner, type RequestSigner } from '@event-exchange/client';
import { startChildService } from './support/childService.ts';
import { LoadClient } from './support/loadClient.ts';

const SUBSCRIBERS = Number(process.env.BENCH_WS_SUBSCRIBERS ?? 1_000);
const ORDERS_PER_S = Number(process.env.BENCH_WS_ORDERS_PER_S ?? 400);
const SECONDS = Number(process.env.BENCH_WS_SECONDS ?? 10);
const WORKERS = Math.max(1, Number(process.env.BENCH_WS_WORKERS ?? 2));
/** Per-account request limits for the bench's accounts (settings `rate_limits`): far above any rate it reaches. */
const BENCH_RATE_LIMIT_PER_SECOND = 1_000_000;
const WARMUP_SECONDS = 3;
const ORDER_CONNECTIONS = 16;
const TICK_MS = 10;
const SOCKET_PATH = '/socket/websocket?vsn=2.0.0';

interface WindowReport {
  kind: 'window';
  messages: number;
  deltas: number;
  histogram: number[];
  closed: number;
}

/** The client package's signer (node:crypto in Node), headers in lower case as the bench sends them. */
class Signer {
  private readonly signer: RequestSigner;
  constructor(
    readonly keyId: string,
    seedBase64: string,
  ) {
    this.signer = createSigner(keyId, seedBase64);
  }
  headers(method: string, pathWithQuery: string): Record<string, string> {
    const signed = this.signer.headers(method, pathWithQuery, Date.now());
    return {
      'x-svc-access-key': this.keyId,
      'x-svc-access-timestamp': signed['X-SVC-ACCESS-TIMESTAMP'],
      'x-svc-access-signature': signed['X-SVC-ACCESS-SIGNATURE'],
    };
  }
}

function percentileOf(histogram: number[], p: number): number {
  const total = histogram.reduce((sum, n) => sum + n, 0);
  if (total === 0) return 0;
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (let ms = 0; ms < histogram.length; ms++) {
    seen += histogram[ms]!;
    if (seen >= rank) return ms;
  }
  return histogram.length - 1;
}

function mergeWindows(windows: WindowReport[]): WindowReport {
  const histogram = windows[0]!.histogram.slice();
  for (const other of windows.slice(1))
    for (let ms = 0; ms < histogram.length; ms++) histogram[ms]! += other.histogram[ms]!;
  const total = (key: 'messages' | 'deltas' | 'closed') => windows.reduce((sum, w) => sum + w[key], 0);
  return { kind: 'window', messages: total('messages'), deltas: total('deltas'), closed: total('closed'), histogram };
}

function nextReport<T extends { kind: string }>(worker: Worker, kind: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: T & { error?: string }) => {
      if (message.kind === 'failed') {
        worker.off('message', onMessage);
        reject(new Error(message.error));
      } else if (message.kind === kind) {
        worker.off('message', onMessage);
        resolve(message);
      }
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
  });
}

async function main(): Promise<void> {
  const service = await startChildService();
  const client = new LoadClient(service.baseUrl.hostname, Number(service.baseUrl.port), ORDER_CONNECTIONS + 4);
  const adminClient = new LoadClient(service.adminUrl.hostname, Number(service.adminUrl.port), 1);
  const workers: Worker[] = [];
  try {
    const admin = async (method: string, route: string, body: unknown) => {
      const answer = await adminClient.request(
        method,
        `/admin/v1${route}`,
        {
          authorization: `Bearer ${service.adminToken}`,
          'content-type': 'application/json',
          'user-agent': 'ws-bench/1',
        },
        JSON.stringify(body),
      );
      if (answer.status !== 200) throw new Error(`admin ${method} ${route}: ${answer.status} ${answer.body}`);
      return JSON.parse(answer.body);
    };
    // the per-account request limits raised far above what the bench sends (it measures the feed, not refusals)
    await admin('PATCH', '/settings', {
      rate_limits: { read_per_second: BENCH_RATE_LIMIT_PER_SECOND, write_per_second: BENCH_RATE_LIMIT_PER_SECOND },
    });
    const signers: Signer[] = [];
    for (const name of ['Maker', 'Taker']) {
      const { account } = await admin('POST', '/accounts', { first_name: name, last_name: 'Bench' });
      await admin('POST', `/accounts/${account.account_id}/deposits`, { amount: '100000000' });
      const { api_key: key } = await admin('POST', `/accounts/${account.account_id}/api_keys`, { scope: 'read_write' });
      signers.push(new Signer(key.key_id, key.private_key));
    }
    const { event } = await admin('POST', '/events', {
      title: 'WS bench event',
      start: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const { market } = await admin('POST', '/markets', {
      event_id: event.event_id,
      title: 'WS bench market',
      status: 'open',
    });
    const marketId: string = market.market_id;

    // every subscriber is one key from one address: the per-client socket caps are raised to fit
    const perClient = Math.min(20_000, SUBSCRIBERS + 10);
    await admin('PATCH', '/settings', {
      websocket_limits: { connections_per_address: perClient, connections_per_identity: perClient },
    });
    const url = `ws://127.0.0.1:${service.wsPort}${SOCKET_PATH}`;
    const headers = { 'user-agent': 'ws-bench/1', ...signers[0]!.headers('GET', SOCKET_PATH) };
    for (let w = 0; w < WORKERS; w++) {
      const count = Math.floor(SUBSCRIBERS / WORKERS) + (w < SUBSCRIBERS % WORKERS ? 1 : 0);
      workers.push(
        new Worker(new URL('./support/wsSubscribers.js', import.meta.url), {
          workerData: { url, headers, marketId, count },
        }),
      );
    }
    const readies = await Promise.all(
      workers.map((worker) => nextReport<{ kind: 'ready'; joined: number }>(worker, 'ready')),
    );
    const ready = { joined: readies.reduce((sum, r) => sum + r.joined, 0) };
    console.log(`${ready.joined} subscribers joined orderbook for one market`);

    // the order flow: limit orders around the middle of the book, both sides, two accounts
    let sequence = 0;
    let placed = 0;
    let refused = 0;
    let inFlight = 0;
    const placeOne = async () => {
      const i = sequence++;
      const action = i % 2 === 0 ? 'buy' : 'sell';
      const cents = 30 + ((i * 7919) % 41); // 0.30 .. 0.70
      const body = JSON.stringify({
        market_id: marketId,
        action,
        order_type: 'limit',
        price: (cents / 100).toFixed(2),
        quantity: String(1 + (i % 5)),
      });
      inFlight++;
      try {
        const answer = await client.request(
          'POST',
          '/api/v1/orders',
          {
            'user-agent': 'ws-bench/1',
            'content-type': 'application/json',
            ...signers[i % 2]!.headers('POST', '/api/v1/orders'),
          },
          body,
        );
        if (answer.status === 200) placed++;
        else refused++;
      } catch {
        refused++; // only when the service is being stopped at the end
      } finally {
        inFlight--;
      }
    };
    let due = 0;
    const flow = setInterval(() => {
      due += (ORDERS_PER_S * TICK_MS) / 1000;
      while (due >= 1 && inFlight < ORDER_CONNECTIONS) {
        due -= 1;
        void placeOne();
      }
      if (due > ORDERS_PER_S) due = ORDERS_PER_S; // do not bank an unbounded backlog
    }, TICK_MS);

    await new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000));
    const placedBefore = placed;
    for (const worker of workers) worker.postMessage('start');
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    for (const worker of workers) worker.postMessage('stop');
    const window = mergeWindows(await Promise.all(workers.map((worker) => nextReport<WindowReport>(worker, 'window'))));
    const elapsedS = (performance.now() - started) / 1000;
    const placedInWindow = placed - placedBefore;
    clearInterval(flow);
    while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));

    const result = {
      ws_subscribers: ready.joined,
      ws_msgs_per_s: Math.round(window.messages / elapsedS),
      ws_p50_ms: percentileOf(window.histogram, 50),
      ws_p99_ms: percentileOf(window.histogram, 99),
      ws_deltas_per_subscriber_per_s: Number((window.deltas / ready.joined / elapsedS).toFixed(1)),
      ws_subscribers_closed: window.closed,
      orders_per_s: Math.round(placedInWindow / elapsedS),
      orders_refused: refused,
      seconds: Number(elapsedS.toFixed(1)),
    };
    console.log(
      `${result.ws_msgs_per_s} frames/s delivered to ${result.ws_subscribers} subscribers (${result.ws_deltas_per_subscriber_per_s} deltas/s each) while ${result.orders_per_s} orders/s flowed`,
    );
    console.log(`engine acceptance → subscriber receipt: p50 ${result.ws_p50_ms} ms, p99 ${result.ws_p99_ms} ms`);
    console.log(JSON.stringify(result));
  } finally {
    for (const worker of workers) {
      worker.postMessage('close');
      await Promise.race([nextReport(worker, 'closed'), new Promise((resolve) => setTimeout(resolve, 2_000))]).catch(
        () => undefined,
      );
      await worker.terminate();
    }
    client.close();
    adminClient.close();
    await service.stop();
  }
}

await main();
