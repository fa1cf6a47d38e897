// @event-exchange/client: typed REST, API-key signing, sessions and OAuth, paging, safe retries,
// and the WebSocket feed with a self-resynchronising order book.

export { createClient, ExchangeClient, BATCH_LIMIT_DEFAULT, LIVE_ORDER_STATUSES } from './client.js';
export type {
  ClientOptions,
  WriteOptions,
  OrderInput,
  OrderBody,
  Order,
  Fill,
  Market,
  Position,
  Balance,
  Me,
  BatchLegResult,
  Cancellation,
  Schemas,
} from './client.js';
export { apiKey, session, oauth, OAuthSession } from './credentials.js';
export type {
  Credentials,
  ApiKeyCredentials,
  SessionCredentials,
  OAuthCredentials,
  OAuthTokens,
} from './credentials.js';
export { ExchangeError, OAuthRefreshError, NetworkError } from './errors.js';
export type { DecimalAdapter, DecimalInput } from './decimal.js';
export { paged, collect, PAGES_MAX } from './paging.js';
export {
  createSigner,
  signingString,
  parsePrivateKey,
  publicKeyOf,
  generateKeyPair,
  HEADER_KEY,
  HEADER_TIMESTAMP,
  HEADER_SIGNATURE,
} from './signing.js';
export type { RequestSigner, SignatureHeaders } from './signing.js';
export { RETRIES_DEFAULT, RETRY_DELAY_MAX_MS } from './transport.js';
export { Feed, FeedJoinError, HEARTBEAT_INTERVAL_MS_DEFAULT, JOIN_TIMEOUT_MS_DEFAULT } from './feed/feed.js';
export type {
  FeedOptions,
  OrdersEvent,
  FillsEvent,
  PositionsEvent,
  SettlementsEvent,
  BalancesEvent,
  AccountEvent,
  Settlement,
} from './feed/feed.js';
export { OrderBook, compareDecimals } from './feed/orderBook.js';
export type { BookEvent, BookSnapshotEvent, BookDeltaEvent, Level } from './feed/orderBook.js';
export { EventStream, StreamOverflowError, STREAM_QUEUE_EVENTS_MAX } from './feed/stream.js';
export type { components, paths, operations } from './generated/openapi.js';
