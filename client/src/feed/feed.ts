// `client.feed()`: the WebSocket feed over the official `phoenix` client. In Node the transport
// is the `ws` package's WebSocket with the client's credentials on the handshake (signed as a
// REST GET of the socket path, or `x-svc-oauth-token`), signed afresh on every reconnect; in a
// browser it is the browser's WebSocket (which cannot send handshake headers: public `events`
// only). Phoenix sends heartbeats (every heartbeatIntervalMs) and rejoins every channel after a
// reconnect; each rejoin's reply is a fresh snapshot on the streams below.

import { Socket, type Channel } from 'phoenix';
import WebSocket from 'ws';
import type { ExchangeClient, Balance, Fill, Order, Position } from '../client.js';
import { OrderBook, type BookEvent, type Level } from './orderBook.js';
import { EventStream } from './stream.js';

/** Phoenix's own default; the service closes a socket silent for ws_heartbeat_timeout_ms (60 s). */
export const HEARTBEAT_INTERVAL_MS_DEFAULT = 30_000;
export const JOIN_TIMEOUT_MS_DEFAULT = 10_000;
/** Reconnect backoff after a dropped socket, by try: 10, 50, 100, 150, 200, 250, 500, then 1 s. */
const RECONNECT_AFTER_MS = [10, 50, 100, 150, 200, 250, 500, 1_000] as const;

export interface FeedOptions {
  heartbeatIntervalMs?: number | undefined;
  joinTimeoutMs?: number | undefined;
  /** `browser` uses globalThis.WebSocket (no handshake headers); default: `ws` in Node. */
  transport?: 'node' | 'browser' | undefined;
  /** The member's user id for private topics; default: read once from GET /api/v1/me (an OAuth token then needs profile.read). */
  userId?: string | undefined;
  /** Told when the service refuses the handshake (Node transport), e.g. 401 with its body. Phoenix retries after it. */
  onHandshakeRefused?: ((status: number, body: string) => void) | undefined;
}

/** A join the service refused (`unauthorized`, `unknown market`, `insufficient_scope`, ...). */
export class FeedJoinError extends Error {
  override readonly name = 'FeedJoinError';
  constructor(
    readonly topic: string,
    readonly reason: string,
    readonly response: unknown,
  ) {
    super(`join ${topic} refused: ${reason}`);
  }
}

export type Settlement = Record<string, unknown> & { id: string; amount: string; market_id: string | null };

export type OrdersEvent = { type: 'snapshot'; orders: Order[] } | { type: 'update'; order: Order };
export type FillsEvent = { type: 'snapshot'; fills: Fill[] } | { type: 'update'; fill: Fill };
export type PositionsEvent = { type: 'snapshot'; positions: Position[] } | { type: 'update'; position: Position };
export type SettlementsEvent =
  { type: 'snapshot'; settlements: Settlement[] } | { type: 'update'; settlement: Settlement };
export type BalancesEvent =
  | { type: 'snapshot'; balance: Balance }
  | { type: 'update'; balance: Partial<Balance> & { account_id: string; user_id: string } };
export type AccountEvent =
  | {
      type: 'snapshot';
      orders: Order[];
      fills: Fill[];
      positions: Position[];
      settlements: Settlement[];
      balance: Balance;
    }
  | {
      type: 'update';
      order?: Order;
      fill?: Fill;
      position?: Position;
      settlement?: Settlement;
      balance?: Partial<Balance>;
    };

export interface MarketDataEvent {
  type: 'snapshot' | 'ticker' | 'trade' | 'market';
  payload: Record<string, unknown>;
}

/** Join refusals that will not pass by themselves (`busy` and `unavailable` do: Phoenix rejoins). */
const isFinalRefusal = (response: { reason?: string } | undefined) =>
  response?.reason !== 'busy' && response?.reason !== 'unavailable';

const isBrowser = () =>
  typeof (globalThis as { window?: unknown }).window !== 'undefined' && typeof globalThis.WebSocket === 'function';

export class Feed {
  readonly socket: Socket;
  private userIdPromise: Promise<string> | undefined;
  private disconnected = false;

  constructor(
    private readonly client: ExchangeClient<unknown>,
    options: FeedOptions = {},
  ) {
    if (options.userId !== undefined) this.userIdPromise = Promise.resolve(options.userId);
    const transport =
      (options.transport ?? (isBrowser() ? 'browser' : 'node')) === 'browser'
        ? globalThis.WebSocket
        : this.nodeTransport(options.onHandshakeRefused);
    this.socket = new Socket(client.wsUrl, {
      transport: transport as typeof globalThis.WebSocket,
      heartbeatIntervalMs: options.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS_DEFAULT,
      timeout: options.joinTimeoutMs ?? JOIN_TIMEOUT_MS_DEFAULT,
      reconnectAfterMs: (tries: number) =>
        RECONNECT_AFTER_MS[tries - 1] ?? RECONNECT_AFTER_MS[RECONNECT_AFTER_MS.length - 1]!,
      rejoinAfterMs: (tries: number) =>
        RECONNECT_AFTER_MS[tries - 1] ?? RECONNECT_AFTER_MS[RECONNECT_AFTER_MS.length - 1]!,
    });
    this.socket.onClose(() => {
      this.disconnected = true;
    });
    this.socket.connect();
  }

  /** The `ws` WebSocket with this client's handshake headers, computed per connection attempt. */
  private nodeTransport(onHandshakeRefused: FeedOptions['onHandshakeRefused']): unknown {
    const client = this.client;
    return class SignedWebSocket extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        const target = new URL(url);
        const headers: Record<string, string> = {
          'user-agent': client.options.userAgent ?? 'event-exchange-client/0.1',
        };
        const credentials = client.options.credentials;
        if (credentials?.kind === 'apiKey')
          Object.assign(headers, client.transport.authHeaders('GET', `${target.pathname}${target.search}`));
        const oauth = client.transport.oauth;
        if (oauth) headers['x-svc-oauth-token'] = oauth.accessToken;
        super(url, protocols, { headers });
        const token = oauth?.accessToken;
        this.on('unexpected-response', (_request, response) => {
          // an expired OAuth token: refresh, and Phoenix's next reconnect sends the new one
          if (response.statusCode === 401 && oauth && token) oauth.refresh(token).catch(() => undefined);
          const chunks: Uint8Array[] = [];
          response.on('data', (chunk: Uint8Array) => chunks.push(chunk));
          response.on('end', () =>
            onHandshakeRefused?.(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')),
          );
          this.emit('error', new Error(`handshake refused: ${response.statusCode}`));
          this.terminate();
        });
      }
    };
  }

  /** The member's user id (private topics are `name:{user_id}`), read once from GET /me. */
  userId(): Promise<string> {
    this.userIdPromise ??= this.client.me().then((me) => me.user_id);
    return this.userIdPromise;
  }

  /** A raw Phoenix channel, joined by the caller. */
  channel(topic: string, payload: Record<string, unknown> = {}): Channel {
    return this.socket.channel(topic, payload);
  }

  /**
   * A local order book of one market, kept from snapshot + deltas; rejoins by itself on a seq gap
   * or after a reconnect. Iterate it for every change, or read `bids`/`offers` at any time.
   */
  orderBook(marketId: string): OrderBook {
    let current: Channel | undefined;
    let closed = false;
    let nextReason: 'join' | 'gap' | 'reconnect' = 'join';
    const stream = new EventStream<BookEvent>(`orderbook ${marketId}`, () => {
      closed = true;
      current?.leave();
    });
    const join = () => {
      if (closed) return;
      const channel = this.socket.channel('orderbook', { market_ids: [marketId] });
      current = channel;
      channel.on(
        'delta',
        (delta: { market_id: string; seq: number; bids: Level[]; offers: Level[]; time_us: number }) => {
          if (channel !== current || delta.market_id !== marketId) return;
          if (!book.applyDelta(delta)) {
            nextReason = 'gap';
            join(); // Phoenix leaves the earlier join of the topic; the reply replaces the book
          }
        },
      );
      channel
        .join()
        .receive(
          'ok',
          (reply: { orderbooks: { market_id: string; seq: number; bids: Level[]; offers: Level[] }[] }) => {
            if (channel !== current) return;
            const snapshot = reply.orderbooks.find((entry) => entry.market_id === marketId);
            if (!snapshot) return;
            const reason =
              this.disconnected && nextReason === 'join' && book.seq !== undefined ? 'reconnect' : nextReason;
            nextReason = 'join';
            book.applySnapshot(snapshot, reason);
          },
        )
        .receive('error', (response: { reason?: string }) => {
          if (channel !== current) return;
          // Phoenix joins again by itself after an error: wait for it when the refusal is passing
          // (`busy`, `unavailable`) or the book was already held (a rejoin during a restart)
          if (!isFinalRefusal(response) || book.seq !== undefined) return;
          book.fail(new FeedJoinError('orderbook', response?.reason ?? 'refused', response));
          closed = true;
          channel.leave();
        });
      // after a reconnect Phoenix rejoins the channel; its reply is a fresh snapshot
      channel.onError(() => {
        if (channel === current) nextReason = 'reconnect';
      });
    };
    const book: OrderBook = new OrderBook(marketId, stream, join);
    join();
    return book;
  }

  /** A private or public channel as a typed stream: its snapshot (again after each rejoin), then its pushes. */
  private subscribe<E, S = never, U = never>(
    topic: string,
    payload: Record<string, unknown>,
    events: string[],
    toSnapshot: (reply: S) => E,
    toUpdate: (event: string, body: U) => E,
  ): EventStream<E> {
    const holder: { channel?: Channel } = {};
    const stream = new EventStream<E>(topic, () => holder.channel?.leave());
    const channel = this.socket.channel(topic, payload);
    holder.channel = channel;
    for (const event of events) channel.on(event, (body: unknown) => stream.push(toUpdate(event, body as U)));
    let joined = false;
    channel
      .join()
      .receive('ok', (reply: unknown) => {
        joined = true;
        stream.push(toSnapshot(reply as S));
      })
      .receive('error', (response: { reason?: string }) => {
        if (joined || !isFinalRefusal(response)) return; // Phoenix joins again by itself
        stream.fail(new FeedJoinError(topic, response?.reason ?? 'refused', response));
        channel.leave();
      });
    return stream;
  }

  private privateStream<E, S = never, U = never>(
    name: string,
    toSnapshot: (reply: S) => E,
    toUpdate: (body: U) => E,
  ): EventStream<E> {
    let inner: EventStream<E> | undefined;
    const outer = new EventStream<E>(name, () => inner?.close());
    this.userId().then(
      (userId) => {
        inner = this.subscribe<E, S, U>(`${name}:${userId}`, {}, ['update'], toSnapshot, (_event, body) =>
          toUpdate(body),
        );
        void (async () => {
          try {
            for await (const event of inner) outer.push(event);
            outer.close();
          } catch (error) {
            outer.fail(error);
          }
        })();
      },
      (error: unknown) => outer.fail(error),
    );
    return outer;
  }

  /** Live orders, then each order as it changes. Holding it arms cancel_on_disconnect for this socket. */
  orders(): EventStream<OrdersEvent> {
    return this.privateStream<OrdersEvent>(
      'orders',
      (reply: { orders: Order[] }) => ({ type: 'snapshot', orders: reply.orders }),
      (body: { order: Order }) => ({ type: 'update', order: body.order }),
    );
  }

  fills(): EventStream<FillsEvent> {
    return this.privateStream<FillsEvent>(
      'fills',
      (reply: { fills: Fill[] }) => ({ type: 'snapshot', fills: reply.fills }),
      (body: { fill: Fill }) => ({ type: 'update', fill: body.fill }),
    );
  }

  positions(): EventStream<PositionsEvent> {
    return this.privateStream<PositionsEvent>(
      'positions',
      (reply: { positions: Position[] }) => ({ type: 'snapshot', positions: reply.positions }),
      (body: { position: Position }) => ({ type: 'update', position: body.position }),
    );
  }

  settlements(): EventStream<SettlementsEvent> {
    return this.privateStream<SettlementsEvent>(
      'settlements',
      (reply: { settlements: Settlement[] }) => ({ type: 'snapshot', settlements: reply.settlements }),
      (body: { settlement: Settlement }) => ({ type: 'update', settlement: body.settlement }),
    );
  }

  balances(): EventStream<BalancesEvent> {
    return this.privateStream<BalancesEvent>(
      'balances',
      (reply: { balance: Balance }) => ({ type: 'snapshot', balance: reply.balance }),
      (body: { balance: BalancesEvent['balance'] }) => ({ type: 'update', balance: body.balance }),
    );
  }

  account(): EventStream<AccountEvent> {
    return this.privateStream<AccountEvent>(
      'account',
      (reply: Omit<Extract<AccountEvent, { type: 'snapshot' }>, 'type'>) => ({ type: 'snapshot', ...reply }),
      (body: Omit<Extract<AccountEvent, { type: 'update' }>, 'type'>) => ({ type: 'update', ...body }),
    );
  }

  /** Public market data: `ticker`, `trades` or `market_updates` of some markets. */
  marketData(topic: 'ticker' | 'trades' | 'market_updates', marketIds: string[]): EventStream<MarketDataEvent> {
    return this.subscribe<MarketDataEvent>(
      topic,
      { market_ids: marketIds },
      ['ticker', 'trade', 'market'],
      (reply: Record<string, unknown>) => ({ type: 'snapshot' as const, payload: reply }),
      (event, body: Record<string, unknown>) => ({ type: event as MarketDataEvent['type'], payload: body }),
    );
  }

  /** Closes the socket (a disconnect: the service cancels this member's cancel_on_disconnect orders). */
  close(): Promise<void> {
    return new Promise((resolve) => this.socket.disconnect(() => resolve()));
  }
}
