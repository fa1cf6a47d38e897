// The client: one object per credential, typed by the service's OpenAPI document. `client.api`
// is the raw openapi-fetch client (every route, typed, no throwing); the methods below are what a
// trading program calls: they throw `ExchangeError`, page with async iterators, split batches at
// the batch limit, and put an Idempotency-Key on every write.

import createFetchClient, { type Client as FetchClient } from 'openapi-fetch';
import type { Credentials } from './credentials.js';
import { formatDecimal, type DecimalAdapter, type DecimalInput } from './decimal.js';
import { ExchangeError, retryAfterSeconds, type ErrorBody } from './errors.js';
import { Feed, type FeedOptions } from './feed/feed.js';
import type { components, operations, paths } from './generated/openapi.js';
import { paged } from './paging.js';
import { RETRIES_DEFAULT, RETRY_DELAY_MAX_MS, Transport } from './transport.js';

export type Schemas = components['schemas'];
export type Order = Schemas['Order'];
export type Fill = Schemas['Fill'];
export type Market = Schemas['Market'];
export type Position = Schemas['Position'];
export type Balance = Schemas['Balance'];
export type Me = Schemas['Me'];
export type BatchLegResult = Schemas['BatchLegResult'];
export type Cancellation = Schemas['BatchCancelResponse']['cancellations'][number];
type Query<Op extends keyof operations> = operations[Op]['parameters'] extends { query?: infer Q }
  ? NonNullable<Q>
  : never;
type ListQuery<Op extends keyof operations> = Omit<Query<Op>, 'cursor'>;

export type OrderBody = Schemas['PlaceOrderBody'];
/** An order to place: the body of POST /api/v1/orders with decimals as strings (or adapter values). */
export type OrderInput<D = never> = Omit<OrderBody, 'price' | 'quantity'> & {
  price?: DecimalInput<D> | null;
  quantity: DecimalInput<D>;
};

/** The service's batch limit (`settings.batch_limit`) unless the operator changed it. */
export const BATCH_LIMIT_DEFAULT = 100;
/** Order statuses that are still live (what cancelAll cancels). */
export const LIVE_ORDER_STATUSES = ['created', 'requested', 'accepted', 'delayed', 'open'] as const;

export interface ClientOptions<D = never> {
  /** REST base URL, e.g. http://127.0.0.1:8080 */
  baseUrl: string;
  /** Feed URL, e.g. ws://127.0.0.1:8081/socket (default: the base URL's host, port 8081). */
  wsUrl?: string | undefined;
  credentials?: Credentials | undefined;
  /** Sent on every request (the service refuses requests without one). */
  userAgent?: string | undefined;
  fetch?: typeof fetch | undefined;
  /** Retries after 503, 429, 409 or a network error (default RETRIES_DEFAULT). */
  retries?: number | undefined;
  retryDelayMaxMs?: number | undefined;
  /** An Idempotency-Key on every write (default true). Without one, writes are never retried. */
  idempotencyKeys?: boolean | undefined;
  /** Legs per batch request (default BATCH_LIMIT_DEFAULT, the service's default). */
  batchLimit?: number | undefined;
  /** Our clock (UNIX ms); the offset to the service's is learned by itself. */
  now?: (() => number) | undefined;
  decimal?: DecimalAdapter<D> | undefined;
}

export interface WriteOptions {
  /** Replaces the generated key (e.g. to retry a write across restarts of your program). */
  idempotencyKey?: string | undefined;
}

const DEFAULT_USER_AGENT = 'event-exchange-client/0.1';
const DEFAULT_WS_PORT = 8081;

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data, or an ExchangeError carrying status, `error`, `scope` and Retry-After. */
function unwrap<T>(method: string, path: string, result: FetchResult<T>): T {
  const { response } = result;
  if (response.ok && result.data !== undefined) return result.data;
  const body = (typeof result.error === 'object' && result.error !== null ? result.error : undefined) as
    ErrorBody | undefined;
  const text =
    typeof body?.error === 'string'
      ? body.error
      : typeof result.error === 'string' && result.error !== ''
        ? result.error
        : response.statusText;
  throw new ExchangeError(response.status, text, {
    method,
    path,
    body,
    scope: typeof body?.scope === 'string' ? body.scope : undefined,
    retryAfterS: retryAfterSeconds(response.headers.get('retry-after'), Date.now()),
  });
}

const withCursor = (cursor: string | undefined) => (cursor ? { cursor } : {});

/** Every row of a paged GET, page after page (the answer's `cursor` until it is null). */
function pagedList<Data extends { cursor: string | null }, Row>(
  path: string,
  load: (cursor: string | undefined) => Promise<FetchResult<Data>>,
  rows: (data: Data) => Row[],
): AsyncGenerator<Row, void, undefined> {
  return paged(async (cursor) => {
    const data = unwrap('GET', path, await load(cursor));
    return { cursor: data.cursor, rows: rows(data) };
  });
}

const chunks = <T>(items: readonly T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

export class ExchangeClient<D = never> {
  /** Every route, typed from the OpenAPI document; answers `{ data, error, response }`. */
  readonly api: FetchClient<paths>;
  readonly transport: Transport;
  readonly baseUrl: string;
  readonly wsUrl: string;
  readonly batchLimit: number;
  private readonly decimalAdapter: DecimalAdapter<D> | undefined;

  constructor(readonly options: ClientOptions<D>) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    const base = new URL(this.baseUrl);
    this.wsUrl = (
      options.wsUrl ?? `${base.protocol === 'https:' ? 'wss' : 'ws'}://${base.hostname}:${DEFAULT_WS_PORT}/socket`
    )
      .replace(/\/websocket\/?$/, '')
      .replace(/\/+$/, '');
    this.batchLimit = options.batchLimit ?? BATCH_LIMIT_DEFAULT;
    this.decimalAdapter = options.decimal;
    this.transport = new Transport({
      baseUrl: this.baseUrl,
      credentials: options.credentials,
      userAgent: options.userAgent ?? DEFAULT_USER_AGENT,
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      now: options.now ?? Date.now,
      retries: options.retries ?? RETRIES_DEFAULT,
      retryDelayMaxMs: options.retryDelayMaxMs ?? RETRY_DELAY_MAX_MS,
      idempotencyKeys: options.idempotencyKeys ?? true,
    });
    this.api = createFetchClient<paths>({
      baseUrl: this.baseUrl,
      fetch: this.transport.fetch,
      querySerializer: { array: { style: 'form', explode: false } },
    });
  }

  /** Service clock minus ours (learned when a signature was refused as stale). */
  get clockOffsetMs(): number {
    return this.transport.clockOffsetMs;
  }

  /** Reads an answer's decimal string with the adapter given to the client. */
  decimal(text: string): D {
    if (!this.decimalAdapter) throw new TypeError('no decimal adapter was given to the client');
    return this.decimalAdapter.parse(text);
  }

  // ---- reads -------------------------------------------------------------------------------

  async me(): Promise<Me> {
    return unwrap('GET', '/api/v1/me', await this.api.GET('/api/v1/me')).me;
  }

  async balance(): Promise<Balance> {
    return unwrap('GET', '/api/v1/account/balance', await this.api.GET('/api/v1/account/balance')).balance;
  }

  async order(orderId: string): Promise<Order> {
    return unwrap(
      'GET',
      '/api/v1/orders/{order_id}',
      await this.api.GET('/api/v1/orders/{order_id}', { params: { path: { order_id: orderId } } }),
    ).order;
  }

  async updateProfile(body: Schemas['ProfilePatchBody'], options: WriteOptions = {}): Promise<Me> {
    const headers = options.idempotencyKey ? { 'Idempotency-Key': options.idempotencyKey } : {};
    return unwrap('PATCH', '/api/v1/me/profile', await this.api.PATCH('/api/v1/me/profile', { body, headers })).me;
  }

  async leaderboard(query: Query<'getLeaderboard'> = {}): Promise<Schemas['Leaderboard']> {
    return unwrap('GET', '/api/v1/leaderboard', await this.api.GET('/api/v1/leaderboard', { params: { query } }));
  }

  markets(query: ListQuery<'listMarkets'> = {}): AsyncGenerator<Market, void, undefined> {
    return pagedList(
      '/api/v1/markets',
      (cursor) => this.api.GET('/api/v1/markets', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.markets,
    );
  }

  orders(query: ListQuery<'listOrders'> = {}): AsyncGenerator<Order, void, undefined> {
    return pagedList(
      '/api/v1/orders',
      (cursor) => this.api.GET('/api/v1/orders', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.orders,
    );
  }

  fills(query: ListQuery<'listFills'> = {}): AsyncGenerator<Fill, void, undefined> {
    return pagedList(
      '/api/v1/fills',
      (cursor) => this.api.GET('/api/v1/fills', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.fills,
    );
  }

  positions(query: ListQuery<'listPositions'> = {}): AsyncGenerator<Position, void, undefined> {
    return pagedList(
      '/api/v1/positions',
      (cursor) => this.api.GET('/api/v1/positions', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.positions,
    );
  }

  marketStats(query: ListQuery<'listMarketStats'> = {}): AsyncGenerator<Schemas['MarketStats'], void, undefined> {
    return pagedList(
      '/api/v1/account/market_stats',
      (cursor) =>
        this.api.GET('/api/v1/account/market_stats', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.market_stats,
    );
  }

  loyalty(query: ListQuery<'listLoyalty'> = {}): AsyncGenerator<Schemas['LoyaltyEntry'], void, undefined> {
    return pagedList(
      '/api/v1/portfolio/loyalty',
      (cursor) => this.api.GET('/api/v1/portfolio/loyalty', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.loyalty,
    );
  }

  withdrawals(query: ListQuery<'listWithdrawals'> = {}): AsyncGenerator<Schemas['WithdrawalEntry'], void, undefined> {
    return pagedList(
      '/api/v1/portfolio/withdrawals',
      (cursor) =>
        this.api.GET('/api/v1/portfolio/withdrawals', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.withdrawals,
    );
  }

  fees(query: ListQuery<'listFees'> = {}): AsyncGenerator<Schemas['FeeEntry'], void, undefined> {
    return pagedList(
      '/api/v1/portfolio/fees',
      (cursor) => this.api.GET('/api/v1/portfolio/fees', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.fees,
    );
  }

  adjustments(query: ListQuery<'listAdjustments'> = {}): AsyncGenerator<Schemas['AdjustmentEntry'], void, undefined> {
    return pagedList(
      '/api/v1/portfolio/adjustments',
      (cursor) =>
        this.api.GET('/api/v1/portfolio/adjustments', { params: { query: { ...query, ...withCursor(cursor) } } }),
      (data) => data.adjustments,
    );
  }

  // ---- writes ------------------------------------------------------------------------------

  private orderBody(order: OrderInput<D>, field: string): OrderBody {
    const price = formatDecimal(order.price, `${field}price`, this.decimalAdapter);
    const quantity = formatDecimal(order.quantity, `${field}quantity`, this.decimalAdapter) as string;
    return { ...order, quantity, ...(price === undefined ? {} : { price }) } as OrderBody;
  }

  /** POST /api/v1/orders: the order as the engine left it (422 ExchangeError when refused). */
  async placeOrder(order: OrderInput<D>, options: WriteOptions = {}): Promise<Order> {
    const body = this.orderBody(order, '');
    const params = options.idempotencyKey ? { header: { 'Idempotency-Key': options.idempotencyKey } } : {};
    return unwrap('POST', '/api/v1/orders', await this.api.POST('/api/v1/orders', { body, params })).order;
  }

  /**
   * POST /api/v1/orders/batched, split into requests of at most `batchLimit` legs, sent one after
   * another; the results come back in the order of `orders`. A given idempotency key is suffixed
   * with the batch's number.
   */
  async placeOrders(
    orders: readonly OrderInput<D>[],
    options: WriteOptions & { geoLocation?: string } = {},
  ): Promise<BatchLegResult[]> {
    const bodies = orders.map((order, i) => this.orderBody(order, `orders[${i}].`));
    const results: BatchLegResult[] = [];
    for (const [n, batch] of chunks(bodies, this.batchLimit).entries()) {
      const params = options.idempotencyKey ? { header: { 'Idempotency-Key': `${options.idempotencyKey}-${n}` } } : {};
      const body = { orders: batch, ...(options.geoLocation ? { geo_location: options.geoLocation } : {}) };
      results.push(
        ...unwrap('POST', '/api/v1/orders/batched', await this.api.POST('/api/v1/orders/batched', { body, params }))
          .results,
      );
    }
    return results;
  }

  /** DELETE /api/v1/orders/batched, split at `batchLimit`: each order's status after cancelling. */
  async cancelOrders(
    orderIds: readonly string[],
    options: WriteOptions & { geoLocation?: string } = {},
  ): Promise<Cancellation[]> {
    const results: Cancellation[] = [];
    for (const [n, batch] of chunks(orderIds, this.batchLimit).entries()) {
      const params = options.idempotencyKey ? { header: { 'Idempotency-Key': `${options.idempotencyKey}-${n}` } } : {};
      const body = {
        orders: batch.map((order_id) => ({ order_id })),
        ...(options.geoLocation ? { geo_location: options.geoLocation } : {}),
      };
      results.push(
        ...unwrap('DELETE', '/api/v1/orders/batched', await this.api.DELETE('/api/v1/orders/batched', { body, params }))
          .cancellations,
      );
    }
    return results;
  }

  async cancelOrder(orderId: string, options: WriteOptions = {}): Promise<Cancellation> {
    const [cancellation] = await this.cancelOrders([orderId], options);
    if (!cancellation) throw new Error(`cancelling ${orderId} answered no cancellation`);
    return cancellation;
  }

  /** Cancels every live order (of some markets only, when given). */
  async cancelAll(filter: { marketIds?: string[] } = {}): Promise<Cancellation[]> {
    const ids: string[] = [];
    for await (const order of this.orders({
      status: [...LIVE_ORDER_STATUSES],
      ...(filter.marketIds ? { market_ids: filter.marketIds } : {}),
      limit: 200,
    }))
      ids.push(order.id);
    return ids.length === 0 ? [] : this.cancelOrders(ids);
  }

  // ---- the feed ----------------------------------------------------------------------------

  /** The WebSocket feed (Phoenix Channels) with this client's credentials on the handshake. */
  feed(options: FeedOptions = {}): Feed {
    return new Feed(this, options);
  }
}

export function createClient<D = never>(options: ClientOptions<D>): ExchangeClient<D> {
  return new ExchangeClient<D>(options);
}
