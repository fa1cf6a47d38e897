// The change fan-out: the projection runner's announcements (after each commit, in journal
// order; rows as REST renders them) become frames on feed topics. Public data also moves the
// in-memory state the public channels answer joins from (books, markets). Feed topics:
//   orderbook/{market_id}  ticker/{market_id}  trades/{market_id}  market_updates/{market_id}
//   events/*  events/{event_id}                 — public, one frame for every subscriber
//   orders:{user_id} … account:{user_id}         — private (the Phoenix topic itself), sent to
//                                                  each join on its own (privateTopics.ts)

import type { Logger } from 'pino';
import type { MarketWire } from '../projections/core/market.ts';
import type { ProjectionChange } from '../projections/projector.ts';
import { WATCHED_ONLY_KINDS } from '../domain/readModel/change.ts';
import type { Hub } from './hub.ts';
import { encodeBroadcast } from './protocol.ts';
import type { BookChange, Level, OrderBooks } from './state/books.ts';
import type { BookSource } from '../engine/gateway.ts';
import type { MarketDirectory } from './state/markets.ts';
import { PrivateTopics, type PrivateKind } from './privateTopics.ts';

export const feedTopic = {
  orderbook: (marketId: string) => `orderbook/${marketId}`,
  ticker: (marketId: string) => `ticker/${marketId}`,
  trades: (marketId: string) => `trades/${marketId}`,
  marketUpdates: (marketId: string) => `market_updates/${marketId}`,
  allEvents: 'events/*',
  event: (eventId: string) => `events/${eventId}`,
};

/** Private channels and the change kinds each carries (`account` carries them all). */
export const PRIVATE_UPDATE_KEYS = {
  orders: 'order',
  fills: 'fill',
  positions: 'position',
  settlements: 'settlement',
  balances: 'balance',
} as const;
export type PrivateChannelName = keyof typeof PRIVATE_UPDATE_KEYS | 'account';

/** Changes announced while the start-up load runs; past this the load is repeated. */
const CHANGES_QUEUED_AT_START_MAX = 100_000;

type BookListener = () => void;

/** The newest balance announced of each account a slip holds (what it costs quotes against). */
class LatestBalances {
  private readonly entries = new Map<string, { doc: Record<string, unknown> | null; holders: number }>();

  retain(accountId: string): void {
    const entry = this.entries.get(accountId);
    if (entry) entry.holders += 1;
    else this.entries.set(accountId, { doc: null, holders: 1 });
  }

  release(accountId: string): void {
    const entry = this.entries.get(accountId);
    if (!entry) return;
    entry.holders -= 1;
    if (entry.holders <= 0) this.entries.delete(accountId);
  }

  /** The newest balance known for a held account. */
  latest(accountId: string): Record<string, unknown> | null {
    return this.entries.get(accountId)?.doc ?? null;
  }

  /** After a snapshot read: the base for later differences, unless an announcement came first. */
  seed(accountId: string, doc: Record<string, unknown> | null): void {
    const entry = this.entries.get(accountId);
    if (entry && entry.doc === null && doc) entry.doc = doc;
  }

  /** An announced balance: kept when a slip holds the account. */
  note(doc: Record<string, unknown>): void {
    const entry = this.entries.get(doc.account_id as string);
    if (entry) entry.doc = doc;
  }
}

export interface FeedSource {
  onChange(listener: (changes: ProjectionChange[]) => void): () => void;
  /**
   * Asks for an account's order and fill changes (sent only for watched accounts), resolving once
   * every later change carries them; the result ends the watch. Absent: every change comes.
   */
  watch?(accountId: string): Promise<() => void>;
}

interface FeedLoader {
  /** Every market's book levels and Market objects, read at start. */
  load(): Promise<{ books: Parameters<OrderBooks['load']>[0]; markets: MarketWire[] }>;
}

export class Feed {
  readonly balances = new LatestBalances();
  /** The joins of private topics, each sent its own updates (privateTopics.ts). */
  readonly privateTopics = new PrivateTopics();
  private readonly bookListeners = new Map<string, Set<BookListener>>();
  private unsubscribe: (() => void) | undefined;
  private source: FeedSource | undefined;
  /** Set when the books come from the engine (journaled steps) rather than the projector. */
  private bookSource: BookSource | undefined;
  private unsubscribeBooks: (() => void) | undefined;

  constructor(
    private readonly hub: Hub,
    readonly books: OrderBooks,
    readonly markets: MarketDirectory,
    private readonly logger: Pick<Logger, 'warn' | 'error'>,
  ) {}

  /** Subscribes, loads the current state, then applies what was announced meanwhile. */
  async start(source: FeedSource, loader: FeedLoader): Promise<void> {
    this.source = source;
    let queue: ProjectionChange[][] | null = [];
    let overflowed = false;
    let queued = 0;
    this.unsubscribe = source.onChange((changes) => {
      if (queue === null) {
        this.handle(changes);
        return;
      }
      queued += changes.length;
      if (queued > CHANGES_QUEUED_AT_START_MAX) overflowed = true;
      else queue.push(changes);
    });
    for (;;) {
      const { books, markets } = await loader.load();
      if (!this.bookSource) this.books.load(books);
      for (const market of markets) this.markets.apply(market);
      if (!overflowed) break;
      this.logger.warn({ queued }, 'many changes announced during the feed start-up load; loading again');
      queue = [];
      queued = 0;
      overflowed = false;
    }
    // level totals and Market objects are absolute: replaying what overlapped the load is harmless
    for (const changes of queue) this.handle(changes);
    queue = null;
  }

  /**
   * Makes the account's order and fill changes come to this feed, when `channel`'s updates carry
   * them (a join asks before it subscribes); the result ends that. A channel carries a kind of
   * change when `route` publishes it there: `account` every private kind, the others their own
   * (`orders` the `order` changes, `fills` the `fill` ones). Every change comes when the source
   * sends all.
   */
  async watchAccount(channel: PrivateChannelName, accountId: string): Promise<() => void> {
    const carries = channel === 'account' || WATCHED_ONLY_KINDS.has(PRIVATE_UPDATE_KEYS[channel]);
    return (carries ? await this.source?.watch?.(accountId) : undefined) ?? (() => undefined);
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.unsubscribeBooks?.();
    this.unsubscribeBooks = undefined;
  }

  /**
   * Takes the order books from the engine: its books now, then the levels each journaled batch
   * moved, announced as soon as the append landed (no wait for the read models). Call before start().
   */
  useBookSource(source: BookSource): void {
    this.bookSource = source;
    this.books.load(source.snapshot());
    this.unsubscribeBooks = source.onChange((change) => {
      try {
        if (change.kind === 'reset') this.resetBooks(source.snapshot());
        else this.applyBooks(change.books);
      } catch (error) {
        this.logger.error({ err: error }, 'feed could not apply the engine book changes');
      }
    });
  }

  private applyBooks(changes: readonly BookChange[]): void {
    const moved = new Set<string>();
    for (const change of changes) {
      const delta = this.books.apply(change);
      const topic = feedTopic.orderbook(delta.market_id);
      if (this.hub.wants(topic)) this.hub.publish(topic, encodeBroadcast('orderbook', 'delta', delta));
      moved.add(delta.market_id);
    }
    this.notifyBookListeners(moved);
  }

  /**
   * After the engine reloaded its state: each market's difference from what the feed holds, as one
   * delta with the reloaded seq (a client that holds an older seq than its predecessor resyncs).
   */
  private resetBooks(snapshot: readonly BookChange[]): void {
    const changes: BookChange[] = [];
    for (const next of snapshot) {
      const held = this.books.snapshot(next.market_id);
      const diff = (old: readonly Level[], now: readonly Level[]): Level[] => {
        const nowPrices = new Map(now);
        const out: Level[] = now.filter(([price, quantity]) => old.find(([p]) => p === price)?.[1] !== quantity);
        for (const [price] of old) if (!nowPrices.has(price)) out.push([price, '0']);
        return out;
      };
      const bids = diff(held.bids, next.bids);
      const offers = diff(held.offers, next.offers);
      const seqMoved = next.seq !== undefined && next.seq !== held.seq;
      if (bids.length > 0 || offers.length > 0 || seqMoved)
        changes.push({ market_id: next.market_id, seq: next.seq, time_us: next.time_us, bids, offers });
    }
    if (changes.length > 0) this.applyBooks(changes);
  }

  private notifyBookListeners(moved: ReadonlySet<string>): void {
    for (const marketId of moved) {
      for (const listener of this.bookListeners.get(marketId) ?? []) {
        try {
          listener();
        } catch (error) {
          this.logger.error({ err: error, market_id: marketId }, 'book listener failed');
        }
      }
    }
  }

  /** Calls `listener` after every change of that market's book; returns the removal. */
  onBook(marketId: string, listener: BookListener): () => void {
    let set = this.bookListeners.get(marketId);
    if (!set) {
      set = new Set();
      this.bookListeners.set(marketId, set);
    }
    set.add(listener);
    return () => {
      const current = this.bookListeners.get(marketId);
      current?.delete(listener);
      if (current && current.size === 0) this.bookListeners.delete(marketId);
    };
  }

  handle(changes: readonly ProjectionChange[]): void {
    for (const change of changes) {
      try {
        this.route(change);
      } catch (error) {
        this.logger.error({ err: error, kind: change.kind }, 'feed could not forward a change');
      }
    }
  }

  private route(change: ProjectionChange): void {
    const doc = change.doc as Record<string, unknown> | undefined;
    if (!doc) return;
    switch (change.kind) {
      case 'market': {
        const market = doc as unknown as MarketWire;
        const moves = this.markets.apply(market);
        if (moves.ticker) this.publishPublic(feedTopic.ticker(market.market_id), 'ticker', 'ticker', moves.ticker);
        if (moves.update)
          this.publishPublic(feedTopic.marketUpdates(market.market_id), 'market_updates', 'market', moves.update);
        if (moves.event) {
          this.publishPublic(feedTopic.allEvents, 'events', 'volume', moves.event);
          this.publishPublic(feedTopic.event(moves.event.event_id), 'events', 'volume', moves.event);
        }
        return;
      }
      case 'trade':
        this.publishPublic(feedTopic.trades(doc.market_id as string), 'trades', 'trade', doc);
        return;
      case 'order':
        this.publishPrivate(change.keys.user_id, 'orders', 'order', doc, change.seq);
        return;
      case 'fill':
        this.publishPrivate(change.keys.user_id, 'fills', 'fill', doc, change.seq);
        return;
      case 'position':
        this.publishPrivate(change.keys.user_id, 'positions', 'position', doc, change.seq);
        return;
      case 'ledger_entry':
        if (doc.type === 'settlement')
          this.publishPrivate(change.keys.user_id, 'settlements', 'settlement', doc, change.seq);
        return;
      case 'balance': {
        this.balances.note(doc);
        this.publishPrivate(
          change.keys.user_id ?? (doc.user_id as string | undefined),
          'balances',
          'balance',
          doc,
          change.seq,
        );
        return;
      }
      default:
        return;
    }
  }

  private publishPublic(topic: string, phoenixTopic: string, event: string, payload: unknown): void {
    if (this.hub.wants(topic)) this.hub.publish(topic, encodeBroadcast(phoenixTopic, event, payload));
  }

  private publishPrivate(
    userId: string | undefined,
    channel: keyof typeof PRIVATE_UPDATE_KEYS,
    kind: PrivateKind,
    doc: Record<string, unknown>,
    seq: number | undefined,
  ): void {
    if (!userId) return;
    const update = seq === undefined ? { kind, doc } : { kind, doc, seq };
    this.privateTopics.publish(`${channel}:${userId}`, update);
    this.privateTopics.publish(`account:${userId}`, update);
  }
}
