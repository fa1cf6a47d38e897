// `exchange watch TOPIC`: joins one channel of the WebSocket feed through the client package
// (@event-exchange/client: the official Phoenix client, the handshake signed by the client) and
// prints the join reply (the snapshot) and every message after it as JSON lines:
//   {"topic":"orderbook","event":"snapshot","payload":{...}}
//   {"topic":"orderbook","event":"delta","payload":{...}}
// Public topics need --market-id (orderbook, ticker, trades, market_updates; events takes
// --event-id or nothing); private topics need a key (--key-id and --private-key, the base64
// seed the admin API printed). A private topic given without its `:{user_id}` is completed with
// the key's own user id (read from GET /api/v1/me). Ctrl-C leaves.

import { apiKey, createClient, type Credentials } from '@event-exchange/client';
import type { Command } from 'commander';
import { defaultServiceUrl } from './config.ts';

const PRIVATE_TOPICS = new Set([
  'orders',
  'fills',
  'positions',
  'settlements',
  'balances',
  'account',
  'order_slip',
  'betslip',
]);
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

function print(record: unknown): void {
  process.stdout.write(`${JSON.stringify(record)}\n`);
}

function fail(message: string): never {
  process.stderr.write(`exchange watch: ${message}\n`);
  process.exit(1);
}

async function watch(topic: string, options: WatchOptions): Promise<void> {
  const wsPort = process.env.WS_PORT ?? '8081';
  const socketUrl = (options.url ?? process.env.EXCHANGE_WS_URL ?? `ws://127.0.0.1:${wsPort}/socket`)
    .replace(/\/websocket\/?$/, '')
    .replace(/\/+$/, '');
  const apiUrl = (options.apiUrl ?? defaultServiceUrl()).replace(/\/+$/, '');
  if ((options.keyId === undefined) !== (options.privateKey === undefined))
    fail('--key-id and --private-key go together');
  let credentials: Credentials | undefined;
  try {
    if (options.keyId && options.privateKey) credentials = apiKey(options.keyId, options.privateKey);
    else if (options.oauthToken) credentials = { kind: 'oauth', clientId: '', accessToken: options.oauthToken };
  } catch (error) {
    fail((error as Error).message);
  }
  // the client signs the handshake (and the user id lookup) with the key, or sends the OAuth token
  const client = createClient({ baseUrl: apiUrl, wsUrl: socketUrl, credentials, userAgent: USER_AGENT, retries: 0 });

  const [name] = topic.split(':');
  if (PRIVATE_TOPICS.has(name!) && !topic.includes(':')) {
    if (!options.keyId)
      fail(`${name} is a private topic: give --key-id and --private-key (or the full topic ${name}:{user_id})`);
    try {
      topic = `${name}:${(await client.me()).user_id}`;
    } catch (error) {
      fail(`cannot look up the key's user id at ${apiUrl}: ${(error as Error).message}`);
    }
  }
  const payload: Record<string, unknown> = {};
  if (options.marketId.length > 0) payload.market_ids = options.marketId;
  if (options.eventId.length > 0) payload.event_ids = options.eventId;

  const feed = client.feed({
    joinTimeoutMs: JOIN_TIMEOUT_MS,
    onHandshakeRefused: (status, body) => fail(`handshake refused: ${status} ${body}`),
  });
  feed.socket.onError(() => {
    process.stderr.write(`exchange watch: connection to ${socketUrl} failed; retrying\n`);
  });
  const channel = feed.channel(topic, payload);
  channel.onMessage = (event, body) => {
    if (!event.startsWith('phx_') && !event.startsWith('chan_reply_')) print({ topic, event, payload: body });
    return body;
  };
  channel
    .join()
    .receive('ok', (response) => print({ topic, event: 'snapshot', payload: response }))
    .receive('error', (response) => fail(`join ${topic} refused: ${JSON.stringify(response)}`))
    .receive('timeout', () => fail(`join ${topic} timed out`));
  const leave = () => {
    channel.leave();
    void feed.close().then(() => process.exit(0));
  };
  process.on('SIGINT', leave);
  process.on('SIGTERM', leave);
}

export function registerWatchCommand(program: Command): void {
  const collect = (value: string, previous: string[]) => [...previous, value];
  program
    .command('watch')
    .description('join a WebSocket feed topic and print its snapshot and every message as JSON lines')
    .argument(
      '<topic>',
      'orderbook, ticker, trades, market_updates, events, or a private topic (orders, fills, positions, settlements, balances, account, order_slip)',
    )
    .option('--market-id <id>', 'a market to watch (repeat for several)', collect, [])
    .option('--event-id <id>', 'an event to watch on `events` (repeat for several; default all)', collect, [])
    .option('--key-id <id>', 'API key id (signs the handshake)')
    .option('--private-key <base64>', "the key's private key (base64 Ed25519 seed)")
    .option('--oauth-token <token>', 'an OAuth access token instead of a key')
    .option('--url <url>', 'feed URL (default $EXCHANGE_WS_URL, else ws://127.0.0.1:$WS_PORT/socket)')
    .option(
      '--api-url <url>',
      'REST base URL for the user id lookup (default $EXCHANGE_URL, else http://127.0.0.1:$PORT)',
    )
    .action(async (topic: string, options: WatchOptions) => {
      await watch(topic, options);
    });
}
