// `exchange watch TOPIC`: joins one channel of the WebSocket feed with the official Phoenix
// client and prints the join reply (the snapshot) and every message after it as JSON lines:
//   {"topic":"orderbook","event":"snapshot","payload":{...}}
//   {"topic":"orderbook","event":"delta","payload":{...}}
// Public topics need --market-id (orderbook, ticker, trades, market_updates; events takes
// --event-id or nothing); private topics need a key (--key-id and --private-key, the base64
// seed the admin API printed). A private topic given without its `:{user_id}` is completed with
// the key's own user id (read from GET /api/v1/me). Ctrl-C leaves.

import { defaultServiceUrl } from './config.ts';
import type { Command } from 'commander';
import { Socket } from 'phoenix';
import WebSocket from 'ws';
import { privateKeyObject, signWithNode } from '../commands/credentials/ed25519.ts';

const PRIVATE_TOPICS = new Set(['orders', 'fills', 'positions', 'settlements', 'balances', 'account', 'order_slip', 'betslip']);
const USER_AGENT = 'exchange-watch/1';
const JOIN_TIMEOUT_MS = 10_000;

interface WatchOptions {
  marketId: string[];
  eventId: string[];
  keyId?: string;
  privateKey?: string;
  oauthToken?: string;
  url?: string;
  apiUrl?: string;
}

function signer(keyId: string, seedBase64: string) {
  const key = privateKeyObject(new Uint8Array(Buffer.from(seedBase64, 'base64')));
  return (method: string, pathWithQuery: string): Record<string, string> => {
    const stamp = String(Date.now());
    const signature = signWithNode(key, Buffer.from(`${stamp}${method}${pathWithQuery}`)).toString('base64');
    return { 'X-SVC-ACCESS-KEY': keyId, 'X-SVC-ACCESS-TIMESTAMP': stamp, 'X-SVC-ACCESS-SIGNATURE': signature };
  };
}

function print(record: unknown): void {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

function fail(message: string): never {
  process.stderr.write(`exchange watch: ${message}\n`);
  process.exit(1);
}

async function watch(topic: string, options: WatchOptions): Promise<void> {
  const wsPort = process.env.WS_PORT ?? '8081';
  const socketUrl = (options.url ?? process.env.EXCHANGE_WS_URL ?? `ws://127.0.0.1:${wsPort}/socket`).replace(/\/websocket\/?$/, '').replace(/\/+$/, '');
  const apiUrl = (options.apiUrl ?? defaultServiceUrl()).replace(/\/+$/, '');
  if ((options.keyId === undefined) !== (options.privateKey === undefined)) fail('--key-id and --private-key go together');
  const sign = options.keyId && options.privateKey ? signer(options.keyId, options.privateKey) : undefined;

  const [name] = topic.split(':');
  if (PRIVATE_TOPICS.has(name!) && !topic.includes(':')) {
    if (!sign) fail(`${name} is a private topic: give --key-id and --private-key (or the full topic ${name}:{user_id})`);
    let me: Response;
    try {
      me = await fetch(`${apiUrl}/api/v1/me`, { headers: { 'user-agent': USER_AGENT, ...sign('GET', '/api/v1/me') } });
    } catch (error) {
      fail(`cannot reach ${apiUrl} to look up the key's user id: ${(error as Error).message}`);
    }
    const body = (await me.json()) as { me?: { user_id?: string }; error?: string };
    if (!body.me?.user_id) fail(`GET /api/v1/me answered ${me.status}: ${body.error ?? 'no user id'}`);
    topic = `${name}:${body.me.user_id}`;
  }
  const payload: Record<string, unknown> = {};
  if (options.marketId.length > 0) payload.market_ids = options.marketId;
  if (options.eventId.length > 0) payload.event_ids = options.eventId;

  class Transport extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      const target = new URL(url);
      const headers: Record<string, string> = { 'user-agent': USER_AGENT };
      if (sign) Object.assign(headers, sign('GET', `${target.pathname}${target.search}`));
      if (options.oauthToken) headers['x-svc-oauth-token'] = options.oauthToken;
      super(url, protocols, { headers });
      this.on('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => fail(`handshake refused: ${res.statusCode} ${Buffer.concat(chunks).toString('utf8')}`));
      });
    }
  }

  const socket = new Socket(socketUrl, { transport: Transport as unknown as typeof WebSocket, timeout: JOIN_TIMEOUT_MS });
  socket.onError(() => {
    process.stderr.write(`exchange watch: connection to ${socketUrl} failed; retrying\n`);
  });
  socket.connect();
  const channel = socket.channel(topic, payload);
  channel.onMessage = (event, body) => {
    if (!event.startsWith('phx_') && !event.startsWith('chan_reply_')) print({ topic, event, payload: body });
    return body;
  };
  channel.join()
    .receive('ok', (response) => print({ topic, event: 'snapshot', payload: response }))
    .receive('error', (response) => fail(`join ${topic} refused: ${JSON.stringify(response)}`))
    .receive('timeout', () => fail(`join ${topic} timed out`));
  const leave = () => {
    channel.leave();
    socket.disconnect(() => process.exit(0));
  };
  process.on('SIGINT', leave);
  process.on('SIGTERM', leave);
}

export function registerWatchCommand(program: Command): void {
  const collect = (value: string, previous: string[]) => [...previous, value];
  program
    .command('watch')
    .description('join a WebSocket feed topic and print its snapshot and every message as JSON lines')
    .argument('<topic>', 'orderbook, ticker, trades, market_updates, events, or a private topic (orders, fills, positions, settlements, balances, account, order_slip)')
    .option('--market-id <id>', 'a market to watch (repeat for several)', collect, [])
    .option('--event-id <id>', 'an event to watch on `events` (repeat for several; default all)', collect, [])
    .option('--key-id <id>', 'API key id (signs the handshake)')
    .option('--private-key <base64>', "the key's private key (base64 Ed25519 seed)")
    .option('--oauth-token <token>', 'an OAuth access token instead of a key')
    .option('--url <url>', 'feed URL (default $EXCHANGE_WS_URL, else ws://127.0.0.1:$WS_PORT/socket)')
    .option('--api-url <url>', 'REST base URL for the user id lookup (default $EXCHANGE_URL, else http://127.0.0.1:$PORT)')
    .action(async (topic: string, options: WatchOptions) => {
      await watch(topic, options);
    });
}
