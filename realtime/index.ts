// The WebSocket feed, assembled: state loaded from the read models, the change fan-out, the
// channels, and the uWebSockets.js server. The composition root (cli/serve.ts) hands in what it
// owns: the read-model pool, the projection runner's announcements, the credential resolver,
// the cancel-on-disconnect command and the heartbeat setting.

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Clock } from '../domain/clock.ts';
import type { Queryable } from '../projections/core/queries/db.ts';
import { listBookLevels, listMarketIds } from '../projections/core/queries/book.ts';
import { getMarketsByIds } from '../projections/core/queries/markets.ts';
import type { MarketWire } from '../projections/core/market.ts';
import type { Channel } from './channels/channel.ts';
import { privateChannels, type LiveViewFor } from './channels/private.ts';
import {
  eventsChannel,
  marketUpdatesChannel,
  orderbookChannel,
  tickerChannel,
  tradesChannel,
} from './channels/public.ts';
import { slipChannels } from './channels/slip.ts';
import { DisconnectCanceller, type CancelOnDisconnect } from './disconnect.ts';
import { Feed, type FeedSource } from './feed.ts';
import type { IdentityResolver } from './handshake.ts';
import { Hub } from './hub.ts';
import { createRealtimeMetrics } from './metrics.ts';
import { startRealtimeServer, type RealtimeServer, type WebsocketLimits } from './server.ts';
import type { CredentialNotices } from './credential.ts';
import { OrderBooks } from './state/books.ts';
import type { BookSource } from '../engine/gateway.ts';
import { MarketDirectory } from './state/markets.ts';

/** Markets read per query at start. */
const MARKETS_LOADED_PER_QUERY = 500;

interface RealtimeDeps {
  port: number;
  logger: Logger;
  clock: Clock;
  registry: Registry;
  db: Queryable;
  changes: FeedSource;
  /** The engine's books (journaled level changes); without it the projector's announcements move them. */
  books?: BookSource;
  resolver?: IdentityResolver;
  cancelOnDisconnect?: CancelOnDisconnect;
  heartbeatTimeoutMs(): number;
  /** The operator setting `websocket_limits`, read at each handshake and join. */
  limits(): WebsocketLimits;
  /** Notices that a credential ended (a key deleted, a token or grant revoked, an account no longer active). */
  credentialNotices?: CredentialNotices;
  /** Resolves once the read models have passed the account's last write (bounded wait). */
  readYourWrites?(accountId: string): Promise<void>;
  /** The engine's live view when it has passed the account's last write: private snapshots' live parts come from it. */
  liveView?: LiveViewFor;
}

export interface Realtime {
  port: number;
  server: RealtimeServer;
  feed: Feed;
  stop(): Promise<void>;
}

async function loadMarkets(db: Queryable, nowUs: number): Promise<MarketWire[]> {
  const ids = await listMarketIds(db);
  const markets: MarketWire[] = [];
  for (let start = 0; start < ids.length; start += MARKETS_LOADED_PER_QUERY) {
    markets.push(...(await getMarketsByIds(db, ids.slice(start, start + MARKETS_LOADED_PER_QUERY), nowUs)));
  }
  return markets;
}

export async function startRealtime(deps: RealtimeDeps): Promise<Realtime> {
  const logger = deps.logger.child({ component: 'realtime' });
  const metrics = createRealtimeMetrics(deps.registry);
  const hub = new Hub(metrics.framesPublished);
  const feed = new Feed(hub, new OrderBooks(), new MarketDirectory(), logger);
  if (deps.books) feed.useBookSource(deps.books);
  await feed.start(deps.changes, {
    load: async () => ({
      books: await listBookLevels(deps.db),
      markets: await loadMarkets(deps.db, deps.clock.nowUs()),
    }),
  });
  const readYourWrites = deps.readYourWrites ?? (async () => undefined);
  const canceller = new DisconnectCanceller(deps.cancelOnDisconnect, logger, metrics);
  const channels: Channel[] = [
    orderbookChannel(feed),
    tickerChannel(feed),
    tradesChannel(feed, deps.db),
    marketUpdatesChannel(feed),
    eventsChannel(feed),
    ...privateChannels(feed, deps.db, readYourWrites, deps.liveView),
    ...slipChannels(feed, deps.db, readYourWrites),
  ];
  let server: RealtimeServer;
  try {
    server = await startRealtimeServer({
      port: deps.port,
      logger,
      clock: deps.clock,
      hub,
      channels,
      resolver: deps.resolver,
      heartbeatTimeoutMs: deps.heartbeatTimeoutMs,
      limits: deps.limits,
      metrics,
      lifecycle: canceller,
    });
  } catch (error) {
    feed.stop();
    throw error;
  }
  const stopNotices = deps.credentialNotices?.((key, reason) => server.credentialChanged(key, reason));
  return {
    port: server.port,
    server,
    feed,
    async stop() {
      stopNotices?.();
      await server.stop();
      feed.stop();
      await canceller.drain();
    },
  };
}
