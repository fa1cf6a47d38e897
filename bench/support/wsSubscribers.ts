// Worker thread of `npm run bench:ws`: opens many raw WebSocket subscribers (the `ws` package,
// signed handshake headers given by the parent), joins `orderbook` for one market on each, and
// counts every delta received. For latency it reads the delta's `time_us` (the engine time of
// its newest step) from the frame's bytes without decoding or parsing the whole frame, and
// histograms receipt − time_us by millisecond. The parent opens and closes the measuring window.

import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

interface Setup {
  url: string;
  headers: Record<string, string>;
  marketId: string;
  count: number;
}

const HISTOGRAM_MS_MAX = 60_000;
const CONNECTS_AT_ONCE = 50;
const HEARTBEAT_INTERVAL_MS = 20_000;
const TIME_KEY = Buffer.from('"time_us":');
const DIGIT_0 = 48;
const DIGIT_9 = 57;

const setup = workerData as Setup;
const histogram = new Uint32Array(HISTOGRAM_MS_MAX + 1);
let measuring = false;
let messages = 0;
let deltas = 0;
let joined = 0;
let closed = 0;
const sockets: WebSocket[] = [];

function onMessage(data: WebSocket.RawData): void {
  if (!measuring) return;
  messages += 1;
  const frame = data as Buffer;
  const at = frame.indexOf(TIME_KEY);
  if (at < 0) return;
  deltas += 1;
  let timeUs = 0;
  for (let i = at + TIME_KEY.length; i < frame.length; i++) {
    const c = frame[i]!;
    if (c < DIGIT_0 || c > DIGIT_9) break;
    timeUs = timeUs * 10 + (c - DIGIT_0);
  }
  const latencyMs = Math.max(0, Math.round(Date.now() - timeUs / 1000));
  histogram[Math.min(latencyMs, HISTOGRAM_MS_MAX)]! += 1;
}

function open(index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(setup.url, { headers: setup.headers, perMessageDeflate: false, skipUTF8Validation: true });
    ws.on('open', () => {
      ws.send(
        JSON.stringify([String(index), String(index), 'orderbook', 'phx_join', { market_ids: [setup.marketId] }]),
      );
    });
    ws.once('message', (data) => {
      const reply = JSON.parse(String(data)) as [unknown, unknown, string, string, { status: string }];
      if (reply[3] !== 'phx_reply' || reply[4].status !== 'ok') {
        reject(new Error(`join refused: ${String(data)}`));
        return;
      }
      joined += 1;
      ws.on('message', onMessage);
      resolve();
    });
    ws.on('error', reject);
    ws.on('close', () => {
      closed += 1;
    });
    sockets.push(ws);
  });
}

async function connectAll(): Promise<void> {
  for (let start = 0; start < setup.count; start += CONNECTS_AT_ONCE) {
    const batch: Array<Promise<void>> = [];
    for (let i = start; i < Math.min(setup.count, start + CONNECTS_AT_ONCE); i++) batch.push(open(i));
    await Promise.all(batch);
  }
}

const heartbeat = setInterval(() => {
  for (const ws of sockets) if (ws.readyState === WebSocket.OPEN) ws.send('[null,"hb","phoenix","heartbeat",{}]');
}, HEARTBEAT_INTERVAL_MS);

parentPort!.on('message', (command: string) => {
  if (command === 'start') {
    messages = 0;
    deltas = 0;
    histogram.fill(0);
    measuring = true;
  } else if (command === 'stop') {
    measuring = false;
    parentPort!.postMessage({ kind: 'window', messages, deltas, histogram: Array.from(histogram), closed });
  } else if (command === 'close') {
    clearInterval(heartbeat);
    for (const ws of sockets) ws.terminate();
    parentPort!.postMessage({ kind: 'closed' });
  }
});

connectAll().then(
  () => parentPort!.postMessage({ kind: 'ready', joined }),
  (error: unknown) => parentPort!.postMessage({ kind: 'failed', error: String(error) }),
);
